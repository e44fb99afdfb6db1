"""Tags: reading them and their objects, and adding or removing one on a document or receipt."""
