"""The documents toolset: reading, drafts and binding steps, payments and reversals."""
