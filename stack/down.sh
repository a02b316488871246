#!/usr/bin/env bash
# Stops everything stack/up.sh and stack/start.sh started (API, worker, Temporal, Elasticsearch,
# FerretDB, PostgreSQL) and frees their ports. Data stays in .stack/data for the next start.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

stop_pid() {
  local name=$1 pidfile="$RUN_DIR/$1.pid"
  [ -f "$pidfile" ] || return 0
  local pid; pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null; then
    log "stopping $name"
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

for name in api worker temporal elasticsearch ferretdb; do stop_pid "$name"; done
pgdata="$DATA_DIR/postgres"
if [ -f "$pgdata/PG_VERSION" ]; then
  pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  if as_stack_user "$pgbin/pg_ctl" -D "$pgdata" status >/dev/null 2>&1; then
    log "stopping PostgreSQL"
    as_stack_user "$pgbin/pg_ctl" -D "$pgdata" -m fast -w stop >/dev/null
  fi
fi
