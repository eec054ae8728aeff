// Generated logs of the bundled sglang records, shared by the protocol and e2e tests of big logs.
import * as fs from 'node:fs';

/** A line of the bundled record "no staged embedding for {route} req_id={req_id}" (063d2eac5107dda5). */
export const sentLine = (id: string): string => `[2026-08-28 05:10:05 MM-Encoder] ERROR: MMError: no staged embedding for /send req_id=${id} (already released)`;
/** A line that no record explains. */
export const noise = (i: number): string => `2026-08-28 05:10:05 INFO scheduler: decode batch ${i} ok, 31 running, 0 queued`;

/** Writes a log of about `mb` MiB: noise with a sentLine every `every` lines; returns the matched
 * line numbers (1-based). */
export function writeLog(file: string, mb: number, every: number): number[] {
  const fd = fs.openSync(file, 'w');
  const matched: number[] = [];
  let n = 0;
  let size = 0;
  let chunk = '';
  while (size < mb * (1 << 20)) {
    n++;
    const l = n % every === 0 ? (matched.push(n), sentLine(`r${n}`)) : noise(n);
    chunk += l + '\n';
    size += l.length + 1;
    if (chunk.length > 1 << 20) {
      fs.writeSync(fd, chunk);
      chunk = '';
    }
  }
  fs.writeSync(fd, chunk);
  fs.closeSync(fd);
  return matched;
}
