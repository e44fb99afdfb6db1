"""The local approval page (``SEVDESK_CONFIRM=browser`` over stdio and in bearer mode): its
site on the loopback page listener of ``http.pages``, built on the page kit (ADR 0005, 0016)."""
