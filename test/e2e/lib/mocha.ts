// Runs a suite with mocha inside the extension host and reports each test on the console (which
// the harness forwards) and in the file named by E2E_REPORT (read by the code-server harness).
import * as fs from 'node:fs';
import Mocha from 'mocha';

export function runMocha(name: string, define: () => void, timeoutMs = 180000): Promise<void> {
  const report = process.env.E2E_REPORT;
  const log = (line: string): void => {
    console.log(line);
    if (report) {
      try {
        fs.appendFileSync(report, line + '\n');
      } catch {
        /* report is best effort; the exit code still counts */
      }
    }
  };
  const mocha = new Mocha({ ui: 'bdd', timeout: timeoutMs, color: false, reporter: function silent() {} as unknown as string });
  // E2E_GREP=text runs only the tests whose full title contains it (a quick local loop)
  if (process.env.E2E_GREP) mocha.grep(process.env.E2E_GREP);
  mocha.suite.emit('pre-require', globalThis, name, mocha);
  define();
  return new Promise((resolve, reject) => {
    let passed = 0;
    let failed = 0;
    log(`SUITE ${name}`);
    const runner = mocha.run(() => {
      log(`RESULT ${passed} passed, ${failed} failed (${name})`);
      if (failed > 0) reject(new Error(`${failed} test(s) failed in ${name}`));
      else resolve();
    });
    runner.on('pass', (t) => {
      passed++;
      log(`  ok   ${t.fullTitle()} (${t.duration ?? 0} ms)`);
    });
    runner.on('fail', (t, err: Error) => {
      failed++;
      log(`  FAIL ${t.fullTitle()}\n${String(err && err.stack ? err.stack : err).replace(/^/gm, '       ')}`);
    });
  });
}
