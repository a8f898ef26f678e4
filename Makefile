PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-fast lint bench bench-quick clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	@# Bytecode now, as an installed package has it: a new `origin mcp` then starts without
	@# compiling every module (~40 ms), even where PYTHONDONTWRITEBYTECODE is set.
	$(BIN)/python -m compileall -q origin_store origin_search origin_api
	touch $(STAMP)

venv: $(STAMP)

## Ingest this machine's agent logs (or generated samples when there are none) and show them.
run: $(STAMP)
	$(BIN)/origin run

## The whole suite.
test: $(STAMP)
	$(BIN)/pytest -q

## The fast suite only (no subprocess end-to-end tests).
test-fast: $(STAMP)
	$(BIN)/pytest -q -m "not e2e"

lint: $(STAMP)
	$(BIN)/ruff check origin_store origin_search origin_api tests bench

## Benchmarks at 1M events (BENCH_ARGS=--quick for 100k, --events N for any size).
bench: $(STAMP)
	$(BIN)/python -m bench $(BENCH_ARGS)

bench-quick: $(STAMP)
	$(BIN)/python -m bench --quick

clean:
	rm -rf $(VENV) .pytest_cache
