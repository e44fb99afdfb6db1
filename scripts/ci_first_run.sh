#!/bin/sh
# The first run on a fresh Debian 12 (issue 41), in a container:
#
#   sh scripts/ci_first_run.sh            (as root: it installs Debian packages when missing)
#
#  1. a Debian 12 (bookworm) root filesystem from mmdebstrap (debootstrap's minbase, as in
#     Debian's container images: the required packages, tzdata among them) with python3, make,
#     ca-certificates and git but without python3-venv, imported into podman; this checkout's
#     files (tracked and untracked, not the ignored ones: no .venv) copied into it;
#  2. `make demo` and `make test` there must fail with the preflight's one line naming
#     python3.11-venv, and no traceback;
#  3. `python3 -m venv .venv` then leaves the half-made .venv of the report; python3-venv is
#     installed from Debian in the container;
#  4. `make demo` must now say that it makes the half-made .venv again, and run the demo to its
#     end (its dependencies come from the package index, over podman's default network).
#
# podman's settings and storage live in a temporary folder removed at the end, as in
# scripts/ci_packaging.sh. Any failed step ends it with one line saying what failed, status 1.
set -eu
cd "$(dirname "$0")/.."
STARTED=$(date +%s)
WORK=$(mktemp -d)
CONTAINER="mcp-server-sevdesk-first-run-$$"
IMAGE="localhost/debian-without-venv:bookworm"
SUITE="bookworm"
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
# the line the preflight must print on Debian 12 without python3-venv
EXPECTED="preflight: python3 (Python 3.11) has no venv support (its ensurepip module is missing);"
EXPECTED_HOW="sudo apt install python3.11-venv"

say() {
    echo "first run: $* (at $(($(date +%s) - STARTED)) s)"
}

fail() {
    echo "first run: FAILED: $*" >&2
    exit 1
}

cleanup() {
    status=$?
    if [ -n "${CONTAINERS_CONF:-}" ] && command -v podman >/dev/null 2>&1; then
        podman rm -f -t 0 "$CONTAINER" >/dev/null 2>&1 || true
        podman image rm --all --force >/dev/null 2>&1 || true
    fi
    rm -rf "$WORK"
    if [ "$status" -ne 0 ]; then
        echo "first run: FAILED (exit $status) after $(($(date +%s) - STARTED)) s" >&2
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# in the container, from /src; output to $WORK/$1.log; :returns: the command's status
in_container() {
    log="$WORK/$1.log"
    shift
    podman exec -w /src "$CONTAINER" "$@" >"$log" 2>&1
}

# fails unless the log $1 is the preflight's one line (plus make's own "Error 1" line)
check_refusal() {
    log="$WORK/$1.log"
    if grep -q Traceback "$log"; then
        fail "$1 printed a Python traceback: $(head -c 300 "$log")"
    fi
    ours=$(grep -v '^make: \*\*\*' "$log" || true)
    if [ "$(printf '%s\n' "$ours" | wc -l)" -ne 1 ]; then
        fail "$1 printed more than the preflight's one line: $(head -c 300 "$log")"
    fi
    case "$ours" in
    "$EXPECTED"*"$EXPECTED_HOW"*) ;;
    *) fail "$1 did not print the preflight's line about python3.11-venv: $ours" ;;
    esac
}

missing=""
for tool in podman runc mmdebstrap git; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
    say "installing podman, runc, uidmap, mmdebstrap and git from Debian (missing:$missing)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends podman runc uidmap mmdebstrap git >/dev/null
fi
. scripts/podman_env.sh  # podman with its own configuration and storage under $WORK

# 1. Debian 12 without python3-venv, and this checkout in it
say "a Debian 12 without python3-venv, from mmdebstrap"
mmdebstrap -q --variant=minbase --include=python3,make,ca-certificates,git "$SUITE" \
    "$WORK/rootfs.tar"
podman import -q "$WORK/rootfs.tar" "$IMAGE" >/dev/null
rm -f "$WORK/rootfs.tar"
# the host's CA bundle, for a package index reached through a proxy with its own CA
CA_MOUNT=""
if [ -f "$CA_BUNDLE" ]; then
    CA_MOUNT="$CA_BUNDLE:$CA_BUNDLE:ro"
fi
podman run -d --name "$CONTAINER" ${CA_MOUNT:+-v "$CA_MOUNT"} -e PIP_CERT="$CA_BUNDLE" \
    -e DEBIAN_FRONTEND=noninteractive "$IMAGE" sleep infinity >/dev/null
git ls-files --cached --others --exclude-standard | while IFS= read -r file; do
    if [ -e "$file" ]; then printf '%s\n' "$file"; fi
done >"$WORK/files"
podman exec "$CONTAINER" mkdir /src
tar -cf - -T "$WORK/files" | podman exec -i "$CONTAINER" tar -xf - -C /src

# 2. the preflight's one line
say "make demo and make test without python3-venv"
for target in demo test; do
    if in_container "make-$target-without-venv" make "$target"; then
        fail "make $target succeeded without python3-venv"
    fi
    check_refusal "make-$target-without-venv"
done
say "make demo said: $(head -n 1 "$WORK/make-demo-without-venv.log")"
if in_container venv-without-ensurepip python3 -m venv .venv; then
    fail "python3 -m venv succeeded without python3-venv: this is not the reported machine"
fi
in_container venv-left [ -x .venv/bin/python ] ||
    fail "python3 -m venv without python3-venv left no half-made .venv behind"

# 3. python3-venv, as the line says
say "installing python3-venv in the container"
in_container apt sh -c 'apt-get update -qq && apt-get install -y -qq python3-venv' ||
    fail "apt-get install python3-venv in the container: $(tail -c 300 "$WORK/apt.log")"

# 4. the half-made .venv is made again, and the demo runs to its end
say "make demo with python3-venv and the half-made .venv"
in_container make-demo make demo ||
    fail "make demo after installing python3-venv: $(tail -c 400 "$WORK/make-demo.log")"
grep -q '^preflight: .venv is half-made (it has no pip)' "$WORK/make-demo.log" ||
    fail "make demo did not say that it makes the half-made .venv again"
say "make demo said: $(grep '^preflight: ' "$WORK/make-demo.log")"
grep -q 'claude mcp add sevdesk' "$WORK/make-demo.log" ||
    fail "make demo ended before the demo's last part: $(tail -c 400 "$WORK/make-demo.log")"
in_container marker [ -f .venv/.complete ] || fail "make demo left no .venv/.complete"
say "done: the one-line refusal without python3-venv, then the demo after a half-made .venv"
