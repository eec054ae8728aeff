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
/** Base score of each kind of hit (pattern hits get SCORE.pattern - rank / (n + 1), fuzzy ones share * SCORE.fuzzy). */
export const SEARCH_SCORE = SCORE;
/** Prefix matches of the last token count for this much of an exact token match. */
const PREFIX_FACTOR = 0.8;
/** Most vocabulary tokens one prefix expands to (keeps as-you-type queries cheap). */
const MAX_EXPANSIONS = 512;
/** Fuzzy hits below this share of the query's weight are noise. */
const MIN_FUZZY = 0.15;

const NON_ASCII_WORD = /[\p{L}\p{N}]/u;

function isWordChar(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
  return NON_ASCII_WORD.test(text[i]!) || (c >= 0xd800 && c <= 0xdfff && NON_ASCII_WORD.test(text.slice(i, i + 2)));
}

/** A boundary inside a word: snake_case, camelCase or an acronym before a word (HTTPServer). */
const HAS_PARTS = /_|[\p{Ll}\p{N}]\p{Lu}|\p{Lu}\p{Lu}\p{Ll}/u;

/** Lowercase word tokens (letters/digits/_), camelCase and snake_case parts added; length >= 2. */
export function tokenize(text: string, out: string[] = []): string[] {
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!isWordChar(text, i)) {
      i++;
      continue;
    }
    let j = i + 1;
    while (j < n && isWordChar(text, j)) j++;
    const w = text.slice(i, j);
    i = j;
    const lower = w.toLowerCase();
    if (lower.length >= 2) out.push(lower);
    if (!HAS_PARTS.test(w)) continue;
    const parts = w
      .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1_$2')
      .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1_$2')
      .toLowerCase()
      .split('_');
    if (parts.length > 1) for (const p of parts) if (p.length >= 2 && p !== lower) out.push(p);
  }
  return out;
}

/**
 * Inverted index of word tokens over documents 0..n-1, added in ascending order (add), then laid
 * out flat (finish): one pass collects (token id, document) pairs in growable typed arrays, then a
 * counting sort by token id lays the postings out flat: no per-token arrays, little garbage.
 */
export class TokenIndex {
  private ids = new Map<string, number>();
  private lastDoc = new Int32Array(1024).fill(-1);
  private pairTok = new Int32Array(1 << 12);
  private pairDoc = new Int32Array(1 << 12);
  private pairs = 0;
  /** postings of token id t are flat[offsets[t] .. offsets[t + 1]) (ascending documents). */
  private offsets = new Int32Array(1);
  private flat = new Int32Array(0);
  /** Every token, sorted (prefix expansion by binary search). */
  private vocab: string[] = [];
  private scores: Float64Array | undefined;
  private n = 0;

  /** Tokens of document `doc` (documents in ascending order; repeated tokens count once). */
  add(doc: number, tokens: readonly string[]): void {
    for (const t of tokens) {
      let id = this.ids.get(t);
      if (id === undefined) {
        id = this.ids.size;
        this.ids.set(t, id);
        if (id >= this.lastDoc.length) {
          const grown = new Int32Array(this.lastDoc.length * 2).fill(-1);
          grown.set(this.lastDoc);
          this.lastDoc = grown;
        }
      }
      if (this.lastDoc[id] === doc) continue;
      this.lastDoc[id] = doc;
      if (this.pairs === this.pairTok.length) {
        const t2 = new Int32Array(this.pairs * 2);
        t2.set(this.pairTok);
        this.pairTok = t2;
        const d2 = new Int32Array(this.pairs * 2);
        d2.set(this.pairDoc);
        this.pairDoc = d2;
      }
      this.pairTok[this.pairs] = id;
      this.pairDoc[this.pairs++] = doc;
    }
  }

  /** Lay the postings out for `count` documents (the pairs are dropped). */
  finish(count: number): void {
    const ids = this.ids;
    const pairs = this.pairs;
    const pairTok = this.pairTok;
    const pairDoc = this.pairDoc;
    const offsets = new Int32Array(ids.size + 1);
    for (let i = 0; i < pairs; i++) offsets[pairTok[i]! + 1]!++;
    for (let t = 0; t < ids.size; t++) offsets[t + 1]! += offsets[t]!;
    const fill = offsets.slice(0, ids.size);
    const flat = new Int32Array(pairs);
    for (let i = 0; i < pairs; i++) flat[fill[pairTok[i]!]!++] = pairDoc[i]!; // documents ascending per token
    this.offsets = offsets;
    this.flat = flat;
    this.vocab = [...ids.keys()].sort();
    this.scores = new Float64Array(count);
    this.n = count;
    this.pairTok = new Int32Array(0);
    this.pairDoc = new Int32Array(0);
    this.lastDoc = new Int32Array(0);
    this.pairs = 0;
  }

