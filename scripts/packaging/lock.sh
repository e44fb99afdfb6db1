#!/bin/sh
# Write the hash-locked requirements of the image, the runtime venv, the bundle and the SBOMs:
#
#   sh scripts/packaging/lock.sh [--upgrade] [OUTDIR]     (UV names uv; default: uv on PATH)
#
# scripts/packaging/requirements.lock: the wheel's runtime dependencies (pyproject.toml's
# [project] dependencies, which tests/packaging/test_dependencies.py holds equal to the wheel's
# Requires-Dist); requirements-redis.lock: the same with the redis extra. Both universal (every
# platform and Python >= 3.11, with markers; pip evaluates them for the interpreter that
# installs) and with the sha256 of every file of every pinned release, so pip with
# --require-hashes installs nothing else. requirements-image.lock and
# requirements-image-redis.lock: the same compiles with keyring left out of the input, so
# nothing only keyring brings is pinned: the container image installs them (it has no keychain;
# ADR 0020), then the wheel without its dependencies. A new image lock starts from the pins of
# the wheel's lock, so the image has the wheel's versions. requirements-build.lock: the build
# backend (pyproject.toml's [build-system] requires), with which the image's build stage builds
# the wheel. tools.lock: the build and check tools (scripts/packaging/tools.txt) and setuptools
# at requirements-build.lock's version (scripts/packaging/build_dist.py builds without isolation,
# with the tools venv's setuptools), universal too, so that build_release.sh and `make dist`
# install them with --require-hashes on Linux, macOS and Windows alike. The existing pins are
# kept unless --upgrade is given. OUTDIR (default scripts/packaging) lets
# scripts/packaging/build_release.sh check that the committed locks are up to date.
set -eu
cd "$(dirname "$0")/../.."
UV=${UV:-uv}
UPGRADE=""
if [ "${1:-}" = "--upgrade" ]; then
    UPGRADE="--upgrade"
    shift
fi
OUT=${1:-scripts/packaging}
# the requirements given on stdin: the build system's, or the image's (pyproject.toml's
# dependencies and the extras named, without keyring)
requires() {
    python3 - "$@" <<'PY'
import re
import sys
import tomllib

sys.path.insert(0, "scripts/packaging")
from pep503 import normalise

with open("pyproject.toml", "rb") as f:
    meta = tomllib.load(f)
if sys.argv[1] == "build":
    print(*meta["build-system"]["requires"], sep="\n")
    sys.exit()
project = meta["project"]
wanted = list(project["dependencies"])
for extra in sys.argv[2:]:
    wanted += project["optional-dependencies"][extra]
name = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")
left = [r for r in wanted if normalise(name.match(r)[1]) != "keyring"]
if len(left) == len(wanted):
    sys.exit("lock.sh: pyproject.toml's dependencies name no keyring to leave out of the image")
print(*left, sep="\n")
PY
}
# the setuptools pin of OUT/requirements-build.lock, for tools.lock
setuptools_pin() {
    pin=$(sed -n 's/^\(setuptools==[^ ;]*\).*/\1/p' "$OUT/requirements-build.lock")
    if [ -z "$pin" ]; then
        echo "lock.sh: $OUT/requirements-build.lock pins no setuptools: pyproject.toml's [build-system] requires must name it" >&2
        exit 1
    fi
    echo "$pin"
}
for lock in requirements requirements-redis requirements-image requirements-image-redis \
    requirements-build tools; do
    input=pyproject.toml
    extra=""
    stdin=""
    case "$lock" in
    requirements-redis) extra="--extra redis" ;;
    requirements-image) input="-" stdin=$(requires image) ;;
    requirements-image-redis) input="-" stdin=$(requires image redis) ;;
    requirements-build) input="-" stdin=$(requires build) ;;
    tools) input=scripts/packaging/tools.txt extra="-" stdin=$(setuptools_pin) ;;
    esac
    if [ -f "scripts/packaging/$lock.lock" ]; then
        if [ "$OUT" != scripts/packaging ]; then
            cp "scripts/packaging/$lock.lock" "$OUT/$lock.lock"
        fi
    else
        case "$lock" in # a new image lock starts from the wheel's pins
        requirements-image*) cp "$OUT/requirements${lock#requirements-image}.lock" "$OUT/$lock.lock" ;;
        esac
    fi
    # shellcheck disable=SC2086 # the optional flags are split on purpose
    echo "$stdin" | "$UV" pip compile "$input" $extra $UPGRADE --universal \
        --python-version 3.11 --generate-hashes --no-header --quiet \
        --output-file "$OUT/$lock.lock"
done
