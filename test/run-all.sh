#!/usr/bin/env bash
# Every test layer, in order: type-check, build, the dependency rules (npm run deps:
# .dependency-cruiser.cjs, a violation fails the run), unit (core + feature modules), protocol (the
# real server over stdio), end-to-end (a real VS Code via code-server). `npm test` runs this; `.ci/run`
# runs `npm test`. The last line totals the layers as "N passed, M failed".
#   SKIP_E2E=1 npm test   skips the VS Code layer (for quick local runs only; CI never sets it)
set -euo pipefail
cd "$(dirname "$0")/.."
logs=$(mktemp -d)
step() { printf '\n=== %s ===\n' "$*"; }
summary() {
  local rc=$? passed=0 failed=0 n
  set +e +o pipefail
  for f in "$logs"/unit.log "$logs"/protocol.log; do
    [ -f "$f" ] || continue
    n=$(grep -Eo '^ +[0-9]+ passing' "$f" | grep -Eo '[0-9]+' | tail -1); passed=$((passed + ${n:-0}))
    n=$(grep -Eo '^ +[0-9]+ failing' "$f" | grep -Eo '[0-9]+' | tail -1); failed=$((failed + ${n:-0}))
  done
  if [ -f "$logs/e2e.log" ]; then
    passed=$((passed + $(grep -c '^PASS  ' "$logs/e2e.log" || true)))
    failed=$((failed + $(grep -c '^FAIL  ' "$logs/e2e.log" || true)))
  fi
  # A layer that stopped before reporting (type errors, build, harness) counts as one failure.
  if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
  printf '\n%s passed, %s failed\n' "$passed" "$failed"
  rm -rf "$logs"
  exit "$rc"
}
trap summary EXIT
step "typecheck"; npx tsc --noEmit -p .
step "build"; node esbuild.mjs
step "dependency rules"; npm run --silent deps
step "unit tests"; npx mocha 2>&1 | tee "$logs/unit.log"
if ls test/protocol/*.test.ts >/dev/null 2>&1; then
  step "protocol tests"; npx mocha --config test/protocol/.mocharc.json 2>&1 | tee "$logs/protocol.log"
fi
if [ "${SKIP_E2E:-}" != "1" ] && [ -f test/e2e/run.sh ]; then
  step "end-to-end tests (real VS Code)"; bash test/e2e/run.sh 2>&1 | tee "$logs/e2e.log"
fi
