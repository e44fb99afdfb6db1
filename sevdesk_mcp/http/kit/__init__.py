"""The page kit: what every page for a person's browser is built on, written once.

Every page uses it: the local approval page on its loopback listener (``http.approval_page``,
ADR 0005), the consent page of the authorization server (``http.oauth.consent_page``) and the
pages of ``http.web`` (sign-in, the approval inbox, upload, download). ADR 0016.

============  ==========================================================================
module        what
============  ==========================================================================
``style``     the one stylesheet, inlined in every page and allowed by its hash
``headers``   the one Content-Security-Policy and the headers of every page answer
``lang``      the language: the ``lang`` field, ``Accept-Language``, the configured default
``page``      the one HTML escaper, the shell, the language switch, moments, answering
``forms``     the one reader of forms and queries (each field once, UTF-8, bounded), cookies
``guard``     the one same-origin check and the constant-time token comparison
``approval``  both approval pages' preview (from its data, by language) and two forms
``token``     the sevDesk API token a person pastes (sign-in, consent): field and check
============  ==========================================================================

The kit imports only the stack's exchange and settings and ``safety``; nothing of ``oauth`` or
``web``.
"""
