# One-command setup: `make run` serves the app, `make test` runs every test.
# Both work on a fresh machine that has only Python 3.11 and root: they build
# the virtual environment, install the locked packages, fetch the pinned
# plotly.js bundle with npm and, for the tests, the Debian packages the tests
# drive (Chromium, PostgreSQL, gettext).

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
UV := $(VENV)/bin/uv
STAMP := $(VENV)/.installed
# plotly.js with the trace types the pages draw (scatter, bar, heatmap, contour), bundled by
# esbuild from frontend/plotly-charts.js: plotly.js and esbuild are pinned in package.json /
# package-lock.json (npm ci checks the lock's sha512), and the line below checks the bundle
# itself, so a changed build never slips in unnoticed.
PLOTLY_PACKAGE := node_modules/plotly.js
PLOTLY_ENTRY := frontend/plotly-charts.js
PLOTLY_JS := static/vendor/plotly/plotly-charts.min.js
PLOTLY_JS_SHA256 := aa4a26a57c17efacef5d8d6a7bd979d0b8b9f2cdf14a300853bcadd330667535
# plotly's own Simplified Chinese (toolbar, date and number formats), pinned the same way;
# the package is CommonJS, so node writes it out as the browser's Plotly.register(...) call.
PLOTLY_LOCALES := node_modules/plotly.js-locales
PLOTLY_LOCALE_ZH := static/vendor/plotly/plotly-locale-zh-cn.js
PLOTLY_LOCALE_ZH_SHA256 := 78051d4c8cddc682a8ae1674d3c6a2b138dc61fe725adf12fa2759dd131f8387
HOST ?= 127.0.0.1
PORT ?= 8000
DEV_ENV := DJANGO_DEBUG=true
# Bytecode cached under .venv/pycache even where PYTHONDONTWRITEBYTECODE is set (as in many
# container images), and nothing written beside the sources: without it every process the
# tests start (the pytest workers of both passes, each server, worker and command they run)
# compiles Django, numpy, hypothesis and schemathesis from source again, about half of
# collection's CPU time (20 s -> 10 s per process).
TEST_ENV := DJANGO_SECRET_KEY=test-only-not-secret DJANGO_STATIC_MANIFEST=false \
  PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(CURDIR)/$(VENV)/pycache
DEBIAN_TEST_PACKAGES := chromium chromium-headless-shell gettext postgresql wrk libreoffice-calc-nogui poppler-utils nginx-light

.PHONY: run test serve install lint messages fixtures debian-test-deps debian-node bench bench-browser bench-scale lock clean

install: $(STAMP) $(PLOTLY_JS) messages

$(STAMP): requirements.lock
	@echo "==> Python packages: creating $(VENV) and installing requirements.lock (1-3 minutes the first time)"
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check uv
	$(UV) pip sync --python $(PY) requirements.lock
	touch $@

$(PLOTLY_JS): package.json package-lock.json $(PLOTLY_ENTRY)
	@echo "==> plotly.js: fetching the pinned sources with npm and bundling the pages' trace types (a minute)"
	command -v npm >/dev/null || $(MAKE) --no-print-directory debian-node
	npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	rm -rf $(dir $@)
	mkdir -p $(dir $@)
	# plotly's own build settings (its esbuild-config.js), less the plugins for the WebGL and
	# map traces left out; the maplibre stylesheet its registry names for map traces is empty
	node_modules/.bin/esbuild $(PLOTLY_ENTRY) --bundle --minify --format=iife --global-name=Plotly \
	  --target=es2016 --define:global=window --define:define.amd=false --loader:.css=empty \
	  --log-level=error --outfile=$@
	echo "$(PLOTLY_JS_SHA256)  $@" | sha256sum --check --quiet
	cp $(PLOTLY_PACKAGE)/LICENSE $(dir $@)LICENSE
	echo "$(PLOTLY_LOCALE_ZH_SHA256)  $(PLOTLY_LOCALES)/zh-cn.js" | sha256sum --check --quiet
	node -e 'process.stdout.write("Plotly.register(" + JSON.stringify(require("./$(PLOTLY_LOCALES)/zh-cn.js")) + ");\n")' > $(PLOTLY_LOCALE_ZH)

# Node.js and npm, only for a machine that lacks them (they fetch the pinned plotly.js).
debian-node:
	@echo "==> Node.js and npm from Debian (a minute or two)"
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null

