# Cardroom: `make test` and `make demo` are the two commands a newcomer needs.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# `make demo HEADLESS=1`: no server; play one small competition, print it, exit.
HEADLESS ?=
# `make demo PORT=8001 HOST=0.0.0.0`: where the demo's web server listens.
PORT ?= 8000
HOST ?= 127.0.0.1
ifeq ($(origin HOST),environment)
HOST := 127.0.0.1
endif
# `make demo PACE=0`: seconds between two matches the demo's worker starts (0: flat out).
PACE ?=

.PHONY: test test-fast lint bench install clean demo host-packages-demo host-packages-test

$(PY):
	$(PYTHON) -m venv $(VENV)

## The engines' optional compiled build (build_engines.py: mypyc into build/native/) is made
## here too, again when an engine source changes; a failed build leaves the pure source.
## Sandboxed bots get it as well (for Debian's python3: build/native-sandbox/ if its ABI differs).
$(STAMP): pyproject.toml build_engines.py $(wildcard games/*.py games/*/*.py) | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,rl]'
	@$(PY) -m pip install --quiet -e '.[native]' >/dev/null 2>&1 \
	  || echo "engines: mypy (the '.[native]' extra) is not installable here"
	$(PY) build_engines.py
	touch $(STAMP)

## The Debian packages each command needs (deploy/host-packages.sh): installed when run
## as root with apt-get, else the command stops with the one `apt-get install` to run.
host-packages-demo host-packages-test:
	@VENV=$(VENV) PYTHON=$(PYTHON) bash deploy/host-packages.sh $(subst host-packages-,,$@)

install: host-packages-demo $(STAMP)

## Lint, then the whole suite (slow tests included) on every core: pytest-xdist workers,
## each with its own databases (tests/xdist_env.py); then the tests marked `serial` (they
## time things or share the host's cgroups) alone. The 20 slowest are printed. Without
## DATABASE_URL / REDIS_URL a private PostgreSQL and Redis are started for the run
## (tests/services.py), so none skips. Two pytest-xdist workers per core: many tests wait
## on the processes they start (workers, servers, a browser, bots), and one per core left
## the cores idle half the run; at most 6 (tests/xdist_env.py: Redis databases of their
## own). `make test TEST_WORKERS=1` runs in one process.
TEST_WORKERS ?= $(shell n=$$(( 2 * $$(nproc 2>/dev/null || echo 1) )); echo $$(( n < 6 ? n : 6 )))
PYTEST_PARALLEL := $(PY) -m pytest -n $(TEST_WORKERS) -m "not serial" --durations=20
PYTEST_SERIAL := $(PY) -m pytest -m serial --durations=5
test: host-packages-test $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(VENV)/bin/lint-imports --no-cache
	$(PY) -m tests.services run -- sh -c '$(PYTEST_PARALLEL) && $(PYTEST_SERIAL)'

## The suite without tests marked slow, for the edit-test loop.
test-fast: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m tests.services run -- sh -c '$(PY) -m pytest -n $(TEST_WORKERS) \
	  -m "not slow and not serial" && $(PY) -m pytest -m "serial and not slow"'

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(VENV)/bin/lint-imports --no-cache

## The whole platform on embedded defaults (SQLite in var/, an embedded Redis, a worker,
## the ASGI server on http://$(HOST):$(PORT)/); Ctrl-C stops it all.
demo: host-packages-demo $(STAMP)
	$(PY) manage.py migrate --noinput --verbosity 0
	$(PY) manage.py demo $(if $(filter-out 0,$(HEADLESS)),--headless,) \
	  --host $(HOST) --port $(PORT) $(if $(PACE),--pace $(PACE),)

## Engine benchmark; `make bench ARGS=--json`. Installs the optional OpenSpiel baseline.
bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,bench]'
	$(PY) -m bench.engines $(ARGS)

## The deployment, run for real (deploy/deploy-check.sh, deploy/README.md): a Debian base
## image from the mirror, the project's image on it, podman-compose up, a competition
## through the API on two worker containers, teardown. Root, with podman, podman-compose
## and mmdebstrap; not part of `make test`.
.PHONY: deploy-check
deploy-check:
	sh deploy/deploy-check.sh

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis .mypy_cache build/native build/native.log \
	  build/native-sandbox build/native-sandbox.log
