#!/bin/sh
# The check before the set-up makes its virtual environment (issue 41): run by the Makefile's
# venv rule, before `python -m venv`.
#
#   sh scripts/preflight.sh PYTHON VENV
#
#  1. PYTHON must exist, run, be Python 3.11 or newer and have venv support (the `venv` and
#     `ensurepip` modules: Debian's python3 without python3-venv has no ensurepip, and
#     `python3 -m venv` then fails half-way); if not, one line says what is missing and how to
#     get it, and the status is 1. Plain sh, so a missing or old Python is reported too.
#  2. A half-made VENV (its bin/python does not run, or it has no pip: what `python3 -m venv`
#     leaves without python3-venv, or a set-up stopped half-way) is removed, with one line
#     saying so, so the rule makes it again. A working one without the marker the Makefile
#     writes last (VENV/.complete: made before the marker existed, or by hand) is kept: the rule
#     runs venv and the pip upgrade over it and writes the marker. A folder that is no virtual
#     environment (no pyvenv.cfg) is never removed: status 1.
set -u
PY=${1:-python3}
VENV=${2:-.venv}
NEEDED_MINOR=11
GET_DEBIAN="Debian/Ubuntu: sudo apt install"
GET_OTHERS="macOS: brew install python@3.12; other systems: https://www.python.org/downloads/"

fail() {
    echo "preflight: $*" >&2
    exit 1
}

# :returns: (prints) the major.minor of $PY; empty when it does not run
version_of() {
    "$PY" -c 'import sys; sys.stdout.write("%d.%d\n" % sys.version_info[:2])' 2>/dev/null
}

check_python() {
    if ! command -v "$PY" >/dev/null 2>&1; then
        fail "Python not found (PY=$PY): the set-up needs Python 3.$NEEDED_MINOR or newer" \
            "with venv; $GET_DEBIAN python3 python3-venv; $GET_OTHERS (or make PY=/path/to/python3)"
    fi
    version=$(version_of)
    if [ -z "$version" ]; then
        fail "$PY does not run: the set-up needs Python 3.$NEEDED_MINOR or newer with venv;" \
            "$GET_DEBIAN python3 python3-venv; $GET_OTHERS (or make PY=/path/to/python3)"
    fi
    major=${version%%.*}
    minor=${version#*.}
    if [ "$major" -ne 3 ] || [ "$minor" -lt "$NEEDED_MINOR" ]; then
        fail "$PY is Python $version, the set-up needs 3.$NEEDED_MINOR or newer;" \
            "$GET_DEBIAN python3.$NEEDED_MINOR python3.$NEEDED_MINOR-venv; $GET_OTHERS;" \
            "then make PY=python3.$NEEDED_MINOR (or the version installed)"
    fi
    if ! "$PY" -c 'import venv, ensurepip; ensurepip.version()' >/dev/null 2>&1; then
        fail "$PY (Python $version) has no venv support (its ensurepip module is missing);" \
            "$GET_DEBIAN python$version-venv; $GET_OTHERS"
    fi
}

# :returns: (prints) why $VENV is half-made; empty when it is complete
what_is_missing() {
    if ! "$VENV/bin/python" -c '' >/dev/null 2>&1; then
        echo "$VENV/bin/python does not run"
    elif ! "$VENV/bin/python" -c 'import pip' >/dev/null 2>&1; then
        echo "it has no pip"
    fi
}

check_venv() {
    if [ ! -e "$VENV" ] && [ ! -L "$VENV" ]; then
        return 0
    fi
    why=$(what_is_missing)
    if [ -z "$why" ]; then
        return 0
    fi
    if [ -d "$VENV" ] && [ ! -f "$VENV/pyvenv.cfg" ] && [ -n "$(ls -A "$VENV")" ]; then
        fail "$VENV is in the way but is no virtual environment (no pyvenv.cfg): move it away," \
            "or make VENV=another-folder"
    fi
    echo "preflight: $VENV is half-made ($why); removing it and making it again"
    rm -rf "$VENV" || fail "$VENV could not be removed: remove it by hand, then run make again"
}

check_python
check_venv
