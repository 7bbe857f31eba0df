# `make run` and `make test` work from a fresh clone: both create .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[dev,server]'
	touch $(STAMP)

# The main job: the HTTP API on the default database.
run: $(STAMP)
	$(BIN)/mnemotree init
	@echo
	@echo "Make an API key in another terminal:  $(BIN)/mnemotree keys create --scopes '*'"
	$(BIN)/mnemotree serve --host 127.0.0.1 --port 8765

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks clients
	$(BIN)/ruff format --check src tests benchmarks clients

typecheck: $(STAMP)
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_tree.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
