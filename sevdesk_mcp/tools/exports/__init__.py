"""Exports: CSV, the DATEV file, the enshrined DATEV export."""
