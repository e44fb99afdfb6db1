"""E-invoice tools: read, suggest a receipt, file, preflight."""
