"""Business logic: normalized DTOs, money, reference data, lifecycle rules. No httpx."""
