#!/usr/bin/env bash
# README command one: brings up the whole service on this machine (local stack, API, worker) and
# prints where everything is plus an API key to use at once.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$STACK_ROOT/stack/node-deps.sh"

ensure_node_deps
eval "$(bash "$STACK_ROOT/stack/up.sh")"
(cd "$STACK_ROOT" && npm run --silent build >&2)

key_file="$STACK_DIR/bootstrap-key"
if [ -z "${BOOTSTRAP_API_KEY:-}" ]; then
  if [ ! -s "$key_file" ]; then
    (umask 077 && node "$STACK_ROOT/dist/common/new-api-key.js" > "$key_file")
  fi
  BOOTSTRAP_API_KEY=$(cat "$key_file")
fi
secrets_key_file="$STACK_DIR/secrets-key"
if [ -z "${SECRETS_ENCRYPTION_KEY:-}" ]; then
  [ -s "$secrets_key_file" ] || (umask 077 && node -e "process.stdout.write(require('crypto').randomBytes(32).toString('base64'))" > "$secrets_key_file")
  SECRETS_ENCRYPTION_KEY=$(cat "$secrets_key_file")
fi
export BOOTSTRAP_API_KEY SECRETS_ENCRYPTION_KEY MONGODB_URI ELASTICSEARCH_URL TEMPORAL_ADDRESS
export API_HOST="${API_HOST:-127.0.0.1}" API_PORT="${API_PORT:-9380}"

# Each under stack/supervise.sh, which restarts it after a crash as the compose file's restart
# policy does; its log shows every start and exit.
start_supervised() { # start_supervised <name> <script>
  local name=$1 script=$2
  stop_pid "$name" leader
  setsid bash "$STACK_ROOT/stack/supervise.sh" "$name" node "$STACK_ROOT/$script" >"$LOG_DIR/$name.log" 2>&1 < /dev/null &
  echo $! >"$RUN_DIR/$name.pid"
}
start_supervised worker dist/workers/main.js
start_supervised api dist/api/main.js

api="http://127.0.0.1:$API_PORT/v1"
api_ready() { curl -sf "$api/ready" >/dev/null; }
wait_for 90 "API (all backends ready)" api_ready || die "the API did not become ready; see $LOG_DIR/api.log"

cat <<INFO

  API base address   $api
  Console            http://127.0.0.1:$API_PORT/console/   (sign in with the key below)
  Swagger UI         $api/docs
  Temporal UI        $TEMPORAL_UI_URL
  API key (admin)    $BOOTSTRAP_API_KEY

  Try: curl -H "Authorization: Bearer $BOOTSTRAP_API_KEY" $api/combo/agents
  Logs: $LOG_DIR   Stop: npm run stop
INFO
