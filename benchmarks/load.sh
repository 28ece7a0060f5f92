#!/usr/bin/env bash
# Load benchmark: gunicorn started as `make serve` starts it, driven by wrk on
# loopback for DURATION seconds per route (default 20). Prints requests/s,
# latency percentiles, non-2xx responses and each route's median latency as a
# multiple of the health view's.
#
#   benchmarks/load.sh            # 20 s per route, ~2 minutes in all
#   DURATION=5 benchmarks/load.sh # a quick look
#   ROUTES="health compare" benchmarks/load.sh   # some routes only (health first)
#
# The server gets a throwaway SQLite database with the shipped catalog, the
# production settings of docs/production.md (DEBUG off, HTTPS hardening on,
# behind a proxy: wrk sends X-Forwarded-Proto: https as the proxy would) and
# WEB_CONCURRENCY workers (default 2 × cores). Access logging is off so that
# the terminal is not the bottleneck. gunicorn is stopped on exit, whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-20}
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
open('$work/results.path', 'w').write('/r/' + encode(resolution.scenario, resolution.provenance, [], selection))
"

cat >"$work/report.lua" <<'LUA'
-- Counts non-2xx responses in every thread; prints one machine-readable line.
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args)
  non2xx = 0
  local body_file = os.getenv("WRK_BODY")
  if body_file and body_file ~= "" then
    local f = assert(io.open(body_file, "rb"))
    wrk.method = "POST"
    wrk.body = f:read("*a")
    f:close()
    wrk.headers["Content-Type"] = "application/json"
  end
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

echo "load.sh: gunicorn webapp.wsgi on 127.0.0.1:$port, $workers workers"
.venv/bin/gunicorn webapp.wsgi --bind "127.0.0.1:$port" --workers "$workers" --timeout 60 \
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
declare -A connections=([health]=$CONNECTIONS [results-page]=$CONNECTIONS [compare]=$CONNECTIONS
  [batch-1000]=$CONNECTIONS [batch-1000x1]=1)
declare -A lines

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

for name in "${names[@]}"; do
  echo "load.sh: $name for ${DURATION}s ..."
  threads=$THREADS
  [ "${connections[$name]}" -lt "$threads" ] && threads=${connections[$name]}
  lines[$name]=$(WRK_BODY="${bodies[$name]}" wrk -t "$threads" -c "${connections[$name]}" \
    -d "${DURATION}s" --timeout 10s -H 'X-Forwarded-Proto: https' -s "$work/report.lua" \
    "$base${urls[$name]}" | grep '^RESULT')
done

echo
echo "gunicorn: $workers workers; wrk: $THREADS threads, $CONNECTIONS connections (batch-1000x1: 1)," \
  "${DURATION}s per route; $(nproc) cores, load average before: $load_before"
health_p50=$(echo "${lines[health]}" | awk '{print $4}')
printf '%-14s %10s %9s %9s %9s %9s %9s %8s %12s\n' route requests "req/s" "p50 ms" "p90 ms" "p99 ms" "max ms" non-2xx "p50/health"
for name in "${names[@]}"; do
  read -r _ requests rps p50 p90 p99 max bad socket_errors <<<"${lines[$name]}"
  ratio=$(awk -v a="$p50" -v b="$health_p50" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
  printf '%-14s %10s %9s %9s %9s %9s %9s %8s %12s\n' "$name" "$requests" "$rps" "$p50" "$p90" "$p99" "$max" "$((bad + socket_errors))" "$ratio"
done
