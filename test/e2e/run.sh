#!/usr/bin/env bash
# End-to-end tests in a real VS Code: code-server 4.100.3 (VS Code 1.100.3 workbench + extension
# host) driven by headless Chromium. Installs what it needs (scripts/install-code-server.sh,
# reused when present), builds, runs every suite against a fresh copy of its fixture workspace,
# then the UI-level tests (hover; the tour of issue 15 with its screenshots), then packages the .vsix and tests the installed package.
#   bash test/e2e/run.sh                 everything (what `npm test` / .ci/run do)
#   E2E_ONLY="editor terminal" bash test/e2e/run.sh   only these steps
#   E2E_GREP="task running" E2E_ONLY=editor bash test/e2e/run.sh   only the tests whose title contains it
# Steps: smoke editor terminal agents crash restricted ux ui package. Exit status is non-zero when any fails.
set -uo pipefail
cd "$(dirname "$0")/../.."
only=" ${E2E_ONLY:-smoke editor terminal agents crash restricted ux ui package} "
want() { [[ "$only" == *" $1 "* ]]; }

t0=$(date +%s)
bash scripts/install-code-server.sh || { echo "e2e: installing code-server/chromium failed" >&2; exit 2; }
node esbuild.mjs || exit 2
node test/e2e/build.mjs || exit 2
mkdir -p test/e2e/artifacts

work=$(mktemp -d "${TMPDIR:-/tmp}/ee-e2e.XXXXXX")
trap 'rm -rf "$work"' EXIT
fixture() { # fixture NAME COPY -> path of a fresh copy (tests edit files and write records)
  rm -rf "${work:?}/$2" && cp -r "test/fixtures/$1" "$work/$2" && echo "$work/$2"
}

summary=()
failed=0
step() { # step NAME command...
  local name=$1; shift
  local s; s=$(date +%s)
  printf '\n--- e2e: %s ---\n' "$name"
  if "$@"; then summary+=("PASS  $name ($(( $(date +%s) - s ))s)")
  else summary+=("FAIL  $name ($(( $(date +%s) - s ))s)"); failed=1; fi
}
harness() { node test/e2e/code-server.js "$@"; }

want smoke && step smoke harness --workspace "$(fixture e2e-basic smoke)" --tests out/e2e/suite-smoke.js
want editor && step editor harness --workspace "$(fixture e2e-basic editor)" --tests out/e2e/suite-editor.js
want terminal && step terminal harness --workspace "$(fixture e2e-basic terminal)" --tests out/e2e/suite-terminal.js
want agents && step agents harness --workspace "$(fixture e2e-basic agents)" --tests out/e2e/suite-agents.js
want crash && step crash harness --workspace "$(fixture e2e-basic crash)" --tests out/e2e/suite-crash.js
# Restricted Mode: workspace trust stays enabled, so the folder opens untrusted.
want restricted && step restricted harness --trust --workspace "$(fixture e2e-restricted restricted)" --tests out/e2e/suite-restricted.js
want ux && step ux harness --workspace "$(fixture e2e-basic ux)" --tests out/e2e/suite-ux.js
want ui && step "ui hover (Chromium)" node test/e2e/ui-hover.js --workspace "$(fixture e2e-basic ui)" --screenshot test/e2e/artifacts/hover.png
want ui && step "ui tour (Chromium)" node test/e2e/ui-tour.js --workspace "$(fixture e2e-basic tour)" --artifacts test/e2e/artifacts
if want package; then
  vsix="$work/error-explainer.vsix"
  step "npm run package" npm run --silent package -- --out "$vsix"
  if [ -f "$vsix" ]; then
    step "installed .vsix" harness --vsix "$vsix" --workspace "$(fixture e2e-basic vsix)" --tests out/e2e/suite-vsix.js
  fi
  node esbuild.mjs >/dev/null # back to the development build
fi

printf '\n=== e2e summary (%ss) ===\n' "$(( $(date +%s) - t0 ))"
printf '%s\n' "${summary[@]}"
exit $failed
