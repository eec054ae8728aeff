// Catalog = records + match engine + search: the one object the server and the CLI use.
// The engine is built once, on first use (so a CLI `validate` or a lookup by id never pays for it).
// CompositeCatalog = the user's Catalog (bundled, user and workspace records: ready at once) plus
// records that arrive later and live elsewhere (the ErrLookup dataset, built in the background);
// features see one RecordCatalog either way.
import type { ErrorRecord } from './record';
import { type EngineEntry, type LineMatch, MatchEngine, compareStructure } from './engine';
import { captureNames } from './pattern';
import { type Confidence, type LineFacts, type MatchContext, lineFacts, matchConfidence } from './confidence';
import { type ErrorBlock, type FrameHit, compareHits, findBlocks, frameHit } from './blocks';
import { SEARCH_SCORE, type SearchHit, SearchIndex } from './search';
import { splitLines } from './text';

export type { SearchHit } from './search';

export interface RecordMatch {
  record: ErrorRecord;
  match: LineMatch;
  /** How sure we are that this record explains the line (core/confidence). */
  confidence: Confidence;
  /** On the exception line of an error block: the block's frame that names the record's raise site. */
  frame?: FrameHit;
}

/** A record's match on a line, with its confidence. */
export function recordMatch(record: ErrorRecord, match: LineMatch, line: string, ctx?: MatchContext, facts?: LineFacts): RecordMatch {
  return { record, match, confidence: matchConfidence(record, match, line, ctx, facts) };
}

export { splitLines } from './text';

/** How many lines of a query `search` runs through the patterns. */
const SEARCH_PATTERN_LINES = 50;

/** What features use: a Catalog, or a CompositeCatalog. */
export interface RecordCatalog {
  get(idOrSlugOrCode: string): ErrorRecord | undefined;
  /** Every record matching the line, ranked (one match per record). */
  matchLine(line: string): RecordMatch[];
  explainText(text: string): { line: number; matches: RecordMatch[] }[];
  search(query: string, limit?: number): SearchHit[];
}

/** Records next to the user's (the dataset): matched and looked up on their own, possibly growing. */
export interface ExtraCatalog {
  /** Ranked like Catalog.matchLine (see rankMatch). */
  matchLine(line: string): RecordMatch[];
  get(idOrSlugOrCode: string): ErrorRecord | undefined;
  search(query: string, limit: number): SearchHit[];
  /** False while it is still being indexed (its records do not match yet). */
  readonly isReady: boolean;
}

/** Matches per line of `text` (lines split at CRLF, LF, CR); only lines with matches; line is 0-based. */
function explainLines(text: string, matchLine: (line: string) => RecordMatch[]): { line: number; matches: RecordMatch[] }[] {
  const out: { line: number; matches: RecordMatch[] }[] = [];
  splitLines(text).forEach((l, i) => {
    const matches = matchLine(l);
    if (matches.length) out.push({ line: i, matches });
  });
  return out;
}

/** Catalog's ranking of two matches of one line: errorCode in the line; on an error block's
 * exception line, a record raised at one of the block's frames (the raising frame first, then the
 * nearer ones; its raise line before its file only); then higher confidence; then the engine's
 * structural tie-break (compareStructure: more literal characters, longer span, id). */
export function rankMatch(a: RecordMatch, b: RecordMatch): number {
  const x = a.match;
  const y = b.match;
  if (x.codeInLine !== y.codeInLine) return x.codeInLine ? -1 : 1;
  if (a.frame || b.frame) {
    const f = compareHits(a.frame, b.frame);
    if (f !== 0) return f;
  }
  if (a.confidence.score !== b.confidence.score) return b.confidence.score - a.confidence.score;
  return compareStructure(x, y, a.record.id, b.record.id);
}

// ---------------------------------------------------------------------------------------------
// Error blocks (core/blocks): a traceback's exception line is matched in its block's context, and
// its frames, quoted code and other lines are context, never matches of their own.

/** The matches of one exception line of `block`, in its context: each with the confidence of an
 * exception line (core/confidence: role 'exception', frameMatch when a frame names the record's
 * raise site) and that frame; ranked (rankMatch). */
