# The two commands a new user needs: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SEED := seeds/000_173d26dda2e0601e.txt
HOST ?= 127.0.0.1:8000

.PHONY: run test lint format migrate clean bench-export bench-load

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@ $(VENV)/.installed

## run: install, migrate, import the seed page once, serve on SQLite at http://$(HOST)/
run: $(VENV)/.installed
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py migrate --no-input
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py import_index --if-empty $(SEED)
	DEBUG=$${DEBUG:-1} $(BIN)/python manage.py runserver $(HOST)

## test: the full test suite (on DATABASE_URL's database, SQLite by default)
test: $(VENV)/.installed-dev
	$(BIN)/pytest

## lint: what CI checks besides the tests
lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

## format: format and fix what ruff can
format: $(VENV)/.installed-dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

## bench-export: the export/import benchmark on PostgreSQL (bench/results/export.md)
BENCH_DOCUMENTS ?= 100000
bench-export: $(VENV)/.installed-dev
	$(BIN)/python bench/export_bench.py --documents $(BENCH_DOCUMENTS)

## bench-load: 64 clients, PostgreSQL restarted, Redis stopped (bench/results/load.md)
bench-load: $(VENV)/.installed-dev
	$(BIN)/python bench/load_faults.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
