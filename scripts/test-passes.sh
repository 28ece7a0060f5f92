#!/usr/bin/env bash
# What `make test` runs once the environment is installed and ruff has passed: the whole suite on
# SQLite in front, and beside it, at the same time, the types and migrations check and the
# tests that reach the database again on a throwaway PostgreSQL (scripts/with-postgres.sh).
# Their output follows the SQLite pass's; the exit status is non-zero when any of them failed.
#
# Side by side because a pass alone leaves this 2-core machine's second core idle much of the
# time: its tests wait on gunicorn, nginx, Chromium, the worker and the commands they run as
# processes, and on the sleeps of the slow-client and locking tests. The types check (mypy,
# a minute of CPU on a fresh clone) runs at a lower priority: it only needs to be done by then.
set -uo pipefail

venv=.venv
# Three test processes on two cores: two for the SQLite pass, one for the PostgreSQL pass.
# Both cores are busy from start to end either way (vmstat: 2 % idle), so what counts is the
# CPU time spent, and every extra process adds its own start (collection, test database,
# catalog) and contention. A third SQLite worker was tried (2026-12-07): five test processes
# starved the SQLite locking test's writers at the start, where a save waited past SQLite's
# 20 s busy timeout and was answered 503, in three fresh-clone runs out of three. One
# PostgreSQL worker instead of two (2026-12-08): its pass took 252 s instead of 264 s and
# still ended four minutes before the SQLite pass; the fresh clone's `make test` 8:29 instead
# of 8:56-8:59 (with the screenshots change beside it).
sqlite_args=(-n 2 --dist loadgroup)
postgres_args=(-n 1 --dist loadgroup)
logs=$(mktemp -d /tmp/make-test.XXXXXX)
background=()

stop_background() {
  # each background job is a session of its own (setsid): end all of its processes
  for pid in "${background[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done
  wait
}
trap 'stop_background; exit 130' INT
trap 'stop_background; exit 143' TERM
trap 'rm -rf "$logs"' EXIT

setsid nice -n 10 sh -c "$venv/bin/mypy && $venv/bin/python manage.py makemigrations --check --dry-run" \
  >"$logs/types.log" 2>&1 &
types_pid=$!
background+=("$types_pid")

setsid scripts/with-postgres.sh "$venv/bin/pytest" "${postgres_args[@]}" -m "database and not browser" \
  >"$logs/postgres.log" 2>&1 &
postgres_pid=$!
background+=("$postgres_pid")

echo "==> every test on SQLite (collecting takes a few seconds, then each dot is a test passed);"
echo "    beside it the types check and the PostgreSQL pass, whose output follows"
"$venv/bin/pytest" "${sqlite_args[@]}"
sqlite=$?

echo
echo "==> the tests that reach the database, again on a throwaway PostgreSQL (run beside the above)"
tail -n +1 --pid="$postgres_pid" -f "$logs/postgres.log"
wait "$postgres_pid"
postgres=$?

echo
echo "==> types (mypy, strict) and migrations (makemigrations --check)"
wait "$types_pid"
types=$?
cat "$logs/types.log"

status() { if [ "$1" = 0 ]; then echo "passed"; else echo "FAILED (exit $1)"; fi; }
echo
echo "==> SQLite pass $(status $sqlite); PostgreSQL pass $(status $postgres);" \
  "types and migrations $(status $types)"
[ "$sqlite" = 0 ] && [ "$postgres" = 0 ] && [ "$types" = 0 ]
