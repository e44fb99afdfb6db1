"""The vouchers toolset: receipts read, suggested, uploaded, drafted and finalized."""
