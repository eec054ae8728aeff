#!/usr/bin/env node
// Runs VS Code extension tests inside code-server's real workbench and extension host (VS Code
// 1.100.3), driven by headless Chromium through playwright-core. Works offline: code-server comes
// from the npm registry, chromium from Debian (scripts/install-code-server.sh installs both).
//
//   node test/e2e/code-server.js --workspace DIR --tests out/e2e/suite-x.js
//        [--extension DIR | --vsix FILE] [--trust] [--screenshot FILE] [--timeout-ms N]
//
// --extension  extension development folder (default: the repository root)
// --vsix       install this package into a fresh extensions dir instead (tests the package)
// --trust      keep workspace trust enabled (the folder then opens in Restricted Mode, since a
//              trust prompt is refused in test mode); default: --disable-workspace-trust
// The tests module has @vscode/test-electron's contract: `exports.run = async () => {...}`.
// Exit status: 0 tests passed, 1 tests failed, 2 harness failure or time-out.
//
// Also a module: startCodeServer() and launchBrowser() are used by the UI-level test.
'use strict';
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const net = require('net');
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
const DEFAULT_CODE_SERVER = path.join(ROOT, '.vscode-test', 'code-server', 'node_modules', '.bin', 'code-server');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
/** Workbench console lines that say nothing about the tests (connection setup, offline gallery). */
const WORKBENCH_NOISE = /^CodeExpectedError|ENOTFOUND|open-vsx\.org|^Resolv(ing|ed) connection token|^Creating a socket|^\[Service Worker\]|^ChatSessionStore|^Updating additional builtin|vsda|^Creation of workbench contribution/;

/** A free TCP port on the loopback interface. */
function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

async function waitForHttp(url, ms, isAlive) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (!isAlive()) throw new Error('code-server exited before it answered');
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`code-server did not answer at ${url} within ${ms} ms`);
}

/** User settings for a quiet, deterministic workbench. */
const USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'files.hotExit': 'off',
  'window.restoreWindows': 'none',
  'git.enabled': false,
  'terminal.integrated.shellIntegration.enabled': true,
  'terminal.integrated.defaultProfile.linux': 'bash',
  'chat.commandCenter.enabled': false,
  'security.workspace.trust.startupPrompt': 'never',
};

function codeServerBin() {
  const bin = process.env.CODE_SERVER || DEFAULT_CODE_SERVER;
  if (!fs.existsSync(bin)) throw new Error(`code-server not found at ${bin}; run scripts/install-code-server.sh`);
  return bin;
}

/** Installs a .vsix into extensionsDir with code-server's CLI. */
function installVsix(vsix, extensionsDir, userDataDir) {
  const r = spawnSync(codeServerBin(), ['--extensions-dir', extensionsDir, '--user-data-dir', userDataDir, '--install-extension', vsix, '--force'], {
    encoding: 'utf8',
    env: { ...process.env, HOME: path.join(path.dirname(userDataDir), 'home') },
    timeout: 120000,
  });
  process.stdout.write(r.stdout || '');
  if (r.status !== 0) throw new Error(`--install-extension failed (${r.status}): ${r.stderr}`);
}

/**
 * Starts code-server on a free loopback port with a fresh user-data dir.
 * Returns { port, url(folder, payload), home, stop() }.
 */
