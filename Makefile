# Basilisk: `make run` starts the UCI engine, `make test` runs the tests.
# Both create .venv and install what they need on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: run test test-slow bench bench-perft bench-search perft-suite install-opponents clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	@$(VENV)/bin/basilisk

test: $(STAMP)
	$(PY) -m pytest -q

test-slow: $(STAMP)
	$(PY) -m pytest -q -m slow

bench-perft: $(STAMP)
	$(PY) scripts/bench_perft.py

bench-search: $(STAMP)
	$(PY) scripts/bench_search.py

bench: bench-perft bench-search

perft-suite: $(STAMP)
	$(PY) scripts/perft.py

install-opponents:
	bash scripts/install_opponents.sh

clean:
	rm -rf $(VENV) *.egg-info .pytest_cache
