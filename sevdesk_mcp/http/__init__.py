"""The one HTTP stack, on h11 and anyio: Streamable HTTP for MCP, and pages for the user's browser.

Modules, in the order a request meets them:

- ``server``: the listener, the connection cap;
- ``connection``: one h11 connection: deadlines, body caps, pipelining, client disconnects;
- ``reader``: the one task per connection that receives from its socket;
- ``router``: path checks, Host, rate limits, routes (404/405), Origin, auth, in-flight caps;
- ``mcp_route``: ``POST /mcp``, stateless, both protocol eras;
- ``hardening``, ``ratelimit``, ``auth``, ``log``: the rules those steps apply;
- ``lifecycle``: shutdown (health checks fail, running requests get their grace);
- ``settings`` and ``limits``: what an operator configures and what is fixed;
- ``serve`` and ``commands``: the wiring and the operator commands the command line runs;
- ``pages`` and ``approval_page``: the same stack serving the local approval page for the
  user's browser on a loopback listener of its own;
- ``kit``: the page kit every page is built on (ADR 0016); ``oauth`` and ``web``: the
  authorization server and the pages for remote people.
"""
