"""The metadata lint of local files: every tool that reads or writes local files declares it,
and the declarations are exactly the reviewed list below (a new one needs a review of its paths
and limits, docs/security.md "Local files")."""

from __future__ import annotations

from sevdesk_mcp.tools import definitions

REVIEWED = {
    "sevdesk_upload_receipt": "read",  # FileAccess.read: SEVDESK_FILE_DIRS only
    "sevdesk_read_einvoice": "read",  # the same FileAccess.read; parsed under the e-invoice caps
    "sevdesk_suggest_einvoice_receipt": "read",
    "sevdesk_file_einvoice": "read",
    "sevdesk_document_pdf": "write",  # FileAccess.deliver: new files in SEVDESK_OUTPUT_DIR
    "sevdesk_export_csv": "write",  # the exports deliver to SEVDESK_OUTPUT_DIR as well
    "sevdesk_export_datev": "write",
    "sevdesk_export_datev_enshrined": "write",  # the same delivery, after the approval
}


def test_the_tools_using_local_files_are_the_reviewed_ones() -> None:
    declared = {t.name: t.local_files for t in definitions.ALL_TOOLS if t.local_files is not None}
    assert declared == REVIEWED


def test_no_other_tool_module_touches_the_file_system() -> None:
    import inspect

    from sevdesk_mcp import tools

    modules = definitions.MODULES
    assert len(modules) > 10
    for module in [*modules, tools]:
        source = inspect.getsource(module)
        for word in ("open(", "os.open", "Path(", ".read_bytes", ".write_bytes"):
            assert word not in source, f"{module}: {word}"
