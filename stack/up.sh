#!/usr/bin/env bash
# Brings the embedded local stack up: PostgreSQL + FerretDB (MongoDB protocol), Elasticsearch 8 and
# the Temporal dev server (with its Web UI). Idempotent: reuses what already runs, builds what is
# missing. A service whose address is already set in the environment (MONGODB_URI,
# ELASTICSEARCH_URL, TEMPORAL_ADDRESS) is external and is not started here; likewise the local
# embedding model is fetched unless EMBEDDING_MODEL_DIR points at one already.
# Prints the addresses as shell exports on stdout (logs go to stderr).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need java "Java 17 runs Elasticsearch"
need go "the Go toolchain builds Temporal CLI and FerretDB"

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pid_alive() { [ -f "$RUN_DIR/$1.pid" ] && kill -0 "$(cat "$RUN_DIR/$1.pid")" 2>/dev/null; }

start_postgres() {
  local pgbin; pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  local pgdata="$DATA_DIR/postgres"
  if ! [ -f "$pgdata/PG_VERSION" ]; then
    log "initialising PostgreSQL cluster"
    mkdir -p "$pgdata"; chown -R "$STACK_USER" "$pgdata" 2>/dev/null || true; chmod 700 "$pgdata"
    as_stack_user "$pgbin/initdb" -D "$pgdata" -U postgres --auth=trust -E UTF8 >"$LOG_DIR/initdb.log"
  fi
  if as_stack_user "$pgbin/pg_ctl" -D "$pgdata" status >/dev/null 2>&1; then return; fi
  log "starting PostgreSQL on 127.0.0.1:$PG_PORT"
  touch "$LOG_DIR/postgres.log"; chown "$STACK_USER" "$LOG_DIR/postgres.log" 2>/dev/null || true
  as_stack_user "$pgbin/pg_ctl" -D "$pgdata" -l "$LOG_DIR/postgres.log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -c unix_socket_directories=/tmp -c max_connections=200 -c fsync=on" start >/dev/null
  "$pgbin/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='ferretdb'" | grep -q 1 ||
    "$pgbin/createdb" -h 127.0.0.1 -p "$PG_PORT" -U postgres ferretdb
  # Indexes FerretDB's queries can use (see the file); applied before FerretDB starts, on every start.
  "$pgbin/psql" -h 127.0.0.1 -p "$PG_PORT" -U postgres -d ferretdb -v ON_ERROR_STOP=1 -q \
    -c "SET client_min_messages = warning" -f "$(dirname "${BASH_SOURCE[0]}")/ferretdb-gin-indexes.sql" >/dev/null
}

start_ferretdb() {
  if pid_alive ferretdb && port_open "$FERRET_PORT"; then return; fi
  port_open "$FERRET_PORT" && die "port $FERRET_PORT is taken by another program (set MONGODB_URI to use it, or STACK_FERRET_PORT)"
  log "starting FerretDB on 127.0.0.1:$FERRET_PORT"
  # FerretDB 1.x holds its metadata lock while a collection or index is created, and that creation
  # needs a connection of its one pool: with all 50 (its default) taken by operations queued behind
  # the lock, it deadlocks. A pool near PostgreSQL's max_connections (200) keeps the suite's
  # concurrent processes well below it.
  setsid "$BIN_DIR/ferretdb" --handler=postgresql \
    --postgresql-url="postgres://postgres@127.0.0.1:$PG_PORT/ferretdb?pool_max_conns=180" \
    --listen-addr="127.0.0.1:$FERRET_PORT" --debug-addr="127.0.0.1:$FERRET_DEBUG_PORT" \
    --telemetry=disable --log-level=warn >"$LOG_DIR/ferretdb.log" 2>&1 < /dev/null &
  echo $! >"$RUN_DIR/ferretdb.pid"
  wait_for 30 "FerretDB" port_open "$FERRET_PORT" || die "FerretDB did not start; see $LOG_DIR/ferretdb.log"
}