export function matchInBlock(matches: readonly Pick<RecordMatch, 'record' | 'match'>[], line: string, block: ErrorBlock): RecordMatch[] {
  const facts = matches.length ? lineFacts(line) : undefined;
  const out = matches.map((m): RecordMatch => {
    const hit = frameHit(block, m.record.filePath, m.record.lineNumber);
    const ctx: MatchContext = hit ? { role: 'exception', frameMatch: hit.line ? 'line' : 'file' } : block.frames.length > 0 && m.record.filePath ? { role: 'exception', frameMatch: 'none' } : { role: 'exception' };
    const r: RecordMatch = { record: m.record, match: m.match, confidence: matchConfidence(m.record, m.match, line, ctx, facts) };
    if (hit) r.frame = hit;
    return r;
  });
  if (out.length > 1) out.sort(rankMatch);
  return out;
}

/** Matches of line `lineIndex` (text `line`) given the block it is in (if any): outside blocks the
 * plain matches; on an exception line the matches in the block's context; none on its frames,
 * quoted code and other lines. */
export function matchLineInBlock(catalog: Pick<RecordCatalog, 'matchLine'>, line: string, lineIndex: number, block: ErrorBlock | undefined): RecordMatch[] {
  if (!block || lineIndex < block.first || lineIndex > block.last) return catalog.matchLine(line);
  if (block.roles[lineIndex - block.first] !== 'exception') return [];
  const ms = catalog.matchLine(line);
  return ms.length ? matchInBlock(ms, line, block) : ms;
}

/** The matches of a block's exception lines as one list: best first (rankMatch), each record once. */
export function bestOfBlock(perLine: readonly (readonly RecordMatch[])[]): RecordMatch[] {
  const all: RecordMatch[] = [];
  for (const ms of perLine) for (const m of ms) all.push(m);
  if (all.length > 1) all.sort(rankMatch);
  const seen = new Set<string>();
  return all.filter((m) => !seen.has(m.record.id) && (seen.add(m.record.id), true));
}

/** Does `next` continue the trace of `prev`: a chained exception printed right after it (Python
 * leaves a blank line before its chain line)? */
export function continuesTrace(prev: ErrorBlock, next: ErrorBlock): boolean {
  return next.chain !== undefined && next.first > prev.last && next.first <= prev.last + 2 && next.kind === prev.kind;
}

/** The trace that starts at blocks[i]: it and the blocks after it that continue it. */
export function traceAt<B extends ErrorBlock>(blocks: readonly B[], i: number): B[] {
  const out = [blocks[i]!];
  while (i + out.length < blocks.length && continuesTrace(out[out.length - 1]!, blocks[i + out.length]!)) out.push(blocks[i + out.length]!);
  return out;
}

/** A trace (a block and the blocks chained to it, in printed order) is one problem. Its primary
 * block holds the exception that ended the program: Python prints it last ("During handling…",
 * "The above exception was the direct cause…"), Java and Node first (`Caused by:`, `[cause]:`).
 * The problem is the primary block's best match when it has one, else the best of the others (a
 * cause explained where the final exception is not). `best[i]`: member i's best match, if any. */
export function traceChoice(members: readonly ErrorBlock[], best: readonly (RecordMatch | undefined)[]): number {
  const primary = members.length > 0 && members[0]!.kind === 'python' ? members.length - 1 : 0;
  if (best[primary]) return primary;
  let k = -1;
  for (let i = 0; i < members.length; i++) if (best[i] && (k < 0 || rankMatch(best[i]!, best[k]!) < 0)) k = i;
  return k;
}

export interface BlockExplanation {
  block: ErrorBlock;
  /** Over all its exception lines: best first, each record once. */
  matches: RecordMatch[];
  /** Per exception line with matches. */
  lines: { line: number; matches: RecordMatch[] }[];
}

export interface TextExplanation {
  /** Every error block of the text (with or without matches), in order. */
  blocks: BlockExplanation[];
  /** Lines outside blocks that have matches (0-based). */
  lines: { line: number; matches: RecordMatch[] }[];
}

