# Quick start: `make demo` launches the app on the bundled demo session; `make test` runs the tests.
# `make demo` installs the runtime dependencies only; `make test` (and `make install`) add the
# test and lint tools. Both install into .venv, editable.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
RUNTIME := $(VENV)/.installed-runtime
STAMP := $(VENV)/.installed

.PHONY: install demo run test lint typecheck check bench assets docs clean

$(RUNTIME): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e .
	touch $(RUNTIME)

$(STAMP): $(RUNTIME)
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# Byte-compile first: an editable install leaves no .pyc, and a shell with
# PYTHONDONTWRITEBYTECODE set would compile every module on every start (~0.1 s of a
# 0.3 s first paint). An installed wheel (pipx, uv tool) is compiled by the installer.
demo: $(RUNTIME)
	$(BIN)/python -m compileall -q foley_tui >/dev/null; $(BIN)/foley-tui demo

run: $(RUNTIME)
	$(BIN)/python -m compileall -q foley_tui >/dev/null; $(BIN)/foley-tui

lint: $(STAMP)
	$(BIN)/ruff check foley_tui tests
	$(BIN)/ruff format --check foley_tui tests
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy

test: $(STAMP)
	$(BIN)/ruff check foley_tui tests
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python -m pytest -q -n 2

bench: $(STAMP)
	$(BIN)/python tests/bench/run_all.py

# docs/keys.md and docs/cli.md are written from the key table and the argument parser;
# tests/unit/test_generated_docs.py fails when they drift.
docs: $(RUNTIME)
	$(BIN)/python -m foley_tui.keys.reference docs/keys.md
	$(BIN)/python -m foley_tui.cli.reference docs/cli.md

assets: $(STAMP)
	$(BIN)/python assets/generate_demo.py

clean:
	rm -rf $(VENV) snapshot_report.html
