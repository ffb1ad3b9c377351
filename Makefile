# The two commands a new user needs: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SEED := seeds/000_173d26dda2e0601e.txt
HOST ?= 127.0.0.1:8000

.PHONY: run serve worker test coverage test-fast lock mutation lint format docs clean bench-export bench-serve bench-load bench-edge bench-jobs bench-render bench-import bench-stats bench bench-map map-quality bench-search bench-api bench-api-pages bench-decisions bench-people bench-sources bench-related bench-attack bench-topic bench-layers

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

PIP = $(BIN)/pip --disable-pip-version-check

# Installs come from the lock files, which pin every package, transitive ones
# too; requirements*.txt list what the project asks for (see `make lock`).
$(VENV)/.installed: requirements.lock | $(BIN)/python
	$(PIP) install --quiet -r requirements.lock
	touch $@

$(VENV)/.installed-dev: requirements.lock requirements-dev.lock | $(BIN)/python
	$(PIP) install --quiet -r requirements-dev.lock
	touch $@ $(VENV)/.installed

## run: install, migrate, import the seed page once, serve on SQLite at http://$(HOST)/
## (another port: `make run HOST=127.0.0.1:8001`), the site's addresses (SITE_URL)
## under http://$(HOST) unless SITE_URL is given; with DEBUG=0 the static files are
## collected first, as a server without DEBUG serves only collected ones
# The origin a bind address is reached at: runserver takes a port alone too.
site_origin = http://$(if $(findstring :,$(1)),$(1),127.0.0.1:$(1))
RUN_ENV = DEBUG=$${DEBUG:-1} SITE_URL=$${SITE_URL:-$(call site_origin,$(HOST))}
run: $(VENV)/.installed
	$(RUN_ENV) $(BIN)/python manage.py migrate --no-input
	if [ "$${DEBUG:-1}" = 0 ]; then \
		$(RUN_ENV) $(BIN)/python manage.py collectstatic --no-input --verbosity 0; \
	fi
	$(RUN_ENV) $(BIN)/python manage.py import_index --if-empty $(SEED)
	$(RUN_ENV) $(BIN)/python manage.py runserver $(HOST)

## serve: production-shaped: gunicorn with $$WEB_CONCURRENCY workers, WhiteNoise,
## DEBUG off, persistent connections; the shared cache from $$REDIS_URL;
## $$JOBS_WORKERS background-job workers (default 1) and $$JOBS_RELATED_WORKERS
## for related work (default 1) beside the web processes, each started again
## when it exits (`manage.py run_workers`);
## SITE_URL http://$(SERVE_BIND) unless given (give it the public address);
## a health listener of its own on $$HEALTH_BIND answering /health/ alone, which the
## proxy's probe asks, so no page render ever delays the probe's answer.
## Put a buffering proxy in front (deploy/varnish/): sync workers wait on slow clients.
SERVE_BIND ?= 127.0.0.1:8000
HEALTH_BIND ?= 127.0.0.1:8001
WORKER_COUNTS = --workers $${JOBS_WORKERS:-1} --related-workers $${JOBS_RELATED_WORKERS:-1}
SERVE_ENV = DEBUG=0 CONN_MAX_AGE=$${CONN_MAX_AGE:-60} \
	SITE_URL=$${SITE_URL:-$(call site_origin,$(SERVE_BIND))}
serve: $(VENV)/.installed
	$(SERVE_ENV) $(BIN)/python manage.py collectstatic --no-input --verbosity 0
	$(SERVE_ENV) $(BIN)/python manage.py migrate --no-input
	$(SERVE_ENV) $(BIN)/python manage.py check --deploy --tag pagecache
	$(SERVE_ENV) $(BIN)/python manage.py expire_pages
	$(SERVE_ENV) $(BIN)/python manage.py run_workers $(WORKER_COUNTS) & \
	workers=$$!; \
	$(SERVE_ENV) $(BIN)/gunicorn anthology.health_wsgi --bind $(HEALTH_BIND) \
		--workers 1 --threads 4 & \
	workers="$$workers $$!"; \
	trap 'kill $$workers 2>/dev/null; wait' EXIT INT TERM; \
	$(SERVE_ENV) $(BIN)/gunicorn anthology.wsgi --bind $(SERVE_BIND) \
		--workers $${WEB_CONCURRENCY:-2} --access-logfile -

