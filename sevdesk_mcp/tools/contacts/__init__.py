"""The contacts toolset."""
