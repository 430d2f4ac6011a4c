# Cardroom: `make test` and `make demo` are the two commands a newcomer needs.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# `make demo HEADLESS=1`: no server; play one small competition, print it, exit.
HEADLESS ?=

.PHONY: test test-fast lint bench install clean demo sandbox-libs

$(PY):
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

## The bot sandbox's seccomp filter needs Debian's libseccomp2 (installed here as root).
sandbox-libs:
	@$(PYTHON) -c "import ctypes.util, sys; sys.exit(not ctypes.util.find_library('seccomp'))" \
	  || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null \
	       && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libseccomp2; } \
	  || echo "warning: libseccomp2 is missing, so bots cannot be sandboxed" >&2

install: $(STAMP) sandbox-libs

## Lint, then the whole suite (slow tests included).
test: $(STAMP) sandbox-libs
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
demo: $(STAMP) sandbox-libs
	$(PY) manage.py migrate --noinput --verbosity 0
	$(PY) manage.py demo $(if $(filter-out 0,$(HEADLESS)),--headless,)

## Engine benchmark; `make bench ARGS=--json`. Installs the optional OpenSpiel baseline.
bench: $(STAMP)
	$(PY) -m pip install --quiet -e '.[test,bench]'
	$(PY) -m bench.engines $(ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
