// Synthetic ErrLookup-shaped records and a log with known ground truth, for the engine benchmark.
// Everything is deterministic from a seed.

import { captureNames, derivePattern } from '../../server/src/core/pattern';
import type { EngineEntry } from '../../server/src/core/engine';

export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  'failed unable invalid missing unexpected cannot could not connect connection timeout timed out refused reset ' +
  'request response server client worker scheduler batch token tokens cache memory buffer tensor shape dtype device ' +
  'model weights layer config configuration parameter argument value type index key file path directory permission ' +
  'denied exists found empty null undefined length size limit exceeded overflow underflow queue stream socket port ' +
  'host address session user account database table column row query transaction lock deadlock retry attempt ' +
  'backend frontend handler callback event message channel topic partition offset consumer producer broker ' +
  'registered expected received got already released allocated freed ready initialized started stopped closed open ' +
  'schema field record entry object array list dict map set tuple string integer float boolean bytes encoding ' +
  'decode encode parse serialize deserialize format version protocol header body payload status code method ' +
  'route endpoint service cluster node pod container image volume mount network interface gateway proxy upstream ' +
  'certificate signature secret credential auth authorization authentication forbidden unauthorized quota rate ' +
  'gpu cuda kernel stream graph capture rank world group process thread pool task job pipeline stage step epoch ' +
  'checkpoint shard replica leader follower election term vote commit snapshot segment block chunk page frame ' +
  'must should be is was were has have in for of to from with at by on between than during after before while ' +
  'the a an this that no any all each every only least most more less greater smaller equal match mismatch'
).split(/\s+/);

const EXT = ['py', 'ts', 'go', 'rs', 'json', 'yaml', 'toml', 'cc', 'h'];

export interface GenRecord {
  id: string;
  message: string;
  pattern: string;
  errorCode: string | null;
}

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)]!;
}

function ident(r: () => number): string {
  const a = pick(r, WORDS);
  const b = pick(r, WORDS);
  const style = r();
  if (style < 0.6) return `${a}_${b}`;
  if (style < 0.85) return a + b[0]!.toUpperCase() + b.slice(1);
  return `${a}_${b}_${pick(r, WORDS)}`;
}

/** A realistic error message with placeholders. */
function message(r: () => number, i: number): string {
  const parts: string[] = [];
  const first = pick(r, WORDS);
  parts.push(first[0]!.toUpperCase() + first.slice(1) + ' ' + pick(r, WORDS));
  const n = 2 + Math.floor(r() * 5);
  for (let k = 0; k < n; k++) {
    const x = r();
    if (x < 0.3) parts.push(pick(r, WORDS) + ' ' + pick(r, WORDS));
    else if (x < 0.45) parts.push(ident(r));
    else if (x < 0.6) {
      const id = ident(r);
      parts.push(`${id}={${id}}`);
    } else if (x < 0.67) parts.push(`'{${ident(r)}}'`);
    else if (x < 0.72) parts.push(`/api/v${1 + Math.floor(r() * 3)}/${pick(r, WORDS)}/${pick(r, WORDS)}`);
    else if (x < 0.76) parts.push(`${pick(r, WORDS)}/${ident(r)}.${pick(r, EXT)}`);
    else if (x < 0.8) parts.push(`(expected {${ident(r)}}, got {${ident(r)}})`);
    else if (x < 0.84) parts.push(pick(r, ['%s', '%d', '%r', '{}', '%(name)s', '${value}']));
    else if (x < 0.9) parts.push(`{len(${ident(r)})} ${pick(r, WORDS)}`);
    else parts.push(`[${ident(r)}]`);
  }
  // make messages distinct the way real ones are: a distinctive identifier somewhere
  parts.splice(1 + Math.floor(r() * (parts.length - 1)), 0, `${ident(r)}_${(i * 2654435761 >>> 0).toString(36).slice(0, 4)}`);
  let out = parts[0]!;
  for (let k = 1; k < parts.length; k++) out += pick(r, [' ', ' ', ': ', ', ', ' - ']) + parts[k];
  if (r() < 0.5) out += ` {${ident(r)}}`; // many messages end with a value
  return out;
}

export function generateRecords(n: number, seed = 1): GenRecord[] {
  const out: GenRecord[] = [];
  for (let i = 0; i < n; i++) {
    const r = rng(seed * 1000003 + i); // record i is the same whatever n is
    const msg = message(r, i);
    out.push({
      id: (i + 1).toString(16).padStart(16, '0'),
      message: msg,
      pattern: derivePattern(msg),
      errorCode: r() < 0.15 ? `E${1000 + (i % 9000)}` : null,
    });
  }
  return out;
}

export function toEntries(records: GenRecord[]): EngineEntry[] {
  return records.map((r) => ({ id: r.id, pattern: r.pattern, captureNames: captureNames(r.message, r.pattern), errorCode: r.errorCode }));
}

// ---------------------------------------------------------------------------------------------
// Log lines

