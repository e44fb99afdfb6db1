#!/usr/bin/env bash
# What CI runs after the README's test command, the same in `.ci/run` and in the hosted
# workflow (.github/workflows/ci.yml, linux-extras), on Debian 12 as root, in a set-up checkout:
#
#   bash scripts/ci_extras.sh
#
#  1. the spec drift (issue 42): what the server uses against sevDesk's OpenAPI file, named by
#     SEVDESK_OPENAPI_FILE (skipped, saying so, where that file is not there);
#  2. the real-browser tests (the approval page, the OAuth consent page in the SDK client's
#     flow, the inbox), with Debian's chromium (installed here) and axe from npm;
#  3. the MCP conformance suite against the HTTP transport, and its authorization-server
#     scenarios against OAuth mode (Node 22 and the suite from npm, into .cache/conformance);
#  4. the TypeScript SDK clients under that Node: 1.x over HTTP sessions (issue 17), 2.x
#     listing every tool in both eras over stdio and HTTP (issue 40);
#  5. the shared state (issue 25): the Redis tests against Debian's redis-server on a loopback
#     port, started and stopped by scripts/redis_for_tests.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -n "${SEVDESK_OPENAPI_FILE:-}" ] && [ -f "$SEVDESK_OPENAPI_FILE" ]; then
    .venv/bin/python scripts/spec_drift.py "$SEVDESK_OPENAPI_FILE"
else
    echo "spec drift skipped: SEVDESK_OPENAPI_FILE (sevDesk's OpenAPI file) names no file here"
fi
bash scripts/install_browser_test_deps.sh
.venv/bin/python -m pytest -q -p no:cacheprovider tests/browser/test_chromium.py \
    tests/browser/test_oauth_chromium.py tests/browser/test_inbox_chromium.py
.venv/bin/python scripts/conformance.py
.venv/bin/python -m pytest -q -p no:cacheprovider tests/interop/test_sdk_http_sessions.py \
    tests/interop/test_ts_sdk_tools.py
bash scripts/redis_for_tests.sh
