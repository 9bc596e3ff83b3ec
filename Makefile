# Basilisk: `make run` starts the UCI engine, `make test` runs the tests.
# Both create .venv and install what they need on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
PYPY ?= pypy3
PYPY_VENV := .venv-pypy
PYPY_STAMP := $(PYPY_VENV)/.installed-stamp

.PHONY: run test test-pypy test-slow bench bench-perft bench-search bench-compare bench-instructions bench-memory perft-suite fuzz install-opponents clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

run: $(STAMP)
	@$(VENV)/bin/basilisk

test: $(STAMP)
	$(PY) -m pytest -q

# The default suite under PyPy (Debian's pypy3, Python 3.9), in a venv of its own.
$(PYPY_STAMP): pyproject.toml
	@command -v $(PYPY) >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pypy3 >/dev/null; \
	  else echo "$(PYPY) not found: install Debian's pypy3 (apt-get install pypy3)"; exit 1; fi; }
	$(PYPY) -m venv $(PYPY_VENV)
	$(PYPY_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(PYPY_STAMP)

test-pypy: $(PYPY_STAMP)
	$(PYPY_VENV)/bin/python -m pytest -q

test-slow: $(STAMP)
	$(PY) -m pytest -q -m slow --timeout 7200

bench-perft: $(STAMP)
	$(PY) scripts/bench_perft.py

bench-search: $(STAMP)
	$(PY) scripts/bench_search.py

# HEAD against the working tree, interleaved; see scripts/bench_compare.py --help for more
bench-compare: $(STAMP)
	$(PY) scripts/bench_compare.py

# the same two sides in instructions a node (callgrind: steady under load; needs valgrind)
bench-instructions: $(STAMP)
	$(PY) scripts/bench_instructions.py

bench-memory: $(STAMP)
	$(PY) scripts/bench_memory.py

bench: bench-perft bench-search

perft-suite: $(STAMP)
	$(PY) scripts/perft.py

# random UCI command streams, each round a fresh engine process (scripts/uci_fuzz.py)
fuzz: $(STAMP)
	$(PY) scripts/uci_fuzz.py $(FUZZ_ARGS)

install-opponents:
	bash scripts/install_opponents.sh

clean:
	rm -rf $(VENV) $(PYPY_VENV) *.egg-info .pytest_cache
