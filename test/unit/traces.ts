// The real traces of test/fixtures/traces (made by its make.sh: failing programs run on this
// machine) and the forms logs wrap them in: ANSI colours, a prefix on every line (kubectl/CRI
// timestamps, docker compose, pytest's `E   `) or on the first line of each block only.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type ErrorBlock, findBlocks } from '../../server/src/core/blocks';
import { stripAnsi } from '../../server/src/core/text';

export const TRACES = path.resolve(__dirname, '..', 'fixtures', 'traces');

/** `lang/name.txt` -> its lines. */
export function traceFiles(): string[] {
  const out: string[] = [];
  for (const d of ['python', 'node', 'java', 'go', 'rust']) for (const f of fs.readdirSync(path.join(TRACES, d)).sort()) if (f.endsWith('.txt')) out.push(`${d}/${f}`);
  return out;
}

export function traceLines(name: string): string[] {
  return fs.readFileSync(path.join(TRACES, name), 'utf8').split('\n');
}

export interface Form {
  name: string;
  /** The same lines in this form (`blocks`: the blocks of the plain lines). */
  apply(lines: readonly string[], blocks: readonly ErrorBlock[]): string[];
}

const stamp = (i: number) => `2026-12-01T09:${String(10 + (i % 50)).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.${String((i * 37) % 1000).padStart(3, '0')}Z`;

export const FORMS: Form[] = [
  { name: 'plain', apply: (l) => [...l] },
  {
    name: 'ANSI (whole line and numbers coloured)',
    // (numbers are coloured only on lines without escapes of their own: inside an escape they are its parameters)
    apply: (l) => l.map((s) => (s ? `\x1b[90m${s.includes('\x1b') ? s : s.replace(/(\d+)/g, '\x1b[1;33m$1\x1b[22;39m')}\x1b[0m` : s)),
  },
  { name: 'every line prefixed (CRI: timestamp stream tag)', apply: (l) => l.map((s, i) => `${stamp(i)} stderr F ${s}`) },
  { name: 'every line prefixed (docker compose, coloured)', apply: (l) => l.map((s) => `\x1b[36mweb_1  |\x1b[0m ${s}`) },
  { name: 'every line prefixed (pytest E)', apply: (l) => l.map((s) => `E   ${s}`) },
  {
    name: 'first line of each block prefixed (logger)',
    apply: (l, blocks) => {
      const out = [...l];
      for (const b of blocks) out[b.first] = `2026-12-01 09:00:00,123 ERROR app.worker: ${out[b.first]}`;
      return out;
    },
  },
];

/** A block as comparable facts: lines, roles, class, messages and frames as text. */
export function facts(b: ErrorBlock, lines: readonly string[]) {
  return {
    kind: b.kind,
    first: b.first,
    last: b.last,
    roles: b.roles.join(','),
    errorClass: b.errorClass,
    errorCode: b.errorCode,
    chain: b.chain,
    raising: b.raising,
    messages: b.exceptions.map((e) => `${e.lineIndex}:${stripAnsi(lines[e.lineIndex]!.slice(e.start, e.end))}`),
    frames: b.frames.map((f) => `${f.lineIndex}:${f.file}:${f.line}:${f.column ?? ''}:${f.function ?? ''}:${stripAnsi(lines[f.lineIndex]!.slice(f.start, f.end))}`),
  };
}

export function blocksOf(lines: readonly string[]): ErrorBlock[] {
  return findBlocks(lines);
}
