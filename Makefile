# Two commands: `make run` starts the whole gateway locally, `make test` runs every test.
# Both create the virtual environment they need on first use.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint format openapi bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e ".[dev,session-host]" -e layers/local_stack
	touch $(STAMP)

run: $(STAMP)
	$(PY) -m local_stack

test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m pytest

lint: $(STAMP)
	$(PY) -m ruff check .
	$(VENV)/bin/cfn-lint template.yaml

format: $(STAMP)
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

openapi: $(STAMP)
	$(PY) -m local_stack.openapi docs/openapi.json

bench: $(STAMP)
	$(PY) -m bench.coldstart

clean:
	rm -rf $(VENV) .aws-sam .pytest_cache .ruff_cache
