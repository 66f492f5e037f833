# Everything a fresh machine needs goes through these targets (see README).
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

LOCK := requirements.lock

.PHONY: install lock demo test lint services services-stop bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

STAMP := $(VENV)/.installed-from-lock

# Reproducible: exact versions and hashes from the lock (pip shows each package and its
# download progress), then the project itself, editable, without touching those pins.
# Runs again only when the lock or pyproject.toml changed.
install: $(STAMP)

$(STAMP): $(LOCK) pyproject.toml | $(BIN)/python
	@echo "installing the locked dependencies from $(LOCK) (a fresh venv takes a few minutes)"
	$(BIN)/pip install --progress-bar on --require-hashes -r $(LOCK)
	$(BIN)/pip install -q --no-deps -e .
	$(BIN)/python -m compileall -q codegraph  # an editable install compiles nothing: every run would (~0.4 CPU s)
	$(BIN)/python scripts/lock_check.py
	@touch $(STAMP)

# Re-resolve the lock after changing dependencies in pyproject.toml (uv, from PyPI).
lock: $(BIN)/python
	$(BIN)/pip install -q uv
	$(BIN)/uv pip compile pyproject.toml --extra dev --universal --python-version 3.11 --generate-hashes \
	  -o $(LOCK) -q
	$(BIN)/python scripts/lock_check.py

# Main job for a newcomer: index real code that is on every machine, then open the dashboard.
demo: install
	bash scripts/demo.sh

# The whole suite, with the local Neo4j and Elasticsearch servers (CI runs exactly this).
test: install
	bash scripts/test.sh

lint: install
	$(BIN)/ruff check codegraph tests bench

services:
	bash scripts/services/up.sh

services-stop:
	bash scripts/services/down.sh

bench: install
	$(BIN)/python bench/bench_index.py
