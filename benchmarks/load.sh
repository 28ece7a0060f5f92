#!/usr/bin/env bash
# Load benchmark: gunicorn started as `make serve` starts it, driven by wrk on
# loopback for DURATION seconds per route (default 20, in ROUNDS turns of
# DURATION/ROUNDS seconds, default 4). Prints requests/s, latency percentiles
# (medians over the rounds) and non-2xx responses per route. What a visitor
# waits for in a browser is benchmarks/browser.py's measurement.
#
#   benchmarks/load.sh            # 20 s per route (+ 4 s warm-up), ~2.5 minutes
#   DURATION=5 benchmarks/load.sh # a quick look
#   ROUTES="health compare" benchmarks/load.sh   # some routes only
#
# The results page is requested at 3 000 distinct permalinks (every utilization
# 0-99 % by every horizon 12-41 months), each wrk thread walking them from a
# random start, so that no request is answered from a cache of an earlier one.
#
# The server gets a throwaway SQLite database with the shipped catalog, the
# production settings of docs/production.md (DEBUG off, HTTPS hardening on,
# behind a proxy: wrk sends X-Forwarded-Proto: https as the proxy would) and
# WEB_CONCURRENCY workers (default 2 × cores). Access logging is off so that
# the terminal is not the bottleneck. gunicorn is stopped on exit, whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-20}
ROUNDS=${ROUNDS:-4}
CONNECTIONS=${CONNECTIONS:-8}
THREADS=${THREADS:-2}
PY=.venv/bin/python
command -v wrk >/dev/null || { echo "load.sh: wrk is not installed (make debian-test-deps)" >&2; exit 1; }

