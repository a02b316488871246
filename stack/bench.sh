#!/usr/bin/env bash
# `npm run bench -- <name>`: brings the local stack up (reusing a running one), builds, and runs
# the named benchmarks from bench/. A stack this script started is stopped again at the end.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
source "$STACK_ROOT/stack/node-deps.sh"

ensure_node_deps
already_up=false
[ -f "$RUN_DIR/temporal.pid" ] && kill -0 "$(cat "$RUN_DIR/temporal.pid")" 2>/dev/null && already_up=true
$already_up || trap 'bash "$STACK_ROOT/stack/down.sh"' EXIT
eval "$(bash "$STACK_ROOT/stack/up.sh")"
export MONGODB_URI ELASTICSEARCH_URL TEMPORAL_ADDRESS EMBEDDING_MODEL_DIR
cd "$STACK_ROOT"
npm run --silent build
node dist/bench/run.js "$@"
