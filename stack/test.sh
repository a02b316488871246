#!/usr/bin/env bash
# README command two: installs what is missing, brings the local stack up (reusing a running one),
# type-checks everything and runs the whole test suite against the real Temporal, FerretDB and
# Elasticsearch. A stack this script started is stopped again at the end.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$STACK_ROOT/stack/node-deps.sh"

ensure_node_deps
# The TypeScript client's packages first: the lint type-checks clients/typescript with them.
bash "$STACK_ROOT/stack/install.sh" official-clients >&2
# Layer rules, lint, format and unused code next: they need no stack and fail in seconds.
log "checking layers, lint, format and unused code"
(cd "$STACK_ROOT" && npm run --silent check)
bash "$STACK_ROOT/stack/install.sh" test-server embedding-model python-clients schemathesis chromium jq chart-tools >&2
export PYTHON_CLIENTS_VENV="$STACK_DIR/python-clients" COMBO_PYTHON_VENV="$STACK_DIR/combo-python" SCHEMATHESIS_VENV="$STACK_DIR/schemathesis"

already_up=false
[ -f "$RUN_DIR/temporal.pid" ] && kill -0 "$(cat "$RUN_DIR/temporal.pid")" 2>/dev/null && already_up=true
$already_up || trap 'bash "$STACK_ROOT/stack/down.sh"' EXIT
eval "$(bash "$STACK_ROOT/stack/up.sh")"
export MONGODB_URI ELASTICSEARCH_URL TEMPORAL_ADDRESS EMBEDDING_MODEL_DIR
export TEMPORAL_TEST_SERVER_PATH="$BIN_DIR/temporal-test-server" STACK_BIN_DIR="$BIN_DIR"

cd "$STACK_ROOT"
log "type-checking"
npm run --silent build

# Every test file has its own database, index prefix and task queue (test/support/config.ts), so the
# files run side by side in JEST_WORKERS jest workers (2: the cores of the machine CI runs on). The
# browser tests run after them, one at a time and alone: each drives Chromium, and a page's clicks and
# reads wait on the console's rendering, which other files' work would compete with for the cores.
SERIAL_TESTS='/test/browser/'
workers=${JEST_WORKERS:-2}
export JEST_SUMMARY_FILE="$RUN_DIR/jest-summary"
: >"$JEST_SUMMARY_FILE"
failed=0
if [ $# -gt 0 ]; then
  log "running the tests named"
  npx jest --runInBand "$@" || failed=1
else
  log "running the test suite: $workers files at a time, then the browser tests one by one"
  npx jest --maxWorkers="$workers" --testPathIgnorePatterns "$SERIAL_TESTS" || failed=1
  npx jest --runInBand --testPathPatterns "$SERIAL_TESTS" || failed=1
fi
# One closing line over both runs, as the summary reporter prints it for one.
awk '{ p += $1; f += $2; s += $3 } END { printf "jest: %d passed, %d failed, %d skipped\n", p, f, s }' "$JEST_SUMMARY_FILE"
exit "$failed"
