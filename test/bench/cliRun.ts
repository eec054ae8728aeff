// Helpers the bench sections share for runs of the built CLI: generated records written as full
// record files, and one `error-explainer scan` in a child process. A module of its own: a
// section's file may run alone (`require.main === module`), and bundling it into another
// section's bench would run it there too.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { GenRecord } from './gen';

const TEMPLATE = {
  repo: 'bench/generated',
  errorType: 'exception',
  errorClass: 'BenchError',
  httpStatus: null,
  severity: 'error',
  filePath: 'src/bench/module.py',
  lineNumber: 10,
  sourceCode: null,
  sourceCodeStart: null,
  sourceCodeEnd: null,
  githubUrl: 'https://github.com/bench/generated/blob/0000000000000000000000000000000000000000/src/bench/module.py#L10',
  documentation: 'A generated record for the benchmark. It explains nothing, but it has the size of a real one.',
  triggerScenarios: 'Generated.',
  commonSituations: 'Generated.',
  solutions: ['Do the thing', 'Do the other thing'],
  exampleFix: null,
  handlingStrategy: 'try-catch',
  validationCode: 'if not ready:\n    wait()',
  typeGuard: null,
  tryCatchPattern: 'try:\n    run()\nexcept BenchError:\n    retry()',
  preventionTips: ['Be careful'],
  tags: ['bench'],
  backgroundTag: 'generated',
  analyzedSha: '0000000000000000000000000000000000000000',
  analyzedAt: '2026-01-01T00:00:00.000Z',
  schemaVersion: 2,
};

/** Writes generated records as one JSON file of full records (TEMPLATE's fields). */
export function writeRecordFile(file: string, records: readonly GenRecord[]): void {
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, '[\n');
    let buf = '';
    records.forEach((r, i) => {
      const rec = { id: r.id, slug: `bench-${r.id}`, errorCode: r.errorCode, errorMessage: r.message, messagePattern: r.pattern, ...TEMPLATE };
      buf += (i ? ',\n' : '') + JSON.stringify(rec);
      if (buf.length > 1 << 20) {
        fs.writeSync(fd, buf);
        buf = '';
      }
    });
    fs.writeSync(fd, buf + '\n]\n');
  } finally {
    fs.closeSync(fd);
  }
}

export interface Run {
  ms: number;
  out: string;
}

export function scanOnce(root: string, records: string | readonly string[], log: string, cacheDir: string, extra: string[] = [], format = 'count'): Run {
  const t0 = process.hrtime.bigint();
  const p = spawnSync(process.execPath, [path.join(root, 'dist/cli.js'), 'scan', '--format', format, '--no-bundled', ...[records].flat().flatMap((r) => ['--records', r]), ...extra, log], {
    encoding: 'utf8',
    env: { ...process.env, ERROR_EXPLAINER_INDEX_CACHE: cacheDir },
    maxBuffer: 64 << 20,
  });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (p.status !== 0) throw new Error(`scan failed (${p.status}): ${p.stderr.slice(0, 500)}`);
  return { ms, out: p.stdout.trim() };
}
