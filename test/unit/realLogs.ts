// The real logs of test/fixtures/real (traces, Node stacks, tsc output and the unrelated logs of
// this machine), for tests that walk every window of them; and random texts of pieces, for the
// tests of the same quick checks.
import { readdirSync } from 'node:fs';
import * as path from 'node:path';

export const REAL = path.resolve(__dirname, '..', 'fixtures', 'real');

/** Each real log: its name (relative to REAL) and path. */
export function realLogs(): { name: string; file: string }[] {
  const names = readdirSync(REAL).filter((f) => f.endsWith('.log'));
  names.push(...readdirSync(path.join(REAL, 'unrelated-logs')).map((f) => path.join('unrelated-logs', f)));
  return names.map((name) => ({ name, file: path.join(REAL, name) }));
}

/** Where each line of the bytes starts as a scan cuts them (after \n, \r\n or a lone \r), and the
 * end of the bytes last. */
export function lineStarts(bytes: Uint8Array): number[] {
  const starts: number[] = [0];
  for (let k = 0; k < bytes.length; k++) if (bytes[k] === 10 || (bytes[k] === 13 && bytes[k + 1] !== 10)) starts.push(k + 1);
  if (starts[starts.length - 1] !== bytes.length) starts.push(bytes.length);
  return starts;
}

/** `count` texts, each of 1 .. `most` pieces drawn by `next` (every third text of 1 .. 4), with
 * their index. */
export function* randomTexts(next: () => number, pieces: readonly string[], count: number, most: number): Generator<[text: string, k: number]> {
  for (let k = 0; k < count; k++) {
    const n = 1 + Math.floor(next() * (k % 3 === 0 ? 4 : most));
    let t = '';
    for (let j = 0; j < n; j++) t += pieces[Math.floor(next() * pieces.length)];
    yield [t, k];
  }
}
