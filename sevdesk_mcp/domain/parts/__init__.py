"""Articles (parts): reading them with prices and stock, their numbers, creating and
updating them."""