/** A whole text (its lines) explained with blocks: per block the ranked matches of its exception
 * lines and its frames; for lines outside blocks the plain per-line matches. */
export function explainBlocks(catalog: Pick<RecordCatalog, 'matchLine'>, lines: readonly string[]): TextExplanation {
  const blocks = findBlocks(lines);
  const out: TextExplanation = { blocks: [], lines: [] };
  let k = 0;
  for (let i = 0; i < lines.length; i++) {
    const b = blocks[k];
    if (b && i >= b.first) {
      const per: { line: number; matches: RecordMatch[] }[] = [];
      for (const e of b.exceptions) {
        const ms = matchLineInBlock(catalog, lines[e.lineIndex]!, e.lineIndex, b);
        if (ms.length) per.push({ line: e.lineIndex, matches: ms });
      }
      out.blocks.push({ block: b, matches: bestOfBlock(per.map((p) => p.matches)), lines: per });
      i = b.last;
      k++;
      continue;
    }
    const ms = catalog.matchLine(lines[i]!);
    if (ms.length) out.lines.push({ line: i, matches: ms });
  }
  return out;
}

export class Catalog implements RecordCatalog {
  readonly records: readonly ErrorRecord[];
  private engineCache: MatchEngine | undefined;
  private indexCache: SearchIndex | undefined;
  private byKeyCache: Map<string, ErrorRecord> | undefined;

  /** `engine`: one already built over these records' entries (the CLI's index cache); else built on first use. */
  constructor(records: ErrorRecord[], engine?: MatchEngine) {
    this.records = records;
    this.engineCache = engine;
  }

  /** Lookup and search tables, built on first use (a file scan needs neither). */
  private get index(): SearchIndex {
    this.indexCache ??= new SearchIndex(this.records);
    return this.indexCache;
  }

  private get byKey(): Map<string, ErrorRecord> {
    if (!this.byKeyCache) {
      const byKey = new Map<string, ErrorRecord>();
      const records = this.records;
      // Precedence on collisions: id, then slug, then errorCode; first record wins within a kind.
      for (const r of records) if (!byKey.has(r.id)) byKey.set(r.id, r);
      for (const r of records) if (r.slug && !byKey.has(r.slug)) byKey.set(r.slug, r);
      for (const r of records) if (r.errorCode && !byKey.has(r.errorCode)) byKey.set(r.errorCode, r);
      this.byKeyCache = byKey;
    }
    return this.byKeyCache;
  }

  private entries(): EngineEntry[] {
    return this.records.map(engineEntry);
  }

  /** The match engine over every record's messagePattern (built on first call; its prefilters on
   * their first use). */
  get engine(): MatchEngine {
    this.engineCache ??= MatchEngine.build(this.entries());
    return this.engineCache;
  }

  /** Build the engine with its line prefilter now, in time slices with event-loop turns between
   * them (a server answers requests meanwhile): the first matchLine then costs one line. */
  async prepare(sliceMs = 10): Promise<void> {
    if (this.engineCache) return;
    const e = await MatchEngine.buildAsync(this.entries(), { sliceMs });
    this.engineCache ??= e;
  }

  /** Records whose pattern could not be used, with the reason. */
  get rejected(): { record: ErrorRecord; reason: string }[] {
    return this.engine.rejected.map((r) => ({ record: this.records[r.entry]!, reason: r.reason }));
  }

  get(idOrSlugOrCode: string): ErrorRecord | undefined {
    return this.byKey.get(idOrSlugOrCode) ?? this.byKey.get(idOrSlugOrCode.trim());
  }

  /** Is there a record with exactly this id? */
  hasId(id: string): boolean {
    return this.byKey.get(id)?.id === id;
  }

  /** Every record matching the line, ranked (one match per record). */
  matchLine(line: string): RecordMatch[] {
    // (no mightMatch first: it runs the same prefilter pass that matchLine starts with)
    const lms = this.engine.matchLine(line);
    if (lms.length === 0) return [];
    const facts = lineFacts(line);
    const ms = lms.map((m) => recordMatch(this.records[m.entry]!, m, line, undefined, facts));
    if (ms.length > 1) ms.sort(rankMatch);
    return ms;
  }

