"""The advanced toolset: the generic read."""
