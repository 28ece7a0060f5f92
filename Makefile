# One-command setup: `make run` serves the app, `make test` runs every test.
# Both work on a fresh machine that has only Python 3.11 and root: they build
# the virtual environment, install the locked packages and, for the tests,
# the Debian packages the tests drive (Chromium, PostgreSQL, gettext).

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
UV := $(VENV)/bin/uv
STAMP := $(VENV)/.installed
PLOTLY_JS := static/vendor/plotly/plotly.min.js
HOST ?= 127.0.0.1
PORT ?= 8000
DEV_ENV := DJANGO_DEBUG=true
TEST_ENV := DJANGO_SECRET_KEY=test-only-not-secret DJANGO_STATIC_MANIFEST=false
DEBIAN_TEST_PACKAGES := chromium gettext postgresql wrk

.PHONY: run test serve install lint messages fixtures debian-test-deps bench lock clean

install: $(STAMP) $(PLOTLY_JS) messages

$(STAMP): requirements.lock
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check uv
	$(UV) pip sync --quiet --python $(PY) requirements.lock
	touch $@

$(PLOTLY_JS): $(STAMP)
	mkdir -p $(dir $@)
	cp "$$($(PY) -c 'import plotly, pathlib; print(pathlib.Path(plotly.__file__).parent / "package_data" / "plotly.min.js")')" $@

# Compiled translations (.mo) are build output, made from the committed .po files.
messages: $(STAMP)
	@if ls locale/*/LC_MESSAGES/*.po >/dev/null 2>&1; then \
	  command -v msgfmt >/dev/null || $(MAKE) --no-print-directory debian-test-deps; \
	  $(DEV_ENV) $(PY) manage.py compilemessages --ignore=.venv --verbosity 0; \
	fi

run: install
	$(DEV_ENV) $(PY) manage.py migrate --noinput --verbosity 0
	$(DEV_ENV) $(PY) manage.py load_catalog
	$(DEV_ENV) $(PY) manage.py runserver $(HOST):$(PORT)

# Production-style serving: gunicorn's ASGI worker + WhiteNoise, DEBUG off (see README
# "Production"); gunicorn.conf.py names the app and the worker model.
serve: install
	$(PY) manage.py check --deploy --fail-level WARNING
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput --verbosity 0
	$(PY) manage.py load_catalog --keep-existing
	$(VENV)/bin/gunicorn --bind $(HOST):$(PORT) --access-logfile -

debian-test-deps:
	@missing=""; \
	command -v chromium >/dev/null || missing="$$missing chromium"; \
	command -v msgfmt >/dev/null || missing="$$missing gettext"; \
	command -v initdb >/dev/null || test -x /usr/lib/postgresql/15/bin/initdb || missing="$$missing postgresql"; \
	command -v wrk >/dev/null || missing="$$missing wrk"; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing fonts-noto-cjk >/dev/null; \
	fi

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(TEST_ENV) $(PY) manage.py makemigrations --check --dry-run

test: debian-test-deps install lint
	$(TEST_ENV) $(VENV)/bin/pytest -n 2 --dist loadgroup
	$(TEST_ENV) scripts/with-postgres.sh $(VENV)/bin/pytest -n 2 --dist loadgroup -m "not browser"

bench: install
	$(PY) benchmarks/engine.py

lock:
	$(UV) pip compile --quiet --extra dev --python-version 3.11 pyproject.toml -o requirements.lock

clean:
	rm -rf $(VENV) staticfiles static/vendor db.sqlite3
