"""The banking toolset: accounts and transactions, reconciliation suggestions and bookings."""