## worker: the background-job workers alone, supervised as under `make serve`
## (for machines that run no web process)
worker: $(VENV)/.installed
	$(SERVE_ENV) exec $(BIN)/python manage.py run_workers $(WORKER_COUNTS)

# The clients from npm some tests read answers with (package.json: citeproc-js,
# jsdom, the current Nu checker), pinned by package-lock.json; installed where
# npm is (tests needing them are skipped elsewhere, failed under CI).
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	touch $@
NODE_CLIENTS := $(if $(shell command -v npm),node_modules/.installed)

## test: the full test suite (on DATABASE_URL's database, SQLite by default), in
## TEST_WORKERS processes (pytest-xdist), each with its own test database; what
## CI runs, on both databases. A worker that runs out of tests takes queued ones
## from the other (worksteal): the browser journeys and the worker tests take
## seconds each, the rest less.
TEST_WORKERS ?= 2
COVERAGE ?=
test: $(VENV)/.installed-dev $(NODE_CLIENTS)
	$(BIN)/pytest -n $(TEST_WORKERS) --dist worksteal $(COVERAGE)

## coverage: the full test suite with the coverage of the project's code, by
## file (about two and a half times as long as `make test`, so not in CI)
coverage: $(VENV)/.installed-dev
	$(MAKE) test COVERAGE="--cov --cov-report=term"

## test-fast: the tests that need neither Chromium, Redis, varnishd nor worker
## processes of their own (pytest markers, see pyproject.toml)
FAST_TESTS = not browser and not redis and not varnish and not workers
test-fast: $(VENV)/.installed-dev $(NODE_CLIENTS)
	$(BIN)/pytest -n $(TEST_WORKERS) --dist worksteal -m "$(FAST_TESTS)"

## lock: compile requirements.lock and requirements-dev.lock (every package,
## transitive ones too) from requirements.txt and requirements-dev.txt; run it
## after changing either. Versions already locked are kept where they still fit.
PIP_COMPILE = $(BIN)/pip-compile --quiet --strip-extras --no-allow-unsafe \
	--no-emit-index-url --no-emit-find-links
lock: | $(BIN)/python
	$(PIP) install --quiet "$$(grep '^pip-tools==' requirements-dev.txt)"
	$(PIP_COMPILE) --output-file requirements.lock requirements.txt
	$(PIP_COMPILE) --constraint requirements.lock --output-file requirements-dev.lock \
		requirements-dev.txt

## mutation: mutants of catalogue/identifiers.py, catalogue/numbering.py,
## actions/batch.py (the batch writer) and public/diffs.py, each run against the tests that cover
## it (pyproject.toml [tool.mutmut]); prints the survivors. One mutant at a time:
## the runs share one SQLite test database (--reuse-db).
mutation: $(VENV)/.installed-dev
	rm -rf mutants
	$(BIN)/mutmut run --max-children 1
	$(BIN)/mutmut results

## lint: what CI checks besides the tests
lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

## format: format and fix what ruff can
format: $(VENV)/.installed-dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

## docs: the documentation in docs/ (one folder an audience) built as HTML into
## docs/_build/html, every warning an error; the settings and commands reference
## are generated from the code at each build. It reads nothing from the network.
docs: $(VENV)/.installed-dev
	$(BIN)/sphinx-build -W --keep-going -n -q -b html docs docs/_build/html

## bench: every benchmark at a small size (bench/guard.py, within 15 minutes on
## PostgreSQL), each ratio against the last recorded in bench/results/guard.json,
## what moved past its noise band printed; `make bench RECORD=1` runs each
## BENCH_RUNS times (default 3) and records their medians and spread as the new
## figures and noise bands; BENCH_ONLY=export,render picks benchmarks. CI does not
## run it: run it before finishing work that touches a measured path, and read it
RECORD ?=
BENCH_RUNS ?= 3
BENCH_ONLY ?=
bench: $(VENV)/.installed-dev
	$(BIN)/python bench/guard.py $(if $(RECORD),--record --runs $(BENCH_RUNS)) \
		$(if $(BENCH_ONLY),--only $(BENCH_ONLY))

