"""The MCP prompts: workflows written here (trusted text), planned per configuration.

- :mod:`.model`: what a workflow, a step and an argument are;
- :mod:`.catalog`: the workflows; every step declares the tools it names;
- :mod:`.plan`: which workflows a configuration offers, and its "needs …" lines;
- :mod:`.render`: argument checks and the prompt text;
- :mod:`.provider`: ``prompts/list``, ``prompts/get`` and ``completion/complete``.
"""
