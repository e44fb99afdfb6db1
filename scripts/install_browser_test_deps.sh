#!/usr/bin/env bash
# Installs what the browser-approval test (tests/browser/test_chromium.py) needs on a fresh
# Debian machine: Debian's chromium, driven over the DevTools protocol on a pipe (no WebDriver,
# no Python package, no browser download). Needs root (or sudo); skips what is already there.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
    echo "chromium is already installed: $(chromium --version 2>/dev/null)"
    exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq chromium
chromium --version