## bench-export: the export/import benchmark on PostgreSQL (bench/results/export.md)
BENCH_DOCUMENTS ?= 100000
bench-export: $(VENV)/.installed-dev
	$(BIN)/python bench/export_bench.py --documents $(BENCH_DOCUMENTS)

## bench-layers: each layer of the page cache turned off in turn, with and without
## Varnish in front (bench/results/cache-layers.md)
BENCH_LAYERS_DOCUMENTS ?= 20000
bench-layers: $(VENV)/.installed-dev
	$(BIN)/python bench/cache_layers_bench.py --documents $(BENCH_LAYERS_DOCUMENTS)

## bench-serve: the serving benchmark on PostgreSQL and Redis (bench/results/serving.md)
bench-serve: $(VENV)/.installed-dev
	$(BIN)/python bench/serve_bench.py --documents $(BENCH_DOCUMENTS)

## bench-search: search (PostgreSQL and SQLite) and a 1,000-row topic page rendered
## live, through gunicorn, as ratios to baselines of the same run
## (bench/results/search-render.md); BENCH_JSON=path also writes the ratios;
## BENCH_SEARCH_TEMPLATE=db copies a filled database rather than generating one
BENCH_JSON ?=
BENCH_SEARCH_TEMPLATE ?=
bench-search: $(VENV)/.installed-dev
	$(BIN)/python bench/search_render_bench.py --documents $(BENCH_DOCUMENTS) \
		$(if $(BENCH_JSON),--json $(BENCH_JSON)) \
		$(if $(BENCH_SEARCH_TEMPLATE),--template $(BENCH_SEARCH_TEMPLATE))

## bench-topic: the 1,000-row topic page uncached: worker CPU and database time a
## page, and requests a second through gunicorn, as ratios to baselines of the
## same run (bench/results/topic-page.md)
bench-topic: $(VENV)/.installed-dev
	$(BIN)/python bench/topic_page_bench.py --documents $(BENCH_DOCUMENTS) \
		$(if $(BENCH_JSON),--json $(BENCH_JSON))

## bench-load: 64 clients, PostgreSQL restarted, Redis stopped, citation downloads
## under load, cache flooding, slow clients with and without Varnish in front,
## a reader through Varnish beside a hostile decision body, dripping metadata
## lookups and a silent Redis (bench/results/load.md); LOAD_PHASES picks phases
LOAD_PHASES ?= steady,postgresql,redis,downloads,flood,slow,hostile
bench-load: $(VENV)/.installed-dev
	$(BIN)/python bench/load_faults.py --phases $(LOAD_PHASES)

## bench-render: a decision body rendered per request against stored (bench/results/render.md)
bench-render: $(VENV)/.installed-dev
	$(BIN)/python bench/render_bench.py

## bench-stats: the statistics page rendered uncached at BENCH_DOCUMENTS documents
## against its own SQL sent through psycopg (bench/results/stats.md)
bench-stats: $(VENV)/.installed-dev
	$(BIN)/python bench/stats_bench.py --documents $(BENCH_DOCUMENTS)

## bench-people: linking every author of BENCH_DOCUMENTS sample documents to people,
## from nothing and again, against reading the author lists alone (bench/results/people.md)
bench-people: $(VENV)/.installed-dev
	$(BIN)/python bench/people_bench.py --documents $(BENCH_DOCUMENTS)

## bench-map: related work and candidate topics at BENCH_DOCUMENTS (100,000) sample
## documents, against reading the same texts by raw SQL (bench/results/map.md)
bench-map: $(VENV)/.installed-dev
	$(BIN)/python bench/map_bench.py --documents $(BENCH_DOCUMENTS)

## map-quality: the quality of related work and candidate topics on the seed page and a
## generated set with known groups (reads no database)
map-quality: $(VENV)/.installed-dev
	$(BIN)/python manage.py map_quality
