"""HTTP transport tests: real sockets on 127.0.0.1, ephemeral ports."""
