// Lookup over every loaded record, in this order:
//   1. exact errorCode / id / slug,
//   2. records whose pattern matches the query text (given by the caller: the Catalog's engine),
//   3. fuzzy token search: IDF-weighted tokens of message, class, tags, repo (+ code, HTTP status);
//      the last query token also matches as a prefix, so it works as-you-type.
// One hit per record, ranked by kind then score. The inverted index is built once, on first use.
import type { ErrorRecord } from './record';
import { severityRank } from './record';

export interface SearchHit {
  record: ErrorRecord;
  score: number;
  kind: 'code' | 'id' | 'slug' | 'pattern' | 'fuzzy';
}

/** Record indices whose pattern matches `text`, best first. */
export type PatternMatcher = (text: string) => number[];

const SCORE = { code: 1000, id: 990, slug: 980, pattern: 500, fuzzy: 100 } as const;
/** Prefix matches of the last token count for this much of an exact token match. */
const PREFIX_FACTOR = 0.8;
/** Most vocabulary tokens one prefix expands to (keeps as-you-type queries cheap). */
const MAX_EXPANSIONS = 512;
/** Fuzzy hits below this share of the query's weight are noise. */
const MIN_FUZZY = 0.15;

/** Lowercase word tokens (letters/digits), camelCase and snake_case parts added; length >= 2. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  const words = text.split(/[^\p{L}\p{N}_]+/u);
  for (const w of words) {
    if (!w) continue;
    const lower = w.toLowerCase();
    if (lower.length >= 2) out.push(lower);
    const parts = w
      .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1_$2')
      .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1_$2')
      .toLowerCase()
      .split('_');
    if (parts.length > 1) for (const p of parts) if (p.length >= 2 && p !== lower) out.push(p);
  }
  return out;
}

function recordTokens(r: ErrorRecord): Set<string> {
  const set = new Set<string>();
  const add = (s: string | null | undefined) => {
    if (s) for (const t of tokenize(s)) set.add(t);
  };
  add(r.errorMessage);
  add(r.errorClass);
  for (const t of r.tags ?? []) add(t);
  add(r.repo);
  add(r.errorCode);
  if (r.httpStatus != null) set.add(String(r.httpStatus));
  return set;
}

export class SearchIndex {
  private readonly byCode = new Map<string, number[]>();
  private readonly byId = new Map<string, number>();
  private readonly bySlug = new Map<string, number[]>();
  private postings: Map<string, Int32Array> | undefined;
  private vocab: string[] = [];
  private scores: Float64Array | undefined;

  constructor(readonly records: readonly ErrorRecord[]) {
    records.forEach((r, i) => {
      if (r.errorCode) push(this.byCode, r.errorCode.toLowerCase(), i);
      if (!this.byId.has(r.id.toLowerCase())) this.byId.set(r.id.toLowerCase(), i);
      if (r.slug) push(this.bySlug, r.slug.toLowerCase(), i);
    });
  }

  /** Builds the token index (done lazily by the first fuzzy search; call to pay the cost up front). */
  buildIndex(): void {
    if (this.postings) return;
    const lists = new Map<string, number[]>();
    this.records.forEach((r, i) => {
      for (const t of recordTokens(r)) push(lists, t, i);
    });
    const postings = new Map<string, Int32Array>();
    for (const [t, l] of lists) postings.set(t, Int32Array.from(l));
    this.postings = postings;
    this.vocab = [...postings.keys()].sort();
    this.scores = new Float64Array(this.records.length);
  }

  search(query: string, limit = 20, patternMatches?: PatternMatcher): SearchHit[] {
    const q = query.trim();
    if (!q || limit <= 0) return [];
    const hits: SearchHit[] = [];
    const seen = new Set<number>();
    const add = (i: number, kind: SearchHit['kind'], score: number) => {
      if (seen.has(i)) return;
      seen.add(i);
      hits.push({ record: this.records[i]!, kind, score });
    };
    const key = q.toLowerCase();
    for (const i of this.byCode.get(key) ?? []) add(i, 'code', SCORE.code);
    const id = this.byId.get(key);
    if (id !== undefined) add(id, 'id', SCORE.id);
    for (const i of this.bySlug.get(key) ?? []) add(i, 'slug', SCORE.slug);
    if (hits.length >= limit) return hits.slice(0, limit);

    if (patternMatches && q.length >= 4) {
      const ranked = patternMatches(query);
      ranked.forEach((i, rank) => add(i, 'pattern', SCORE.pattern - rank / (ranked.length + 1)));
      if (hits.length >= limit) return hits.slice(0, limit);
    }

    for (const f of this.fuzzy(query, limit + seen.size)) {
      add(f.index, 'fuzzy', Math.round(f.score * SCORE.fuzzy * 1000) / 1000);
      if (hits.length >= limit) break;
    }
    return hits;
  }

  /** Fuzzy token hits: score in (0, 1], the matched share of the query's IDF weight. */
  fuzzy(query: string, limit: number): { index: number; score: number }[] {
    this.buildIndex();
    const postings = this.postings!;
    const scores = this.scores!;
    const n = this.records.length;
    if (n === 0) return [];
    const maxIdf = Math.log(1 + n);
    const idf = (df: number) => Math.log(1 + n / df);
    const tokens = [...new Set(tokenize(query))];
    if (!tokens.length) return [];
    const prefixLast = !/\s$/.test(query);
    const touched: number[] = [];
    let total = 0;

    tokens.forEach((t, k) => {
      const isLast = k === tokens.length - 1;
      const exact = postings.get(t);
      if (!(isLast && prefixLast && t.length >= 2)) {
        if (!exact) {
          total += maxIdf;
          return;
        }
        const w = idf(exact.length);
        total += w;
        for (const d of exact) {
          if (scores[d] === 0) touched.push(d);
          scores[d]! += w;
        }
        return;
      }
      // Last token as typed: exact match counts fully, prefix expansions count PREFIX_FACTOR.
      const best = new Map<number, number>();
      let weight = exact ? idf(exact.length) : 0;
      if (exact) for (const d of exact) best.set(d, idf(exact.length));
      let lo = lowerBound(this.vocab, t);
      for (let e = 0; e < MAX_EXPANSIONS && lo < this.vocab.length && this.vocab[lo]!.startsWith(t); lo++, e++) {
        const v = this.vocab[lo]!;
        if (v === t) continue;
        const list = postings.get(v)!;
        const w = idf(list.length) * PREFIX_FACTOR;
        weight = Math.max(weight, w);
        for (const d of list) if ((best.get(d) ?? 0) < w) best.set(d, w);
      }
      total += weight || maxIdf;
      for (const [d, w] of best) {
        if (scores[d] === 0) touched.push(d);
        scores[d]! += w;
      }
    });

    const out: { index: number; score: number }[] = [];
    for (const d of touched) {
      const s = Math.min(1, scores[d]! / total);
      scores[d] = 0;
      if (s >= MIN_FUZZY) out.push({ index: d, score: s });
    }
    const recs = this.records;
    out.sort(
      (a, b) =>
        b.score - a.score ||
        severityRank(recs[a.index]!.severity) - severityRank(recs[b.index]!.severity) ||
        (recs[a.index]!.id < recs[b.index]!.id ? -1 : recs[a.index]!.id > recs[b.index]!.id ? 1 : 0),
    );
    return out.slice(0, limit);
  }
}

function push<K>(map: Map<K, number[]>, key: K, i: number): void {
  const l = map.get(key);
  if (l) {
    if (l[l.length - 1] !== i) l.push(i);
  } else map.set(key, [i]);
}

function lowerBound(sorted: string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