# Compiled translations (.mo) are build output, made from the committed .po files.
messages: $(STAMP)
	@if ls locale/*/LC_MESSAGES/*.po >/dev/null 2>&1; then \
	  command -v msgfmt >/dev/null || $(MAKE) --no-print-directory debian-test-deps; \
	  echo "==> translations: compiling locale/*/LC_MESSAGES/*.po"; \
	  $(DEV_ENV) $(PY) manage.py compilemessages --ignore=.venv --verbosity 0; \
	fi

# The background worker (webapp/planner/tasks.py: re-pricing after catalog changes, analyses of new
# saves, email) runs beside the server on the database queue, no other service; it stops
# with the server.
run: install
	@echo "==> migrations and the catalog, then the worker and the development server on http://$(HOST):$(PORT)"
	$(DEV_ENV) $(PY) manage.py migrate --noinput --verbosity 0
	$(DEV_ENV) $(PY) manage.py load_catalog
	$(DEV_ENV) $(PY) manage.py worker --verbosity 0 & worker=$$!; \
	  trap 'kill $$worker 2>/dev/null' EXIT INT TERM; \
	  $(DEV_ENV) $(PY) manage.py runserver $(HOST):$(PORT)

# Production-style serving: gunicorn with uvicorn's stock worker (uvicorn_worker.UvicornWorker)
# serving Django's own ASGI application, WhiteNoise for static files, DEBUG off (see README
# "Production"; behind nginx: docs/nginx.conf). gunicorn.conf.py names the app and the worker.
serve: install
	@echo "==> checks, migrations, static files and the catalog, then gunicorn on http://$(HOST):$(PORT)"
	$(PY) manage.py check --deploy --fail-level WARNING
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput --verbosity 0
	$(PY) manage.py load_catalog
	$(PY) manage.py worker & worker=$$!; \
	  trap 'kill $$worker 2>/dev/null' EXIT INT TERM; \
	  $(VENV)/bin/gunicorn --bind $(HOST):$(PORT) --access-logfile -

debian-test-deps:
	@missing=""; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	test -x /usr/lib/chromium/chromium-headless-shell || missing="$$missing chromium-headless-shell"; \
	command -v msgfmt >/dev/null || missing="$$missing gettext"; \
	command -v initdb >/dev/null || test -x /usr/lib/postgresql/15/bin/initdb || missing="$$missing postgresql"; \
	command -v wrk >/dev/null || missing="$$missing wrk"; \
	command -v soffice >/dev/null || missing="$$missing libreoffice-calc-nogui"; \
	command -v pdftotext >/dev/null || missing="$$missing poppler-utils"; \
	command -v nginx >/dev/null || test -x /usr/sbin/nginx || missing="$$missing nginx-light"; \
	command -v redis-server >/dev/null || missing="$$missing redis-server"; \
	if [ -n "$$missing" ]; then \
	  echo "==> Debian packages the tests drive:$$missing (several minutes the first time)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing fonts-noto-cjk >/dev/null; \
	fi

lint: install
	@echo "==> lint, formatting, types (mypy: about a minute) and migrations"
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(TEST_ENV) $(VENV)/bin/mypy
	$(TEST_ENV) $(PY) manage.py makemigrations --check --dry-run

# Twice: every test on SQLite, then those that reach the test database (marked `database` by
# tests/conftest.py: pytest-django refuses a database to any other) on PostgreSQL. The engine's
# tests and the rest give the same result on any database and run once. The two passes and the
# types check run side by side (scripts/test-passes.sh: the tests spend much of their time
# waiting on servers, browsers and processes); the PostgreSQL pass's output follows the SQLite
# pass's, and each pass ends with its 25 slowest tests.
test: debian-test-deps install
	@echo "==> lint and formatting (types and migrations are checked beside the tests)"
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(TEST_ENV) scripts/test-passes.sh

bench: install
	$(PY) benchmarks/engine.py

# What a visitor waits for: first visit, repeat visit and the guide with caches emptied, in
# headless Chromium against gunicorn as `make serve` starts it (medians of ROUNDS=5).
bench-browser: install
	@command -v chromium >/dev/null || $(MAKE) --no-print-directory debian-test-deps
	$(PY) benchmarks/browser.py

# 10 000 saved scenarios in 200 teams on a throwaway PostgreSQL: the saved list, the admin's
# report, re-pricing everything in one worker, the results page while it runs
# (docs/production.md, "Thousands of saved scenarios"). Several minutes.
bench-scale: install
	@command -v initdb >/dev/null || test -x /usr/lib/postgresql/15/bin/initdb || $(MAKE) --no-print-directory debian-test-deps
	$(TEST_ENV) scripts/with-postgres.sh $(PY) benchmarks/scale.py --count 10000 --teams 200

lock:
	$(UV) pip compile --quiet --extra dev --python-version 3.11 pyproject.toml -o requirements.lock

clean:
	rm -rf $(VENV) staticfiles static/vendor node_modules db.sqlite3
