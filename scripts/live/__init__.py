"""Shared parts of the live scripts (``record_fixtures.py``, ``probe_api.py``): a GET-only
session against a sevDesk account, the sanitizer of recordings, the probes of the quirks in
``docs/sevdesk-api.md`` and the comparison of answer shapes used to replay recordings.

Nothing here is part of the package: the scripts and tests import it as ``live`` with the
``scripts`` folder on ``sys.path``.
"""
