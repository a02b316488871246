# Sourced: installs the npm packages when node_modules is missing or older than the lockfile,
# and checks that the native modules load (npm may hold back install scripts on this machine).
ensure_node_deps() {
  need node "Node.js 20 runs the service"
  need npm "npm installs the service's packages"
  if [ ! -d "$STACK_ROOT/node_modules" ] || [ "$STACK_ROOT/package-lock.json" -nt "$STACK_ROOT/node_modules/.package-lock.json" ]; then
    log "installing npm packages"
    # npm ci only: the lockfile is the truth and is never rewritten (it records every platform's
    # optional binaries; regenerate it with `npm install --package-lock-only` after a change).
    (cd "$STACK_ROOT" && npm ci --no-audit --no-fund >&2) || die "npm ci refused the lockfile"
  fi
  (cd "$STACK_ROOT" && node -e "require('@temporalio/core-bridge'); require('@swc/core'); require('onnxruntime-node')") ||
    die "native modules (@temporalio/core-bridge, @swc/core, onnxruntime-node) do not load after npm ci"
}
