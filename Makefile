# Cardroom: `make test` and `make demo` are the two commands a newcomer needs.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# `make demo HEADLESS=1`: no server; play one small competition, print it, exit.
HEADLESS ?=

.PHONY: test test-fast lint bench install clean demo

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

## Lint, then the whole suite (slow tests included).
test: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pytest

## The suite without tests marked slow, for the edit-test loop.
test-fast: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m pytest -m "not slow"

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

## The whole platform on embedded defaults (SQLite in var/, an embedded Redis, a worker,
## the ASGI server on http://127.0.0.1:8000/); Ctrl-C stops it all.
demo: $(STAMP)
	$(PY) manage.py migrate --noinput --verbosity 0
	$(PY) manage.py demo $(if $(filter-out 0,$(HEADLESS)),--headless,)

## Engine benchmark; `make bench ARGS=--json`. Installs the optional OpenSpiel baseline.
bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,bench]'
	$(PY) -m bench.engines $(ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
