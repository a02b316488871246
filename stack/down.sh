#!/usr/bin/env bash
# Stops everything stack/up.sh and stack/start.sh started (API, worker, Temporal, Elasticsearch,
# FerretDB, PostgreSQL) and frees their ports. Data stays in .stack/data for the next start.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

for name in api worker; do stop_pid "$name" leader; done
for name in temporal elasticsearch ferretdb; do stop_pid "$name"; done
pgdata="$DATA_DIR/postgres"
if [ -f "$pgdata/PG_VERSION" ]; then
  pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  if as_stack_user "$pgbin/pg_ctl" -D "$pgdata" status >/dev/null 2>&1; then
    log "stopping PostgreSQL"
    as_stack_user "$pgbin/pg_ctl" -D "$pgdata" -m fast -w stop >/dev/null
  fi
fi