async function startCodeServer({ workspace, trust = false, vsix, env = {}, quiet = false }) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'ee-cs-'));
  const userData = path.join(home, 'user-data');
  const extensionsDir = path.join(home, 'extensions');
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify(USER_SETTINGS, null, 2));
  fs.mkdirSync(path.join(home, 'home'), { recursive: true });
  if (vsix) installVsix(vsix, extensionsDir, userData);
  const port = await freePort();
  const args = [
    '--auth', 'none', '--disable-telemetry', '--disable-update-check', '--disable-getting-started-override',
    '--bind-addr', `127.0.0.1:${port}`, '--user-data-dir', userData, '--extensions-dir', extensionsDir,
  ];
  if (!trust) args.push('--disable-workspace-trust');
  args.push(workspace);
  const child = spawn(codeServerBin(), args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // own process group: stop() ends code-server and everything it started
    env: { ...process.env, ...env, HOME: path.join(home, 'home') },
  });
  fs.mkdirSync(path.join(home, 'home'), { recursive: true });
  let alive = true;
  child.on('exit', () => {
    alive = false;
  });
  const serverLog = fs.createWriteStream(path.join(home, 'code-server.log'));
  child.stdout.pipe(serverLog);
  child.stderr.on('data', (d) => {
    serverLog.write(d);
    const text = String(d);
    // The gallery lookup fails offline; harmless and noisy.
    if (quiet || /ENOTFOUND|open-vsx|getaddrinfo|vsda/.test(text)) return;
    // Minified workbench code in stack traces makes lines of many kilobytes: cut them.
    const lines = text.split('\n').filter((l) => l.trim()).map((l) => (l.length > 300 ? `${l.slice(0, 300)}…` : l));
    process.stderr.write(lines.map((l) => `[code-server] ${l}\n`).join(''));
  });
  const stop = async () => {
    if (alive) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
      const end = Date.now() + 5000;
      while (alive && Date.now() < end) await new Promise((r) => setTimeout(r, 100));
      if (alive) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
    }
    if (!process.env.E2E_KEEP_HOME) fs.rmSync(home, { recursive: true, force: true });
    else console.log(`[harness] kept ${home}`);
  };
  try {
    await waitForHttp(`http://127.0.0.1:${port}/healthz`, 60000, () => alive);
  } catch (e) {
    await stop();
    throw e;
  }
  const remote = (p) => `vscode-remote://127.0.0.1:${port}${p}`;
  const url = (payload) => {
    let u = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`;
    if (payload) u += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    return u;
  };
  return { port, home, remote, url, stop, logFile: path.join(home, 'code-server.log') };
}

async function launchBrowser() {
  const { chromium } = require('playwright-core');
  if (!fs.existsSync(CHROMIUM)) throw new Error(`chromium not found at ${CHROMIUM}; run scripts/install-code-server.sh`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-dev-shm-usage',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

function arg(name, def) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
}

async function main() {
  const workspace = path.resolve(arg('workspace'));
  const tests = path.resolve(arg('tests'));
  const vsix = arg('vsix') && path.resolve(arg('vsix'));
  const extension = path.resolve(arg('extension', ROOT));
  const trust = process.argv.includes('--trust');
  const screenshot = arg('screenshot');
  const timeoutMs = Number(arg('timeout-ms', '420000'));
  const report = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ee-report-')), 'report.txt');

  let exitCode = 2;
  let cs;
  let browser;
  try {
    // E2E_REPORT reaches the extension host through code-server's environment; the mocha runner
    // writes its verdict there as well, so a lost console line cannot hide a failure.
    cs = await startCodeServer({ workspace, trust, vsix, env: { E2E_REPORT: report } });
    browser = await launchBrowser();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    let done;
    const finished = new Promise((r) => {
      done = r;
    });
    // The workbench calls these two globals when it runs extension tests.
    await page.exposeFunction('codeAutomationLog', (type, args) => {
      const parts = Array.isArray(args) ? args : [args];
      const line = parts.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
      if (WORKBENCH_NOISE.test(line)) return;
      console.log(type === 'log' || type === 'info' ? line : `[${type}] ${line}`);
    });
    await page.exposeFunction('codeAutomationExit', (code) => done(code));
    const payload = [['skipWelcome', 'true']];
    // The workbench runs extension tests only with a development extension. For the package test
    // that is an empty host extension, so the extension under test is the installed .vsix.
    const devPath = vsix ? path.join(__dirname, 'vsix-host') : extension;
    payload.push(['extensionDevelopmentPath', cs.remote(devPath)]);
    payload.push(['extensionTestsPath', cs.remote(tests)]);
    await page.goto(cs.url(payload), { timeout: 120000, waitUntil: 'domcontentloaded' });
    const timer = new Promise((r) => setTimeout(() => r('timeout'), timeoutMs));
    const result = await Promise.race([finished, timer]);
    if (screenshot) await page.screenshot({ path: screenshot }).catch(() => undefined);
    if (result === 'timeout') {
      console.error(`[harness] tests did not finish within ${timeoutMs} ms`);
      if (!screenshot) await page.screenshot({ path: path.join(ROOT, 'test', 'e2e', 'artifacts', `timeout-${path.basename(tests, '.js')}.png`) }).catch(() => undefined);
      exitCode = 2;
    } else {
      exitCode = Number(result);
      // Trust the written verdict over the exit code when both exist.
      if (fs.existsSync(report)) {
        const text = fs.readFileSync(report, 'utf8');
        const m = /^RESULT (\d+) passed, (\d+) failed/m.exec(text);
        if (m && Number(m[2]) > 0) exitCode = 1;
        if (!m) {
          console.error('[harness] the suite wrote no result line');
          exitCode = exitCode || 1;
        }
      } else if (exitCode === 0) {
        console.error('[harness] the suite wrote no report (did it run?)');
        exitCode = 1;
      }
    }
  } catch (e) {
    console.error('[harness]', e && e.stack ? e.stack : e);
    exitCode = 2;
  } finally {
    if (browser) await browser.close().catch(() => undefined);
    if (cs) {
      if (exitCode !== 0) {
        try {
          const log = fs.readFileSync(cs.logFile, 'utf8').split('\n').filter((l) => l && !/ENOTFOUND|open-vsx/.test(l));
          if (log.length) console.error(`[harness] last code-server log lines:\n${log.slice(-30).join('\n')}`);
        } catch {
          /* no log */
        }
      }
      await cs.stop();
    }
    fs.rmSync(path.dirname(report), { recursive: true, force: true });
  }
  process.exit(exitCode);
}

module.exports = { startCodeServer, launchBrowser, freePort, ROOT };
if (require.main === module) void main();
