# The two README commands, each working first on a fresh clone: `make demo` (set up, then a
# scripted session against the demo books) and `make test` (set up, lint, types, the whole test
# suite with branch coverage).
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: setup demo lint test bench bench-stdio bench-http bench-faults clean

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

clean:
	rm -rf $(VENV) .coverage .mypy_cache .ruff_cache .pytest_cache
