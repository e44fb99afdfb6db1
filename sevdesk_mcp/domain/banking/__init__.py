"""Check accounts, balances and transactions, and booking a payment on a document."""
