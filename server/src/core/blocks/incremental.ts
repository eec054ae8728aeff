// The blocks of an editable document, kept up to date by re-parsing only around edits.
//
// The parser reads forward only (parse.ts): the greedy scan's decision at a line depends on that
// line and the LOOKAHEAD lines after it (or after the block it starts). So after an edit of lines
// [s, e) the blocks ending before s - LOOKAHEAD are still right; the scan is restarted there (or at
// the start of the block containing that line) and stops at the first line after the edit where it
// is outside any block, and where the old scan was outside any block too: from there on, the old
// and the new scan see the same lines and make the same decisions. The result is exactly what a
// full re-parse gives (the unit tests compare both on random edits of real traces).
import { type ErrorBlock, type LineSource, LOOKAHEAD, parseBlockAt } from './parse';

/** Lines [from, to) whose block context changed (their matches must be recomputed). */
export interface BlockChange {
  from: number;
  to: number;
}

interface Entry {
  block: ErrorBlock;
  /** Lines the block moved by since it was parsed (edits above it). */
  shift: number;
}

const first = (e: Entry) => e.block.first + e.shift;
const last = (e: Entry) => e.block.last + e.shift;

export function shiftBlock(b: ErrorBlock, d: number): ErrorBlock {
  if (d === 0) return b;
  return {
    ...b,
    first: b.first + d,
    last: b.last + d,
    exceptions: b.exceptions.map((x) => ({ ...x, lineIndex: x.lineIndex + d })),
    frames: b.frames.map((f) => ({ ...f, lineIndex: f.lineIndex + d })),
  };
}

/** Same block (kind, lines, roles, exception spans, frames, chain)? */
export function sameBlock(a: ErrorBlock, b: ErrorBlock): boolean {
  if (a.kind !== b.kind || a.first !== b.first || a.last !== b.last || a.raising !== b.raising) return false;
  if (a.errorClass !== b.errorClass || a.errorCode !== b.errorCode || a.chain !== b.chain) return false;
  if (a.exceptions.length !== b.exceptions.length || a.frames.length !== b.frames.length) return false;
  for (let i = 0; i < a.roles.length; i++) if (a.roles[i] !== b.roles[i]) return false;
  for (let i = 0; i < a.exceptions.length; i++) {
    const x = a.exceptions[i]!;
    const y = b.exceptions[i]!;
    if (x.lineIndex !== y.lineIndex || x.start !== y.start || x.end !== y.end) return false;
  }
  for (let i = 0; i < a.frames.length; i++) {
    const x = a.frames[i]!;
    const y = b.frames[i]!;
    if (x.file !== y.file || x.line !== y.line || x.column !== y.column || x.function !== y.function || x.lineIndex !== y.lineIndex || x.start !== y.start || x.end !== y.end) return false;
  }
  return true;
}

export class BlockIndex {
  private entries: Entry[] = [];
  private count: number;
  /** Lines [dirtyFrom, dirtyTo) may have changed since they were parsed (dirtyFrom = Infinity: none). */
  private dirtyFrom: number;
  private dirtyTo: number;
  /** A line the last (partial) refresh stopped at: the scan can resume there exactly. */
  private resumeAt: number | undefined;
  /** Lines of blocks an edit removed (reported by the next refresh). */
  private gone: BlockChange[] = [];

  constructor(lineCount: number) {
    this.count = lineCount;
    this.dirtyFrom = 0;
    this.dirtyTo = lineCount;
  }

  get lineCount(): number {
    return this.count;
  }

  /** Is every line up to `line` parsed? */
  isFresh(line: number): boolean {
    return this.dirtyFrom > line || this.dirtyFrom >= this.count;
  }

  /** The first line that may not be parsed yet (Infinity: every line is). */
  get freshTo(): number {
    return this.dirtyFrom >= this.count ? Infinity : this.dirtyFrom;
  }

  /** The whole document was replaced. */
  reset(lineCount: number): void {
    this.entries = [];
    this.gone = [];
    this.count = lineCount;
    this.dirtyFrom = 0;
    this.dirtyTo = lineCount;
    this.resumeAt = undefined;
  }

  /** Lines [start, start + removed) were replaced by `inserted` lines. */
  edit(start: number, removed: number, inserted: number): void {
    const delta = inserted - removed;
    const end = start + removed;
    let from = start;
    let to = start + inserted;
    const kept: Entry[] = [];
    for (const e of this.entries) {
      const f = first(e);
      const l = last(e);
      if (f >= end) {
        e.shift += delta;
        kept.push(e);
      } else if (l + LOOKAHEAD < start) kept.push(e);
      else {
        // its lines, or the lines its decisions read, were edited: parse it again (one that ends
        // before the edit is kept until then, to tell whether it really changed)
        from = Math.min(from, f);
        to = Math.max(to, (l >= end ? l + delta : start + inserted - 1) + 1);
        if (l < start) kept.push(e);
        else this.gone.push({ from: f, to: Math.max(f, l >= end ? l + delta : start + inserted - 1) + 1 });
      }
    }
    this.entries = kept;
    if (this.dirtyFrom < Infinity) {
      const mapStart = (x: number) => (x < start ? x : x >= end ? x + delta : start);
      const mapEnd = (x: number) => (x <= start ? x : x >= end ? x + delta : start + inserted);
      from = Math.min(from, mapStart(this.dirtyFrom));
      to = Math.max(to, mapEnd(this.dirtyTo));
    }
    if (this.gone.length) {
      const mapStart = (x: number) => (x < start ? x : x >= end ? x + delta : start);
      const mapEnd = (x: number) => (x <= start ? x : x >= end ? x + delta : start + inserted);
      this.gone = this.gone.map((c) => ({ from: mapStart(c.from), to: Math.max(mapStart(c.from), mapEnd(c.to)) }));
    }
    this.count += delta;
    this.dirtyFrom = Math.max(0, from);
    this.dirtyTo = Math.min(this.count, Math.max(to, this.dirtyFrom));
    this.resumeAt = undefined;
  }

