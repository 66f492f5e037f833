# Everything a fresh machine needs goes through these targets (see README).
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: install demo test lint services services-stop bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

install: $(BIN)/python
	$(BIN)/pip install -q -e '.[dev]'

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
