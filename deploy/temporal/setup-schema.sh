#!/bin/sh
# Creates or upgrades Temporal's two PostgreSQL databases (history and visibility) before the server
# starts. Every step is idempotent (create passes over an existing database, setup-schema over an
# existing version table, update-schema applies only what is missing), so it runs on every `up`,
# and any failure stops the deployment instead of starting a server on a half-made schema.
set -eu
: "${POSTGRES_SEEDS:?}" "${POSTGRES_USER:?}" "${SQL_PASSWORD:?}"
schema_dir=/etc/temporal/schema/postgresql/v12

sql_tool() { temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "${DB_PORT:-5432}" -u "$POSTGRES_USER" "$@"; }

attempt=1
until nc -z "$POSTGRES_SEEDS" "${DB_PORT:-5432}"; do
  [ "$attempt" -lt 60 ] || { echo "PostgreSQL at $POSTGRES_SEEDS did not answer" >&2; exit 1; }
  attempt=$((attempt + 1)); sleep 1
done

for db in temporal:temporal temporal_visibility:visibility; do
  name=${db%%:*} schema=${db#*:}
  sql_tool --db "$name" create
  sql_tool --db "$name" setup-schema -v 0.0
  sql_tool --db "$name" update-schema -d "$schema_dir/$schema/versioned"
done
echo "Temporal schema ready"
