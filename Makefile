# SPDX-License-Identifier: BSD-3-Clause
# Two commands set up and check a fresh clone: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip --disable-pip-version-check -q

.PHONY: run test lint bench clean install install-test

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(PIP) install -e '.[service]'
	touch $@

$(VENV)/.installed-test: pyproject.toml $(VENV)/.installed
	$(PIP) install -e '.[test,service,postgres,dask]'
	touch $@

install: $(VENV)/.installed
install-test: $(VENV)/.installed-test

## Train a private classifier on the embedded breast-cancer data.
run: $(VENV)/.installed
	$(BIN)/dpsvm demo

## Install the test extras and run the whole suite (lint and types first).
test: $(VENV)/.installed-test
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2 $(PYTEST_ARGS)

bench: $(VENV)/.installed-test
	$(BIN)/python benchmarks/bench_linear.py

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache .mypy_cache .ruff_cache
