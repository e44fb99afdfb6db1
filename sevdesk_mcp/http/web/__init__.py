"""Pages for remote people in HTTP mode (OAuth): browser sessions of a sevDesk account, the
approval inbox (``SEVDESK_CONFIRM=browser``) and file transfer (``SEVDESK_HTTP_FILES``).

Served on the main listener by the one stack (ADR 0005), with one stylesheet and one small
script from this origin, no inline script, German and English from ``Accept-Language``.
"""
