"""The OAuth 2.1 authorization server of ``SEVDESK_HTTP_AUTH=oauth``, written over h11.

No OAuth library: every endpoint is here, with ``cryptography`` for every primitive.

==================================================  =====================================
module                                              what
==================================================  =====================================
``seal``                                            AES-256-GCM sealing, HKDF keys per purpose
``claims``                                          what the sealed tokens carry (Structs)
``store``                                           ``GrantStore`` and its file implementation
``redis_store``                                     the grant store on Redis (several instances)
``metadata``                                        RFC 9728 and RFC 8414 documents
``forms``                                           the kit's form reader as OAuth errors, JSON
``clients``                                         client resolution, redirect matching
``cimd``                                            Client ID Metadata Documents, SSRF guard
``register``                                        dynamic client registration (RFC 7591)
``authorize``, ``consent_page``                     ``/authorize`` and the consent page
``token``, ``revoke``                               ``/token`` and ``/revoke`` (RFC 7009)
``verifier``                                        the access-token check of ``/mcp``
``service``                                         the routes, bound and run
==================================================  =====================================
"""
