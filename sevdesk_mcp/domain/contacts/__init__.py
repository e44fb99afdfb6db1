"""Contacts: reading them with addresses and communication ways, creating and updating them."""
