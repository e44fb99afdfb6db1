# The two README commands, each working first on a fresh clone: `make demo` (set up, then a
# scripted session against the demo books) and `make test` (set up, lint, types, the whole test
# suite with branch coverage).
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup demo lint test bench bench-stdio bench-http bench-faults dist image packaging clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

setup: $(BIN)/python
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
	$(BIN)/coverage report --fail-under=95

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
	$(TOOLS)/bin/python -m pip install -qq -r scripts/packaging/tools.txt

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