work=$(mktemp -d /tmp/loadbench.XXXXXX)
gunicorn_pid=""
cleanup() {
  if [ -n "$gunicorn_pid" ] && kill -0 "$gunicorn_pid" 2>/dev/null; then
    kill "$gunicorn_pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$gunicorn_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$gunicorn_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

port=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
export DJANGO_SECRET_KEY
DJANGO_SECRET_KEY=$($PY -c 'import secrets; print(secrets.token_urlsafe(50))')
export DJANGO_ALLOWED_HOSTS=127.0.0.1 DJANGO_HTTPS=true DJANGO_BEHIND_PROXY=true
export DATABASE_URL="sqlite:///$work/db.sqlite3"
unset DJANGO_DEBUG DJANGO_STATIC_MANIFEST
workers=${WEB_CONCURRENCY:-$((2 * $(nproc)))}

echo "load.sh: preparing (check --deploy, migrate, collectstatic, load_catalog) in $work"
$PY manage.py check --deploy --fail-level WARNING >/dev/null
$PY manage.py migrate --noinput --verbosity 0
$PY manage.py collectstatic --noinput --verbosity 0
$PY manage.py load_catalog >/dev/null

# Request bodies and a results-page link (signed with this run's secret key).
$PY manage.py shell --no-imports -c "
import json
from webapp.catalog.resolver import resolve_data
from webapp.planner.permalink import encode
selection = {
    'preset': 'entry-rtx4090', 'cloud_offering': 'aliyun-gn7e-c16g1-4xlarge',
    'tariff': 'cn-business-average', 'hosting': 'office-deskside', 'benchmark': 'resnet50-fp16',
    'workload': {'kind': 'steady', 'utilization': 0.6}, 'horizon_months': 36, 'currency': 'CNY',
}
resolution = resolve_data(selection)
scenario = resolution.scenario.model_dump(mode='json')
open('$work/compare.json', 'w').write(json.dumps(scenario))
batch = [dict(scenario, horizon_months=12 + i % 49,
              workload={'kind': 'steady', 'utilization': (i % 101) / 100}) for i in range(1000)]
open('$work/batch.json', 'w').write(json.dumps({'scenarios': batch}))
# Distinct results pages: every utilization 0-99 % by every horizon 12-41 months.
paths = []
for percent in range(100):
    for horizon in range(12, 42):
        workload = {'kind': 'steady', 'utilization': percent / 100}
        variant = resolution.scenario.model_copy(
            update={'workload': resolution.scenario.workload.model_copy(update={'utilization': percent / 100}),
                    'horizon_months': horizon})
        chosen = dict(selection, workload=workload, horizon_months=horizon)
        paths.append('/r/' + encode(variant, resolution.provenance, [], chosen))
open('$work/results.paths', 'w').write('\\n'.join(paths) + '\\n')
open('$work/results.path', 'w').write(paths[0])
"

cat >"$work/report.lua" <<'LUA'
-- Counts non-2xx responses in every thread; prints one machine-readable line.
local threads = {}
function setup(thread) table.insert(threads, thread) end
local paths = nil
local next_path = 0
function init(args)
  non2xx = 0
  -- WRK_PATHS: a file of request paths, one per line, taken in turn from a random start
  -- (the results pages: every request a different permalink, so no cache is ever hit).
  local paths_file = os.getenv("WRK_PATHS")
  if paths_file and paths_file ~= "" then
    paths = {}
    for line in io.lines(paths_file) do table.insert(paths, line) end
    math.randomseed(os.time() + (args and #args or 0) + math.floor(os.clock() * 1e6))
    next_path = math.random(#paths)
  end
  local body_file = os.getenv("WRK_BODY")
  if body_file and body_file ~= "" then
    local f = assert(io.open(body_file, "rb"))
    wrk.method = "POST"
    wrk.body = f:read("*a")
    f:close()
    wrk.headers["Content-Type"] = "application/json"
  end
end
function request()
  if paths then
    next_path = next_path % #paths + 1
    return wrk.format(nil, paths[next_path])
  end
  return wrk.request()
end
function response(status, headers, body)
  if status < 200 or status > 299 then non2xx = non2xx + 1 end
end
function done(summary, latency, requests)
  local bad = 0
  for _, t in ipairs(threads) do bad = bad + t:get("non2xx") end
  local e = summary.errors
  io.write(string.format("RESULT %d %.1f %.2f %.2f %.2f %.2f %d %d\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000,
    bad, e.connect + e.read + e.write + e.timeout))
end
LUA

echo "load.sh: gunicorn (gunicorn.conf.py: uvicorn worker) on 127.0.0.1:$port, $workers workers"
.venv/bin/gunicorn --bind "127.0.0.1:$port" --workers "$workers" --timeout 60 \
  --log-level warning >"$work/gunicorn.log" 2>&1 &
gunicorn_pid=$!
for _ in $(seq 100); do
  curl -fsS -H 'X-Forwarded-Proto: https' "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
  kill -0 "$gunicorn_pid" 2>/dev/null || { cat "$work/gunicorn.log" >&2; exit 1; }
  sleep 0.2
done

results_path=$(cat "$work/results.path")
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
base="http://127.0.0.1:$port"
# batch-1000x1: one connection, so its latency is the time to answer one batch.
read -r -a names <<<"${ROUTES:-health results-page compare batch-1000 batch-1000x1}"
declare -A urls=([health]="/healthz" [results-page]="$results_path" [compare]="/api/v1/compare"
  [batch-1000]="/api/v1/compare/batch" [batch-1000x1]="/api/v1/compare/batch")
declare -A bodies=([health]="" [results-page]="" [compare]="$work/compare.json"
  [batch-1000]="$work/batch.json" [batch-1000x1]="$work/batch.json")
declare -A path_files=([health]="" [results-page]="$work/results.paths" [compare]="" [batch-1000]=""
  [batch-1000x1]="")
declare -A connections=([health]=$CONNECTIONS [results-page]=$CONNECTIONS [compare]=$CONNECTIONS
  [batch-1000]=$CONNECTIONS [batch-1000x1]=1)

request() {  # status code of one request to route $1
  local name=$1
  if [ -n "${bodies[$name]}" ]; then
    curl -sS -o /dev/null -w '%{http_code}' -H 'X-Forwarded-Proto: https' \
      -H 'Content-Type: application/json' --data-binary "@${bodies[$name]}" "$base${urls[$name]}"
  else
    curl -sS -o /dev/null -w '%{http_code}' -H 'X-Forwarded-Proto: https' "$base${urls[$name]}"
  fi
}

# Warm up every worker on every route (imports, first queries), and fail loudly
# on a broken route rather than measuring a fast stream of errors.
for name in "${names[@]}"; do
  for _ in $(seq $((2 * workers))); do
    status=$(request "$name")
    [ "$status" = 200 ] || { echo "load.sh: $name answered $status" >&2; exit 1; }
  done
done

# Routes take turns: ROUNDS rounds, each running every route for DURATION/ROUNDS
# seconds. A shared machine speeds up and slows down over minutes; taking turns
# exposes every route to the same conditions. Each turn starts with
# an unmeasured second, so no route inherits the previous route's warm state.
round_seconds=$(( DURATION / ROUNDS ))
[ "$round_seconds" -ge 1 ] || round_seconds=1
: >"$work/results.txt"
for round in $(seq "$ROUNDS"); do
  for name in "${names[@]}"; do
    echo "load.sh: round $round/$ROUNDS, $name for ${round_seconds}s ..."
    threads=$THREADS
    [ "${connections[$name]}" -lt "$threads" ] && threads=${connections[$name]}
    # One unmeasured second first, so that no route is timed while the workers
    # are still warm from the previous one.
    WRK_BODY="${bodies[$name]}" WRK_PATHS="${path_files[$name]}" wrk -t "$threads" -c "${connections[$name]}" -d 1s \
      --timeout 10s -H 'X-Forwarded-Proto: https' -s "$work/report.lua" "$base${urls[$name]}" >/dev/null
    line=$(WRK_BODY="${bodies[$name]}" WRK_PATHS="${path_files[$name]}" wrk -t "$threads" -c "${connections[$name]}" \
      -d "${round_seconds}s" --timeout 10s -H 'X-Forwarded-Proto: https' -s "$work/report.lua" \
      "$base${urls[$name]}" | grep '^RESULT')
    echo "$round $name $round_seconds ${line#RESULT }" >>"$work/results.txt"
  done
done

echo
echo "gunicorn: $workers workers; wrk: $THREADS threads, $CONNECTIONS connections (batch-1000x1: 1)," \
  "$ROUNDS rounds x ${round_seconds}s per route; $(nproc) cores, load average before: $load_before"
$PY - "$work/results.txt" "${names[@]}" <<'PY'
"""One row per route: totals over the rounds and medians of the per-round percentiles."""
import statistics
import sys

path, *names = sys.argv[1:]
rounds: dict[str, list[list[float]]] = {}
for line in open(path):
    _, name, seconds, *fields = line.split()
    rounds.setdefault(name, []).append([float(seconds), *map(float, fields)])
header = ("route", "requests", "req/s", "p50 ms", "p90 ms", "p99 ms", "max ms", "non-2xx")
print("%-14s %10s %9s %9s %9s %9s %9s %8s" % header)
for name in names:
    rs = rounds[name]
    requests = sum(r[1] for r in rs)
    seconds = sum(r[0] for r in rs)
    p50, p90, p99 = (statistics.median(r[k] for r in rs) for k in (3, 4, 5))
    worst = max(r[6] for r in rs)
    bad = int(sum(r[7] + r[8] for r in rs))
    print(
        "%-14s %10d %9.1f %9.2f %9.2f %9.2f %9.2f %8d"
        % (name, requests, requests / seconds, p50, p90, p99, worst, bad)
    )
PY
