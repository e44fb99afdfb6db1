"""The parts toolset."""
