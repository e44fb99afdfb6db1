"""Account contexts: the Config and sevDesk client that the tools of one request use."""