  /**
   * Parse what changed, far enough that every line up to `upTo` has its final block context.
   * Returns the line ranges whose context changed (a block appeared, went, or differs).
   */
  refresh(src: LineSource, upTo: number = Infinity): BlockChange[] {
    if (this.dirtyFrom >= this.count) {
      this.dirtyFrom = Infinity;
      const gone = this.gone;
      this.gone = [];
      return mergeChanges(gone.filter((c) => c.from < this.count).map((c) => ({ from: c.from, to: Math.min(c.to, this.count) })));
    }
    if (this.dirtyFrom > upTo) return [];
    const changes: BlockChange[] = this.gone;
    this.gone = [];
    const old = this.entries;
    let p = this.resumeAt ?? Math.max(0, this.dirtyFrom - LOOKAHEAD);
    // keep the entries that end before p; restart at the start of one that contains p
    let k = lowerBoundLast(old, p);
    if (k < old.length && first(old[k]!) <= p) p = first(old[k]!);
    const before = old.slice(0, k);
    const middle: Entry[] = [];
    let done = false;
    for (;;) {
      if (p >= this.count) {
        for (; k < old.length; k++) changes.push({ from: first(old[k]!), to: last(old[k]!) + 1 });
        done = true;
        break;
      }
      if (p >= this.dirtyTo && (k >= old.length || first(old[k]!) > p)) {
        done = true;
        break;
      }
      if (p > upTo) break;
      const b = parseBlockAt(src, p);
      const end = b ? b.last : p;
      // old blocks the new scan covers or passes are replaced
      let same = false;
      const k0 = k;
      while (k < old.length && first(old[k]!) <= end) k++;
      if (b && k - k0 === 1) {
        const o = old[k0]!;
        same = sameBlock(materialize(o), b);
      }
      if (!same) {
        for (let q = k0; q < k; q++) changes.push({ from: first(old[q]!), to: last(old[q]!) + 1 });
        if (b) changes.push({ from: b.first, to: b.last + 1 });
      }
      if (b) middle.push(same ? old[k0]! : { block: b, shift: 0 });
      p = end + 1;
    }
    this.entries = before.concat(middle, old.slice(k));
    if (done) {
      this.dirtyFrom = Infinity;
      this.dirtyTo = 0;
      this.resumeAt = undefined;
    } else {
      this.dirtyFrom = p;
      this.dirtyTo = Math.max(this.dirtyTo, p);
      this.resumeAt = p;
    }
    return mergeChanges(changes);
  }

  /** Every block, in order (shifted copies are made once and kept). */
  get blocks(): readonly ErrorBlock[] {
    return this.entries.map(materialize);
  }

  /** The block containing `line`, if any. */
  blockAt(line: number): ErrorBlock | undefined {
    const k = lowerBoundLast(this.entries, line);
    const e = this.entries[k];
    return e && first(e) <= line ? materialize(e) : undefined;
  }

  /** Blocks that overlap lines [from, to]. */
  blocksIn(from: number, to: number): ErrorBlock[] {
    const out: ErrorBlock[] = [];
    for (let k = lowerBoundLast(this.entries, from); k < this.entries.length && first(this.entries[k]!) <= to; k++) out.push(materialize(this.entries[k]!));
    return out;
  }
}

function materialize(e: Entry): ErrorBlock {
  if (e.shift !== 0) {
    e.block = shiftBlock(e.block, e.shift);
    e.shift = 0;
  }
  return e.block;
}

/** Index of the first entry whose last line is >= line. */
function lowerBoundLast(entries: readonly Entry[], line: number): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (last(entries[mid]!) < line) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function mergeChanges(cs: BlockChange[]): BlockChange[] {
  if (cs.length < 2) return cs;
  cs.sort((a, b) => a.from - b.from);
  const out: BlockChange[] = [cs[0]!];
  for (let i = 1; i < cs.length; i++) {
    const c = cs[i]!;
    const t = out[out.length - 1]!;
    if (c.from <= t.to) t.to = Math.max(t.to, c.to);
    else out.push(c);
  }
  return out;
}

/**
 * The block containing line i as a forward parse from line `from` finds it (greedy, as
 * BlockIndex.refresh parses): the context of a line a document's index has not reached yet, read
 * from the lines before it only. It is the index's block wherever the index's parse and this one
 * meet at a line outside any block between `from` and i (two parses that do make the same
 * decisions from there on), which is where no block reaches back past `from`.
 */
export function blockAround(src: LineSource, from: number, i: number): ErrorBlock | undefined {
  let p = Math.max(0, from);
  while (p <= i) {
    const b = parseBlockAt(src, p);
    if (!b) {
      p++;
      continue;
    }
    if (b.last >= i) return b.first <= i ? b : undefined;
    p = b.last + 1;
  }
  return undefined;
}
