// Runs the same end-to-end suites with @vscode/test-electron, for machines that have a desktop
// VS Code (this network cannot download one, so the executable must be given):
//   node esbuild.mjs && node test/e2e/build.mjs
//   VSCODE_EXECUTABLE=/path/to/code npx tsx test/e2e/run-electron.ts [suite ...]
// Suites: smoke editor terminal crash restricted (default: all). Each gets a fresh copy of its
// fixture workspace and a fresh user-data dir; all but `restricted` run with
// --disable-workspace-trust. Exit status: number of failed suites (0 = all passed).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';

const root = path.resolve(__dirname, '..', '..');
const SUITES: Record<string, { fixture: string; trust?: boolean }> = {
  smoke: { fixture: 'e2e-basic' },
  editor: { fixture: 'e2e-basic' },
  terminal: { fixture: 'e2e-basic' },
  crash: { fixture: 'e2e-basic' },
  restricted: { fixture: 'e2e-restricted', trust: true },
};

async function main(): Promise<number> {
  const vscodeExecutablePath = process.env.VSCODE_EXECUTABLE;
  if (!vscodeExecutablePath || !fs.existsSync(vscodeExecutablePath)) {
    console.error('Set VSCODE_EXECUTABLE to a desktop VS Code executable (this runner never downloads one).');
    return 2;
  }
  const names = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(SUITES);
  let failed = 0;
  for (const name of names) {
    const suite = SUITES[name];
    if (!suite) {
      console.error(`unknown suite ${name}; known: ${Object.keys(SUITES).join(', ')}`);
      failed++;
      continue;
    }
    const tests = path.join(root, 'out', 'e2e', `suite-${name}.js`);
    if (!fs.existsSync(tests)) throw new Error(`${tests} is missing: run node test/e2e/build.mjs`);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), `ee-electron-${name}-`));
    const workspace = path.join(tmp, 'workspace');
    fs.cpSync(path.join(root, 'test', 'fixtures', suite.fixture), workspace, { recursive: true });
    const launchArgs = [workspace, '--user-data-dir', path.join(tmp, 'user-data'), '--extensions-dir', path.join(tmp, 'extensions'), '--skip-welcome', '--skip-release-notes'];
    if (!suite.trust) launchArgs.push('--disable-workspace-trust');
    console.log(`\n--- e2e (electron): ${name} ---`);
    try {
      await runTests({
        vscodeExecutablePath,
        extensionDevelopmentPath: root,
        extensionTestsPath: tests,
        launchArgs,
        extensionTestsEnv: { E2E_REPORT: path.join(tmp, 'report.txt') },
      });
      console.log(`PASS ${name}`);
    } catch (e) {
      console.error(`FAIL ${name}: ${e instanceof Error ? e.message : String(e)}`);
      failed++;
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
  return failed;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(2);
  },
);