function value(r: () => number): string {
  const x = r();
  if (x < 0.3) return String(Math.floor(r() * 100000));
  if (x < 0.5) return Math.floor(r() * 0xffffffff).toString(16);
  if (x < 0.65) return `/var/lib/${pick(r, WORDS)}/${pick(r, WORDS)}.${pick(r, EXT)}`;
  if (x < 0.8) return pick(r, WORDS);
  if (x < 0.9) return `${pick(r, WORDS)}-${Math.floor(r() * 1000)}`;
  if (x < 0.95) return `"${pick(r, WORDS)} ${pick(r, WORDS)}"`; // quotes: escaped in JSON lines
  return `[${Math.floor(r() * 64)}, ${Math.floor(r() * 4096)}]`;
}

/** The text a message prints: placeholders filled with values. */
export function instantiate(r: () => number, msg: string): string {
  return msg
    .replace(/\$\{[^}]*\}|\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}|%\([^)]*\)s|%[sdr]/g, () => value(r))
    .replace(/%%/g, '%');
}

/** A near miss: shares literals with the message but does not match its pattern. */
function nearMiss(r: () => number, text: string): string {
  const words = text.split(' ');
  if (words.length > 3 && r() < 0.5) {
    // drop a word in the middle: the literal sequence is broken
    words.splice(1 + Math.floor(r() * (words.length - 2)), 1);
    return words.join(' ');
  }
  // swap two halves: literals in the wrong order
  const mid = Math.floor(text.length / 2);
  return text.slice(mid) + ' ' + text.slice(0, mid);
}

const LEVELS = ['INFO', 'DEBUG', 'WARNING', 'ERROR'];

function noise(r: () => number): string {
  const x = r();
  if (x < 0.3) return `GET /api/v1/${pick(r, WORDS)}/${Math.floor(r() * 10000)} HTTP/1.1 ${pick(r, ['200', '201', '204', '304', '404', '500'])} ${Math.floor(r() * 900)}ms`;
  if (x < 0.5) return `${pick(r, WORDS)} ${pick(r, WORDS)} step=${Math.floor(r() * 1e6)} loss=${r().toFixed(4)} lr=${(r() / 1000).toExponential(2)} throughput=${(r() * 1e4).toFixed(1)} tok/s`;
  let s = pick(r, WORDS);
  const n = 5 + Math.floor(r() * 12);
  for (let k = 0; k < n; k++) s += (r() < 0.15 ? '=' : ' ') + (r() < 0.2 ? value(r) : pick(r, WORDS));
  return s;
}

function prefix(r: () => number, lineNo: number): string {
  const s = lineNo % 86400;
  const hh = String(Math.floor(s / 3600)).padStart(2, '0');
  const mm = String(Math.floor(s / 60) % 60).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return `2025-03-14 ${hh}:${mm}:${ss},${String(lineNo % 1000).padStart(3, '0')} ${pick(r, LEVELS)} [${pick(r, WORDS)}.${pick(r, WORDS)}] `;
}

export interface LogSpec {
  /** Records available; each matching line names one of them (log-uniform over the index, so every N gets matches). */
  records: GenRecord[];
  bytes: number;
  matchFraction: number;
  nearMissFraction: number;
  seed: number;
}

/** Generate the log; calls write(chunk) with text and truth(line, record) for each matching line. */
export function generateLog(spec: LogSpec, write: (chunk: string) => void, truth: (line: number, record: number) => void): { lines: number; matching: number; nearMisses: number } {
  const r = rng(spec.seed);
  const n = spec.records.length;
  const logN = Math.log(n);
  let bytes = 0;
  let line = 0;
  let matching = 0;
  let nearMisses = 0;
  let buf = '';
  while (bytes < spec.bytes) {
    const x = r();
    let text: string;
    if (x < spec.matchFraction + spec.nearMissFraction) {
      const rec = Math.min(n - 1, Math.floor(Math.exp(r() * logN)) - 1);
      const body = instantiate(r, spec.records[rec]!.message);
      if (x < spec.matchFraction) {
        const style = r();
        if (style < 0.1) text = JSON.stringify({ ts: `2025-03-14T10:00:${String(line % 60).padStart(2, '0')}Z`, level: 'error', logger: pick(r, WORDS), msg: body, pid: line % 5000 });
        else if (style < 0.15) text = `\x1b[31m${prefix(r, line)}\x1b[0m${body}`;
        else if (style < 0.2) text = `${prefix(r, line)}${body}\r`;
        else text = prefix(r, line) + body;
        truth(line, rec);
        matching++;
      } else {
        text = prefix(r, line) + nearMiss(r, body);
        nearMisses++;
      }
    } else text = prefix(r, line) + noise(r);
    buf += text + '\n';
    bytes += text.length + 1; // close enough to UTF-8 bytes: the generator writes ASCII
    line++;
    if (buf.length > 1 << 20) {
      write(buf);
      buf = '';
    }
  }
  if (buf) write(buf);
  return { lines: line, matching, nearMisses };
}