## bench-related: a withdrawal and a topic renamed under JOBS_IN_PROCESS with their
## related work inline (as it was) against after, in a thread, and the jobs 200
## changes make, at BENCH_RELATED_DOCUMENTS (3,000) documents (bench/results/related-jobs.md)
BENCH_RELATED_DOCUMENTS ?= 3000
bench-related: $(VENV)/.installed-dev
	$(BIN)/python bench/related_jobs_bench.py --documents $(BENCH_RELATED_DOCUMENTS)

## bench-api: the API's list pages walked by cursor and a whole OAI-PMH harvest at
## BENCH_DOCUMENTS documents, each against COPY of the same rows
## (bench/results/api.md, bench/results/oai.md)
bench-api: $(VENV)/.installed-dev
	$(BIN)/python bench/api_bench.py --documents $(BENCH_DOCUMENTS)
	$(BIN)/python bench/oai_bench.py --documents $(BENCH_DOCUMENTS) --json bench/results/oai.json

## bench-api-pages: one uncached API page at 100 to 1,000 rows (time and bytes), the
## cap (API_MAX_PAGE_SIZE) against 1,000, and the sitemap's index and first section,
## at 20,000 sample documents (bench/results/api-pages.md)
bench-api-pages: $(VENV)/.installed-dev
	$(BIN)/python bench/api_pages_bench.py --documents 20000

## bench-decisions: every sub-directory of CORPUS_DIR (a local corpus of teams' decision
## folders) imported as its own log into an empty SQLite record, a row per folder of what
## it gave and lost (bench/decision_corpus.py); CI does not run it
bench-decisions: $(VENV)/.installed-dev
	$(BIN)/python bench/decision_corpus.py $(CORPUS_DIR)

## bench-edge: Varnish in front of `make serve`, purged on publication (bench/results/edge.md)
bench-edge: $(VENV)/.installed-dev
	$(BIN)/python bench/edge_bench.py --documents $(BENCH_DOCUMENTS)

## bench-jobs: a BENCH_ROWS-row CSV imported through the admin as jobs, a worker
## killed midway, against the synchronous import (bench/results/jobs.md);
## BENCH_JOBS_BASELINE=<commit> also imports it with that commit's code
BENCH_ROWS ?= 100000
BENCH_JOBS_BASELINE ?=
bench-jobs: $(VENV)/.installed-dev
	$(BIN)/python bench/jobs_bench.py --rows $(BENCH_ROWS) \
		$(if $(BENCH_JOBS_BASELINE),--baseline $(BENCH_JOBS_BASELINE))

## bench-sources: check_sources over BENCH_DOCUMENTS documents against in-process fakes,
## the pacing clock virtual: requests per service, arXiv's pace, peak memory at
## 10,000 against all (bench/results/check-sources.md)
bench-sources: $(VENV)/.installed-dev
	$(BIN)/python bench/check_sources_bench.py --documents $(BENCH_DOCUMENTS)

## bench-attack: ATTACKERS (6) clients sending fresh nonsense searches through varnishd
## against a reader's uncached pages at ATTACK_DOCUMENTS (20,000) sample documents, with
## the readers' limits and without: the reader's p50 quiet and under attack, their
## ratio, and the health probe's answers (bench/results/attack.md)
ATTACK_DOCUMENTS ?= 20000
ATTACKERS ?= 6
bench-attack: $(VENV)/.installed-dev
	$(BIN)/python bench/attack_bench.py --documents $(ATTACK_DOCUMENTS) \
		--attackers $(ATTACKERS)

## bench-import: import_index and the CSV import of BENCH_DOCUMENTS rows against COPY
## of the same rows, and reads right after against settled; 5,000 rows (and a decision
## folder) into a BENCH_DOCUMENTS-document record against into an empty one and against
## COPY (bench/results/import.md)
bench-import: $(VENV)/.installed-dev
	$(BIN)/python bench/import_bench.py --documents $(BENCH_DOCUMENTS)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis .coverage htmlcov mutants