start_elasticsearch() {
  if pid_alive elasticsearch && port_open "$ES_PORT"; then return; fi
  port_open "$ES_PORT" && die "port $ES_PORT is taken by another program (set ELASTICSEARCH_URL to use it, or STACK_ES_PORT)"
  local es_home="$STACK_DIR/elasticsearch" es_data="$DATA_DIR/elasticsearch"
  mkdir -p "$es_data" "$LOG_DIR/elasticsearch"
  chown -R "$STACK_USER" "$es_home" "$es_data" "$LOG_DIR/elasticsearch" 2>/dev/null || true
  log "starting Elasticsearch on 127.0.0.1:$ES_PORT"
  # The JDK that Elasticsearch would bundle is not in this distribution: use the machine's Java 17.
  local java_home; java_home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
  setsid "${AS_STACK_USER[@]}" env ES_JAVA_HOME="$java_home" ES_JAVA_OPTS="-Xms512m -Xmx512m" \
    "$es_home/bin/elasticsearch" \
    -E discovery.type=single-node -E xpack.security.enabled=false -E network.host=127.0.0.1 \
    -E http.port="$ES_PORT" -E transport.port=$((ES_PORT + 100)) -E path.data="$es_data" -E path.logs="$LOG_DIR/elasticsearch" \
    -E cluster.routing.allocation.disk.threshold_enabled=false -E action.auto_create_index=true >"$LOG_DIR/elasticsearch.out" 2>&1 < /dev/null &
  echo $! >"$RUN_DIR/elasticsearch.pid"
}

es_healthy() {
  pid_alive elasticsearch || die "Elasticsearch exited; see $LOG_DIR/elasticsearch.out"
  curl -sf "http://127.0.0.1:$ES_PORT/_cluster/health?wait_for_status=yellow&timeout=1s" >/dev/null
}

start_temporal() {
  if pid_alive temporal && port_open "$TEMPORAL_PORT"; then return; fi
  port_open "$TEMPORAL_PORT" && die "port $TEMPORAL_PORT is taken by another program (set TEMPORAL_ADDRESS to use it, or STACK_TEMPORAL_PORT)"
  log "starting Temporal dev server on 127.0.0.1:$TEMPORAL_PORT (Web UI on :$TEMPORAL_UI_PORT)"
  local attrs=()
  for a in "${SEARCH_ATTRIBUTES[@]}"; do attrs+=(--search-attribute "$a=Keyword"); done
  setsid "$BIN_DIR/temporal" server start-dev --ip 127.0.0.1 --port "$TEMPORAL_PORT" --ui-port "$TEMPORAL_UI_PORT" \
    --db-filename "$DATA_DIR/temporal.db" --sqlite-pragma journal_mode=wal --sqlite-pragma synchronous=normal \
    --log-level warn "${attrs[@]}" >"$LOG_DIR/temporal.log" 2>&1 < /dev/null &
  echo $! >"$RUN_DIR/temporal.pid"
}

temporal_ready() { "$BIN_DIR/temporal" operator cluster health --address "127.0.0.1:$TEMPORAL_PORT" 2>/dev/null | grep -q SERVING; }

ensure_stack_user
parts=()
[ -n "${MONGODB_URI:-}" ] || parts+=(postgres ferretdb)
[ -n "${ELASTICSEARCH_URL:-}" ] || parts+=(elasticsearch)
[ -n "${TEMPORAL_ADDRESS:-}" ] || parts+=(temporal)
[ -n "${EMBEDDING_MODEL_DIR:-}" ] || parts+=(embedding-model)
[ ${#parts[@]} -eq 0 ] || bash "$STACK_ROOT/stack/install.sh" "${parts[@]}" >&2

# Start the slow ones first so they warm up in parallel.
[ -n "${ELASTICSEARCH_URL:-}" ] || start_elasticsearch
[ -n "${TEMPORAL_ADDRESS:-}" ] || start_temporal
if [ -z "${MONGODB_URI:-}" ]; then start_postgres; start_ferretdb; fi
if [ -z "${TEMPORAL_ADDRESS:-}" ]; then
  wait_for 60 "Temporal" temporal_ready || die "Temporal did not start; see $LOG_DIR/temporal.log"
fi
if [ -z "${ELASTICSEARCH_URL:-}" ]; then
  wait_for 120 "Elasticsearch" es_healthy || die "Elasticsearch did not start; see $LOG_DIR/elasticsearch.out"
fi

echo "export MONGODB_URI='${MONGODB_URI:-mongodb://127.0.0.1:$FERRET_PORT/}'"
echo "export ELASTICSEARCH_URL='${ELASTICSEARCH_URL:-http://127.0.0.1:$ES_PORT}'"
echo "export TEMPORAL_ADDRESS='${TEMPORAL_ADDRESS:-127.0.0.1:$TEMPORAL_PORT}'"
echo "export TEMPORAL_UI_URL='${TEMPORAL_UI_URL:-http://127.0.0.1:$TEMPORAL_UI_PORT}'"
echo "export EMBEDDING_MODEL_DIR='${EMBEDDING_MODEL_DIR:-$MODELS_DIR/all-minilm-l6-v2}'"
