#!/usr/bin/env bash
# Every test layer, in order: type-check, build, unit (core), protocol (real server over stdio),
# end-to-end (real VS Code via code-server). `npm test` runs this; `.ci/run` runs `npm test`.
#   SKIP_E2E=1 npm test   skips the VS Code layer (for quick local runs only; CI never sets it)
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n=== %s ===\n' "$*"; }
step "typecheck"; npx tsc --noEmit -p .
step "build"; node esbuild.mjs
step "unit tests"; npx mocha
if ls test/protocol/*.test.ts >/dev/null 2>&1; then
  step "protocol tests"; npx mocha --config test/protocol/.mocharc.json
fi
if [ "${SKIP_E2E:-}" != "1" ] && [ -f test/e2e/run.sh ]; then
  step "end-to-end tests (real VS Code)"; bash test/e2e/run.sh
fi
