// Generated bench logs are kept under .bench and reused: one writer for every section.
import * as fs from 'node:fs';
import type { BenchContext } from './section';

/**
 * `<base>.log` and its truth `<base>.truth` ((line, record) pairs as Int32), made by `make` when
 * either is missing (written to a temporary file, renamed when complete).
 */
export function cachedLog(
  ctx: BenchContext,
  base: string,
  make: (write: (chunk: string) => void, truth: (line: number, record: number) => void) => unknown,
): { file: string; truth: Int32Array } {
  const file = base + '.log';
  const truthFile = base + '.truth';
  if (!fs.existsSync(file) || !fs.existsSync(truthFile)) {
    const t0 = Date.now();
    const fd = fs.openSync(file + '.tmp', 'w');
    const truth: number[] = [];
    try {
      make(
        (chunk) => fs.writeSync(fd, chunk),
        (line, rec) => truth.push(line, rec),
      );
    } finally {
      fs.closeSync(fd);
    }
    fs.writeFileSync(truthFile, Buffer.from(new Int32Array(truth).buffer));
    fs.renameSync(file + '.tmp', file);
    ctx.log(`generated ${file} (${(fs.statSync(file).size / 1e6).toFixed(0)} MB, ${truth.length / 2} matching lines, ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  } else ctx.log(`reusing ${file}`);
  const raw = fs.readFileSync(truthFile);
  return { file, truth: new Int32Array(raw.buffer, raw.byteOffset, raw.byteLength >>> 2) };
}