  /** Matches per line of `text` (lines split at CRLF, LF, CR); only lines with matches; line is 0-based. */
  explainText(text: string): { line: number; matches: RecordMatch[] }[] {
    return explainLines(text, (l) => this.matchLine(l));
  }

  /** Exact code/id/slug, then pattern matches of the query text, then fuzzy tokens. */
  search(query: string, limit = 20): SearchHit[] {
    return this.index.search(query, limit, (text) => this.patternMatches(text));
  }

  /** Distinct record indices matching the first lines of `text`, best first. */
  private patternMatches(text: string): number[] {
    const order: number[] = [];
    const seen = new Set<number>();
    for (const line of splitLines(text).slice(0, SEARCH_PATTERN_LINES)) {
      for (const m of this.engine.matchLine(line)) {
        if (!seen.has(m.entry)) {
          seen.add(m.entry);
          order.push(m.entry);
        }
      }
    }
    return order;
  }
}

/**
 * The user's Catalog plus an ExtraCatalog (the dataset). The user's records win: an extra record
 * whose id the user's catalog has is never matched, found or returned. Matches of both are merged
 * by Catalog's ranking; search hits by score (exact code/id/slug, then pattern, then fuzzy).
 */
export class CompositeCatalog implements RecordCatalog {
  constructor(
    readonly user: Catalog,
    readonly extra: ExtraCatalog | undefined,
  ) {}

  get(idOrSlugOrCode: string): ErrorRecord | undefined {
    const u = this.user.get(idOrSlugOrCode);
    if (u || !this.extra) return u;
    const x = this.extra.get(idOrSlugOrCode);
    return x && !this.user.hasId(x.id) ? x : undefined;
  }

  matchLine(line: string): RecordMatch[] {
    const u = this.user.matchLine(line);
    if (!this.extra) return u;
    const x = this.extra.matchLine(line).filter((m) => !this.user.hasId(m.record.id));
    if (x.length === 0) return u;
    if (u.length === 0) return x;
    return [...u, ...x].sort(rankMatch);
  }

  explainText(text: string): { line: number; matches: RecordMatch[] }[] {
    return explainLines(text, (l) => this.matchLine(l));
  }

  search(query: string, limit = 20): SearchHit[] {
    const u = this.user.search(query, limit);
    if (!this.extra || limit <= 0) return u;
    const x = this.extra.search(query, limit).filter((h) => !this.user.hasId(h.record.id));
    if (x.length === 0) return u;
    const all = [...u, ...x];
    if (all.some((h) => h.kind === 'pattern')) {
      // pattern hits of both, ranked as one: by the merged match ranking of the query's lines
      const order = new Map<string, number>();
      for (const line of splitLines(query).slice(0, SEARCH_PATTERN_LINES)) for (const m of this.matchLine(line)) if (!order.has(m.record.id)) order.set(m.record.id, order.size);
      for (const h of all) if (h.kind === 'pattern') h.score = SEARCH_SCORE.pattern - (order.get(h.record.id) ?? order.size) / (order.size + 1);
    }
    const seen = new Set<string>();
    // stable: on equal scores the user's hits come first
    return all
      .map((h, i) => ({ h, i }))
      .sort((a, b) => b.h.score - a.h.score || a.i - b.i)
      .map((e) => e.h)
      .filter((h) => !seen.has(h.record.id) && (seen.add(h.record.id), true))
      .slice(0, limit);
  }
}

/** What the engine knows of a record. */
export function engineEntry(r: ErrorRecord): EngineEntry {
  return { id: r.id, pattern: r.messagePattern, captureNames: safeCaptureNames(r), errorCode: r.errorCode };
}

/** The capture names of a record's pattern (none when its message and pattern disagree). */
export function safeCaptureNames(r: ErrorRecord): string[] {
  try {
    return captureNames(r.errorMessage ?? '', r.messagePattern);
  } catch {
    return [];
  }
}
