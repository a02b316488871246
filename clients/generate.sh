#!/usr/bin/env bash
# Regenerates both official clients from the service's OpenAPI document: copies the document a
# running API serves (COMBO_BASE_URL, default http://127.0.0.1:9380; `npm start` after building
# this tree), then writes the generated files (already in the repository's format).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
npm run --silent build
base="${COMBO_BASE_URL:-http://127.0.0.1:${API_PORT:-9380}}"
curl -sf "${base%/v1}/v1/openapi.json" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>process.stdout.write(JSON.stringify(JSON.parse(s),null,2)+"\n"))' > clients/openapi.json
node dist/clients/codegen/generate.js
