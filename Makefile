# Two commands: `make run` starts the whole gateway locally, `make test` runs every test.
# Both create the virtual environment they need on first use, from the lock (pip only).
#
# Dependencies (docs/dependencies.md): pyproject.toml says which versions are allowed, the
# lock layers/requirements-dev.txt says which are used, with hashes; the layer's and the
# session host image's requirements are its subsets, with the same pins.
#   make lock      re-lock after a change to pyproject.toml (keeps every pin it can)
#   make upgrade   move every pin to the newest version pyproject.toml allows
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
LOCK := layers/requirements-dev.txt
LAYER_REQUIREMENTS := layers/gateway/requirements.txt
IMAGE_REQUIREMENTS := session_host/requirements.txt
UV_VERSION := 0.13.8
UV := $(VENV)/bin/uv
# The platform Fargate runs (x86_64, glibc); every wheel's hash is kept, so the lock installs on
# other platforms too. The layer's subset is resolved for Lambda's python3.11 too, on Amazon
# Linux 2 (glibc 2.26), wheels only (the layer installs no sdist): a package without a
# manylinux2014 wheel fails `make lock`, not `sam build`.
LOCK_FLAGS := --quiet --generate-hashes --python-version 3.11 --python-platform x86_64-manylinux_2_28 \
	--custom-compile-command "make lock"
LAYER_LOCK_FLAGS := $(subst x86_64-manylinux_2_28,x86_64-manylinux_2_17,$(LOCK_FLAGS)) --no-build

.PHONY: run receiver test lint format openapi screenshots bench clean lock upgrade

$(STAMP): pyproject.toml layers/local_stack/pyproject.toml $(LOCK)
	@echo "Setting up $(VENV): installing the locked dependencies (~110 packages; 1-2 minutes the first time)"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --require-hashes --progress-bar on -r $(LOCK)
	@echo "Installing the project and the local runner in editable mode"
	@# setuptools warns that the top-level session_host/ folder has the package's name; it has no
	@# __init__.py, so from the repository root it only lends its name to the installed package.
	PYTHONWARNINGS="ignore:Editable installation" \
		$(PY) -m pip install --quiet --no-deps --no-build-isolation -e . -e layers/local_stack
	touch $(STAMP)

run: $(STAMP)
	$(PY) -m local_stack

# A loopback webhook receiver on port 9000 that prints every delivery and checks its signatures
# with the README's secret; more options through ARGS, e.g. `make receiver ARGS="--port 9001"`.
receiver: $(STAMP)
	$(PY) -m local_stack.receiver --secret local-webhook-s3cret $(ARGS)

# Three workers, each with its own local stack (ports and names are per process). The suite
# mostly waits (webhook retries, leases, held sends: about 45 % of two cores at two workers),
# so a third worker on CI's two cores takes it from about 11 to about 6.5 minutes.
# TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= 3

# The console's browser tests (tests/browser) drive Debian's chromium, installed here when it
# is missing (apt-get, through sudo unless root). CHROMIUM=/path/to/chromium uses another
# Chromium and installs nothing.
BROWSER_PREREQUISITE := $(if $(CHROMIUM),,/usr/bin/chromium)
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)

# The deploy rehearsal (tests/deploy_rehearsal, docs/deploy-rehearsal.md) judges the suite's AWS
# calls with an IAM policy evaluator from npm, installed from its lock (`npm ci`); node and npm
# are Debian's, installed here when npm is missing (apt-get, as for chromium).
IAM_EVALUATOR_DIR := tests/deploy_rehearsal/iam
IAM_EVALUATOR := $(IAM_EVALUATOR_DIR)/node_modules/.package-lock.json
NPM_PREREQUISITE := $(if $(shell command -v npm),,/usr/bin/npm)

# (Defined before the rules that name it: make expands a rule's prerequisites as it reads it.)
test: $(STAMP) $(BROWSER_PREREQUISITE) $(IAM_EVALUATOR)
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(PY) -m pytest -n $(TEST_WORKERS)

/usr/bin/chromium:
	@echo "Installing Debian's chromium for the browser tests (tests/browser)"
	$(SUDO) apt-get update
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium

$(IAM_EVALUATOR): $(IAM_EVALUATOR_DIR)/package-lock.json $(NPM_PREREQUISITE)
	npm ci --prefix $(IAM_EVALUATOR_DIR) --no-audit --no-fund

/usr/bin/npm:
	@echo "Installing Debian's nodejs and npm for the deploy rehearsal (tests/deploy_rehearsal)"
	$(SUDO) apt-get update
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y nodejs npm

# mypy checks what pyproject.toml's [tool.mypy] names, strictly; its cache (.mypy_cache) makes
# a run after a small change take seconds.
lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m mypy
	$(VENV)/bin/cfn-lint template.yaml

format: $(STAMP)
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

openapi: $(STAMP)
	$(PY) -m local_stack.openapi

# The console's pictures in docs/console/ (docs/console.md), taken in the tests' browser.
screenshots: $(STAMP) $(BROWSER_PREREQUISITE)
	$(PY) -m local_stack.screenshots docs/console

bench: $(STAMP)
	$(PY) -m bench

# The complete lock first, then the two subsets resolved with it as constraints, so they
# cannot pin anything differently (tests/artifacts/test_locks.py checks it without network).
lock: $(UV)
	$(UV) pip compile pyproject.toml --extra dev --extra session-host $(LOCK_FLAGS) $(UPGRADE) -o $(LOCK)
	$(UV) pip compile pyproject.toml -c $(LOCK) $(LAYER_LOCK_FLAGS) -o $(LAYER_REQUIREMENTS)
	$(UV) pip compile pyproject.toml --extra session-host -c $(LOCK) $(LOCK_FLAGS) -o $(IMAGE_REQUIREMENTS)
	@echo "Locked. Run 'make test' (it reinstalls $(VENV) from the new lock) and commit the three files."

upgrade: UPGRADE := --upgrade
upgrade: lock

# uv only resolves; installing stays pip's, so `make run`/`make test` and CI never need it.
$(UV):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet "uv==$(UV_VERSION)"

clean:
	rm -rf $(VENV) .aws-sam .pytest_cache .ruff_cache .mypy_cache $(IAM_EVALUATOR_DIR)/node_modules
