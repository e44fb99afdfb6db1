"""The tags toolset."""