  get finished(): boolean {
    return this.scores !== undefined;
  }

  /** Bytes of the laid-out index (not the vocabulary's strings). */
  get bytes(): number {
    return this.offsets.byteLength + this.flat.byteLength + (this.scores?.byteLength ?? 0);
  }

  /** Postings of a token: ascending documents, or undefined. */
  private postingsOf(token: string): Int32Array | undefined {
    const id = this.ids.get(token);
    return id === undefined ? undefined : this.flat.subarray(this.offsets[id]!, this.offsets[id + 1]!);
  }

  /**
   * Fuzzy token hits: score in (0, 1], the matched share of the query's IDF weight; ties broken
   * by `tie(a, b)` (negative: a first). [] before finish().
   */
  fuzzy(query: string, limit: number, tie: (a: number, b: number) => number): { index: number; score: number }[] {
    const scores = this.scores;
    const n = this.n;
    if (!scores || n === 0) return [];
    const maxIdf = Math.log(1 + n);
    const idf = (df: number) => Math.log(1 + n / df);
    const tokens = [...new Set(tokenize(query))];
    if (!tokens.length) return [];
    const prefixLast = !/\s$/.test(query);
    const touched: number[] = [];
    let total = 0;

    tokens.forEach((t, k) => {
      const isLast = k === tokens.length - 1;
      const exact = this.postingsOf(t);
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
        const list = this.postingsOf(v)!;
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

    const better = (a: { index: number; score: number }, b: { index: number; score: number }) => b.score - a.score || tie(a.index, b.index);
    // Top-k selection: `out` stays sorted and at most `limit` long, so a query touching every
    // record costs one pass, not a sort of 100k hits.
    const out: { index: number; score: number }[] = [];
    for (const d of touched) {
      const s = Math.min(1, scores[d]! / total);
      scores[d] = 0;
      if (s < MIN_FUZZY) continue;
      const hit = { index: d, score: s };
      if (out.length >= limit && better(hit, out[out.length - 1]!) >= 0) continue;
      let k = out.length;
      while (k > 0 && better(hit, out[k - 1]!) < 0) k--;
      out.splice(k, 0, hit);
      if (out.length > limit) out.pop();
    }
    return out.slice(0, limit);
  }
}

/** Word tokens of what fuzzy search looks at: message, class, tags, repository, code (+ HTTP status). */
export function searchTokens(
  r: Pick<ErrorRecord, 'errorMessage' | 'errorClass' | 'tags' | 'repo' | 'errorCode'> & { httpStatus?: number | null },
  into: string[] = [],
): string[] {
  into.length = 0;
  if (r.errorMessage) tokenize(r.errorMessage, into);
  if (r.errorClass) tokenize(r.errorClass, into);
  for (const t of r.tags ?? []) tokenize(t, into);
  if (r.repo) tokenize(r.repo, into);
  if (r.errorCode) tokenize(r.errorCode, into);
  if (r.httpStatus != null) into.push(String(r.httpStatus));
  return into;
}

export class SearchIndex {
  private readonly byCode = new Map<string, number[]>();
  private readonly byId = new Map<string, number>();
  private readonly bySlug = new Map<string, number[]>();
  private tokens: TokenIndex | undefined;

  constructor(readonly records: readonly ErrorRecord[]) {
    records.forEach((r, i) => {
      if (r.errorCode) push(this.byCode, r.errorCode.toLowerCase(), i);
      if (!this.byId.has(r.id.toLowerCase())) this.byId.set(r.id.toLowerCase(), i);
      if (r.slug) push(this.bySlug, r.slug.toLowerCase(), i);
    });
  }

  /** Builds the token index (done lazily by the first fuzzy search; call to pay the cost up front). */
  buildIndex(): void {
    if (this.tokens) return;
    const index = new TokenIndex();
    const buf: string[] = [];
    for (let d = 0; d < this.records.length; d++) index.add(d, searchTokens(this.records[d]!, buf));
    index.finish(this.records.length);
    this.tokens = index;
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
      add(f.index, 'fuzzy', fuzzyScore(f.score));
      if (hits.length >= limit) break;
    }
    return hits;
  }

  /** Fuzzy token hits: score in (0, 1], the matched share of the query's IDF weight. */
  fuzzy(query: string, limit: number): { index: number; score: number }[] {
    this.buildIndex();
    const recs = this.records;
    return this.tokens!.fuzzy(query, limit, (a, b) =>
      severityRank(recs[a]!.severity) - severityRank(recs[b]!.severity) || (recs[a]!.id < recs[b]!.id ? -1 : recs[a]!.id > recs[b]!.id ? 1 : 0),
    );
  }
}

/** A fuzzy share (0, 1] as a hit score. */
export function fuzzyScore(share: number): number {
  return Math.round(share * SCORE.fuzzy * 1000) / 1000;
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
