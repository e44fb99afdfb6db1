# The two README commands, each working first on a fresh clone: `make demo` (set up, then a
# scripted session against the demo books) and `make test` (set up, lint, types, the whole test
# suite with branch coverage).
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup demo lint test test-redis bench bench-stdio bench-http bench-faults dist image packaging clean

# The shared state's modules (Redis, issue 25) are covered where a Redis server runs: here when
# Debian's redis-server is installed; on a fresh machine without it their tests skip and
# scripts/redis_for_tests.sh (CI's step 4) runs them and checks their coverage itself.
REDIS_MODULES := sevdesk_mcp/shared/*,sevdesk_mcp/*/*_redis.py,sevdesk_mcp/*/*/*_redis.py,sevdesk_mcp/http/ratelimit_shared.py,sevdesk_mcp/sevdesk/pacing_shared.py,sevdesk_mcp/http/sessions/redis_*.py,sevdesk_mcp/cli/scaleout.py
WITHOUT_REDIS := $(if $(shell command -v redis-server),,--omit='$(REDIS_MODULES)')

# The venv (issue 41): scripts/preflight.sh first checks $(PY) (Python >= 3.11 with venv support;
# if not, one line says how to get it) and removes a half-made $(VENV); the marker is written
# last, so a set-up stopped half-way leaves none and the next run makes the venv again. The
# marker also waits on $(BIN)/python, whose empty rule forces a new venv when that python is gone.
MARKER := $(VENV)/.complete

$(MARKER): $(BIN)/python
	@sh scripts/preflight.sh '$(PY)' '$(VENV)'
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@touch $@

$(BIN)/python:

setup: $(MARKER)
	$(BIN)/python -m pip install --quiet -e '.[test]'

demo: setup
	$(BIN)/python scripts/demo_session.py

lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

test: setup lint
	$(BIN)/coverage erase
	$(BIN)/coverage run -m pytest
	$(BIN)/coverage combine --quiet
	$(BIN)/coverage report --include='sevdesk_mcp/mcp/*,sevdesk_mcp/tools/*' --fail-under=95
	$(BIN)/coverage report $(WITHOUT_REDIS) --fail-under=95

# The shared-state tests with their coverage (a Redis server must run: SEVDESK_TEST_REDIS_URL,
# or Debian's redis-server on the PATH; scripts/redis_for_tests.sh provides one).
test-redis: setup
	$(BIN)/coverage erase
	$(BIN)/coverage run -m pytest -p no:cacheprovider tests/shared
	$(BIN)/coverage combine --quiet
	$(BIN)/coverage report --include='$(REDIS_MODULES)' --fail-under=90

# Benchmarks against the SDK's MCPServer (docs/performance.md); run by hand, never in CI.
bench: bench-stdio bench-http bench-faults

bench-stdio: setup
	$(BIN)/python bench/stdio_bench.py

bench-http: setup
	$(BIN)/python bench/http_bench.py

bench-faults: setup
	$(BIN)/python bench/fault_bench.py

# Packaging (issue 18). `make dist`: wheel and sdist, reproducible (SOURCE_DATE_EPOCH = the last
# commit's time), into dist/, with the build tools in a venv of their own under .cache/.
# `make image`: the container image from the Dockerfile with its default (public) base images.
# `make packaging`: everything CI builds and checks (scripts/ci_packaging.sh; needs root for podman).
TOOLS := .cache/packaging-tools
CONTAINER_TOOL ?= docker

$(TOOLS)/bin/python:
	$(PY) -m venv $(TOOLS)
	$(TOOLS)/bin/python -m pip install -qq --require-hashes -r scripts/packaging/tools.lock

dist: $(TOOLS)/bin/python
	rm -rf dist
	$(TOOLS)/bin/python scripts/packaging/build_dist.py dist
	$(TOOLS)/bin/check-wheel-contents dist/*.whl

image:
	$(CONTAINER_TOOL) build -t mcp-server-sevdesk .

packaging:
	sh scripts/ci_packaging.sh

clean:
	rm -rf $(VENV) $(TOOLS) .coverage .mypy_cache .ruff_cache .pytest_cache
