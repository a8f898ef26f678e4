PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CODE := origin_store origin_search origin_api tests bench

.DEFAULT_GOAL := help
.PHONY: help venv run check fmt fmt-check lint types test test-slow test-fast bench bench-quick clean

$(STAMP): pyproject.toml
	@echo "Setting up $(VENV), once: Origin and the ~70 Python packages it and its checks use"
	@echo "(tantivy, lmdb, litestar, the MCP SDK; pytest, mypy, ruff). About a minute; pip is quiet meanwhile."
	@echo "  creating $(VENV) with $(PY) ($$($(PY) --version 2>&1))"
	@$(PY) -m venv $(VENV)
	@$(BIN)/pip install --quiet --upgrade pip
	@echo "  installing the packages"
	@# compat: a plain path in a .pth file. The default editable mode imports a finder module at
	@# every interpreter start (~10-16 ms), which a fresh `origin search` would pay each time.
	@# setuptools warns that compat is transitional (hence its pin below 85 in pyproject.toml):
	@# that one warning, chosen knowingly, is not shown.
	@PYTHONWARNINGS="ignore:Compat editable installs" \
		$(BIN)/pip install --quiet -e '.[dev]' --config-settings editable_mode=compat
	@echo "  compiling Origin's modules"
	@# Bytecode now, as an installed package has it: a new `origin mcp` then starts without
	@# compiling every module (~40 ms), even where PYTHONDONTWRITEBYTECODE is set.
	@$(BIN)/python -m compileall -q origin_store origin_search origin_api
	@touch $(STAMP)
	@echo "Done: $(BIN)/origin is Origin's command."

## This list.
help:
	@awk '/^## /{doc=substr($$0,4); next} /^[a-z-]+:/{if(doc){split($$0,t,":"); printf "  make %-12s %s\n", t[1], doc}; doc=""}' $(MAKEFILE_LIST)

## Create .venv with Origin and its development tools.
venv: $(STAMP)

## Ingest this machine's agent logs (or generated samples when there are none) and serve them.
run: $(STAMP)
	$(BIN)/origin run

## Everything CI checks: format, lint, types, then the whole test suite.
check: fmt-check lint types test

## Reformat the code in place.
fmt: $(STAMP)
	$(BIN)/ruff format $(CODE)
	$(BIN)/ruff check --fix --select I $(CODE)

## Fail if any file is not formatted.
fmt-check: $(STAMP)
	$(BIN)/ruff format --check $(CODE)

## Lint (ruff).
lint: $(STAMP)
	$(BIN)/ruff check $(CODE)

## Type-check (mypy, strict).
types: $(STAMP)
	$(BIN)/mypy

## The suite (unit, property and end-to-end tests), but the slow multi-process ones, on two workers.
test: $(STAMP)
	$(BIN)/pytest -q -n 2 -m "not clients and not browser and not slow"

## The slow multi-process end-to-end tests (kills, real hubs and devices, origin run).
test-slow: $(STAMP)
	$(BIN)/pytest -q -m slow

## The fast suite only (no subprocess end-to-end tests).
test-fast: $(STAMP)
	$(BIN)/pytest -q -m "not e2e and not browser"

## Benchmarks at 1M events against SQLite FTS5 (BENCH_ARGS=--quick for 100k, --events N for any size).
bench: $(STAMP)
	$(BIN)/python -m bench $(BENCH_ARGS)

## Benchmarks at 100k events.
bench-quick: $(STAMP)
	$(BIN)/python -m bench --quick

## Remove the virtual environment and caches.
clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .clients

CLIENTS_NPM := @anthropic-ai/claude-code @openai/codex @modelcontextprotocol/inspector \
	@google/gemini-cli @qwen-code/qwen-code opencode-ai @github/copilot
.PHONY: test-clients

## Origin with the real Claude Code, Codex, Gemini, Qwen, OpenCode and Copilot CLIs and MCP Inspector (npm, into .clients/).
test-clients: $(STAMP)
	@command -v npm >/dev/null || { echo "make test-clients needs Node.js (npm)"; exit 2; }
	@echo "Installing $(CLIENTS_NPM) from npm into .clients/ (about 40 s; faster once cached)"
	npm install --prefix .clients --no-audit --no-fund --loglevel=error $(CLIENTS_NPM)
	$(BIN)/pytest -q -m clients tests/clients

.PHONY: test-ui

## The admin UI in headless Chromium (Playwright from PyPI; Debian's chromium, apt-get install chromium).
test-ui: $(STAMP)
	@test -x /usr/bin/chromium || { echo "make test-ui needs Debian's chromium: apt-get install -y chromium"; exit 2; }
	@$(BIN)/python -c "import playwright" 2>/dev/null || { echo "Installing Playwright (the browser extra) into $(VENV)"; \
		PYTHONWARNINGS="ignore:Compat editable installs" \
		$(BIN)/pip install --quiet -e '.[dev,browser]' --config-settings editable_mode=compat; }
	$(BIN)/pytest -q -m browser tests/ui
