#!/usr/bin/env bash
# Installs what the end-to-end tests need to run a real VS Code offline:
#   - code-server 4.100.3 (VS Code 1.100.3 server + web workbench) from the npm registry, into
#     $1 (default: .vscode-test/code-server), reused when already complete;
#   - Debian packages: the native-build headers code-server's modules need, ripgrep, and chromium
#     (the headless browser that drives the workbench; playwright-core talks to it).
# Only the npm registry and Debian apt are used: no GitHub downloads, no `playwright install`.
#
# Afterwards: $1/node_modules/.bin/code-server --auth none --bind-addr 127.0.0.1:PORT \
#   --user-data-dir DIR --extensions-dir DIR FOLDER
# Tested on Debian 12 with Node 20, as root (apt-get needs root; when not root, install the
# packages listed below by hand first).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$root/.vscode-test/code-server}
version=4.100.3          # last code-server line that runs on Node 20 (4.104+ needs Node 22)
log() { printf '[install-code-server] %s\n' "$*"; }

# --- Debian packages -------------------------------------------------------------------------
# kerberos -> libkrb5-dev; native-keymap -> libxkbfile-dev, libx11-dev; libsecret for the
# credentials module; ripgrep because @vscode/ripgrep downloads its binary from GitHub;
# chromium drives the workbench (fonts-dejavu-core: readable screenshots without recommends).
need=""
for p in libkrb5-dev libxkbfile-dev libsecret-1-dev libx11-dev pkg-config ripgrep chromium fonts-dejavu-core build-essential python3; do
  dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
if [ -n "$need" ]; then
  log "apt-get install$need"
  if [ "$(id -u)" != 0 ]; then
    echo "install-code-server: missing Debian packages:$need (run as root or install them)" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $need >/dev/null
fi

# --- code-server -----------------------------------------------------------------------------
mkdir -p "$dest"
cd "$dest"
if [ -x node_modules/.bin/code-server ] && [ -f ".complete-$version" ]; then
  log "reusing $dest (code-server $version)"
  exit 0
fi
log "installing code-server $version into $dest"
start=$(date +%s)
[ -f package.json ] || echo '{"name":"code-server-harness","private":true}' > package.json
# Scripts are skipped: code-server's postinstall refuses root and downloads ripgrep.
npm install --no-audit --no-fund --ignore-scripts "code-server@$version" >/dev/null
npm rebuild argon2 >/dev/null

cd node_modules/code-server/lib/vscode
npm install --no-audit --no-fund --omit=dev --ignore-scripts >/dev/null
for m in kerberos native-watchdog @vscode/spdlog @vscode/deviceid; do npm rebuild "$m" >/dev/null; done
# node-pty's own post-install step fails offline (it fetches prebuilds), its native build works:
(cd node_modules/node-pty && npx --yes node-gyp rebuild >/dev/null 2>&1) || true
test -f node_modules/node-pty/build/Release/pty.node || { echo "node-pty did not build" >&2; exit 1; }
mkdir -p node_modules/@vscode/ripgrep/bin && cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
# code-server expects the packaged layout (node_modules.asar) and these launcher names:
ln -sfn node_modules node_modules.asar
ln -sfn code-linux.sh bin/remote-cli/code-server
ln -sfn browser-linux.sh bin/helpers/browser.sh
# Built-in extensions (markdown preview, git, ...) have their own dependencies:
(cd extensions && npm install --no-audit --no-fund --omit=dev --ignore-scripts >/dev/null)
cd "$dest"
touch ".complete-$version"
log "done in $(( $(date +%s) - start ))s"
