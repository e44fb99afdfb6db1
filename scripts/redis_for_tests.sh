#!/usr/bin/env bash
# Runs the shared-state tests (tests/shared: the store contract suites on Redis, several server
# processes sharing one Redis, Redis stopped mid-run) against a real Redis: installs Debian's
# redis-server if it is missing (root or sudo), starts it on a free loopback port without
# persistence, runs the tests with SEVDESK_TEST_REDIS_REQUIRED=1 (a missing server fails instead
# of skipping) with the coverage of the shared state's modules (`make test-redis`), and stops it
# again, whatever the outcome.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v redis-server >/dev/null 2>&1; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then
        SUDO="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq redis-server
fi
# Debian's package may start a server of its own; it is not ours to stop, and not used.
PORT="$(.venv/bin/python -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
DATA="$(mktemp -d)"
redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --dir "$DATA" \
    --loglevel warning --daemonize no &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null; rm -rf "$DATA"' EXIT
for _ in $(seq 1 100); do
    if redis-cli -p "$PORT" ping >/dev/null 2>&1; then
        break
    fi
    sleep 0.1
done
redis-server --version
SEVDESK_TEST_REDIS_URL="redis://127.0.0.1:$PORT/0" SEVDESK_TEST_REDIS_REQUIRED=1 make test-redis
