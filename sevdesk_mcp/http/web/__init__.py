"""Pages for remote people in HTTP mode (OAuth): browser sessions of a sevDesk account, the
approval inbox (``SEVDESK_CONFIRM=browser``) and file transfer (``SEVDESK_HTTP_FILES``).

Served on the main listener by the one stack (ADR 0005), built on the page kit (``http.kit``,
ADR 0016: the shell, the one stylesheet and CSP, escaping, forms, the same-origin check, German
and English from ``Accept-Language``), with one small script from this origin and no inline
script.
"""
