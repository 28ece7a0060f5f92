#!/usr/bin/env bash
# Run a command against a throwaway PostgreSQL cluster: initdb under /tmp,
# start on a free loopback port, export DATABASE_URL, run, stop, remove.
set -euo pipefail

bindir=""
for candidate in "$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent)")" /usr/lib/postgresql/*/bin; do
  if [ -x "$candidate/initdb" ] && [ -x "$candidate/pg_ctl" ]; then bindir=$candidate; break; fi
done
if [ -z "$bindir" ]; then
  echo "with-postgres: PostgreSQL is not installed (make debian-test-deps installs it)" >&2
  exit 1
fi

datadir=$(mktemp -d /tmp/pgtest.XXXXXX)
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')

# initdb refuses to run as root: run the server as an unprivileged user.
as_user=()
if [ "$(id -u)" = 0 ]; then
  pguser=postgres
  id -u "$pguser" >/dev/null 2>&1 || useradd --system --no-create-home "$pguser"
  chown "$pguser" "$datadir"
  as_user=(runuser -u "$pguser" --)
fi

cleanup() {
  "${as_user[@]}" "$bindir/pg_ctl" -D "$datadir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$datadir"
}
trap cleanup EXIT
# stopped by a signal (make test ends a pass run beside another this way): stop the server too
trap 'exit 130' INT
trap 'exit 143' TERM

"${as_user[@]}" "$bindir/initdb" -D "$datadir/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >/dev/null
"${as_user[@]}" "$bindir/pg_ctl" -D "$datadir/data" -l "$datadir/log" -w -o "-p $port -k $datadir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" start >/dev/null

export DATABASE_URL="postgres://postgres@127.0.0.1:$port/postgres"
echo "with-postgres: PostgreSQL $("$bindir/postgres" --version | awk '{print $3}') on 127.0.0.1:$port"
"$@"
