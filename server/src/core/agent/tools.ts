// The tools Error Explainer offers to coding agents: the MCP server (`error-explainer mcp`,
// server/src/mcp) and the VS Code language-model tool (through the language server) both call
// these. Plain objects in, a ToolResult (Markdown for the model + the same facts as JSON) out; no
// protocol, no SDK. Bad arguments and unreadable files are results with isError and one clear
// sentence, never exceptions.
//
// Parameters of search_error / get_error / list_repos / refresh_dataset are ErrLookup's own MCP
// server's (@standardbeagle/errlookup-mcp), so an agent prompt written for one works with the other.
import * as path from 'node:path';
import type { Catalog, RecordCatalog, RecordMatch } from '../catalog';
import { DEFAULT_MIN_CONFIDENCE } from '../confidence';
import type { ErrorRecord } from '../record';
import { codeSpan, escapeInline, firstSentence, renderRecord } from '../render';
import { scanFile } from '../logScan/file';
import { type RecordGroup, ScanSummary } from '../logScan/summary';
import { argumentProblem, type ObjectSchema } from './validate';

export interface ToolResult {
  /** Markdown for the model. */
  text: string;
  /** The same facts as JSON (MCP structuredContent). */
  data?: Record<string, unknown>;
  isError?: boolean;
}

export interface SourceInfo {
  origin: string;
  path: string;
  records: number;
}

export interface DatasetAccess {
  /** The user opted in on this machine (a download happened or was accepted): refresh may fetch. */
  optedIn(): boolean;
  /** Checks the manifest now; `full` also fetches the full records of the selected repositories. */
  refresh(full: boolean): Promise<{ status: string; datasetVersion: string | null; reason?: string; fetched?: string[]; repos?: { repo: string; records: number }[] }>;
}

/** What the tools read: the records, their sources, how to scan a file. */
export interface AgentEnv {
  /** Lookup, search and per-line matching (a CompositeCatalog in the language server). */
  catalog(): RecordCatalog;
  /** The catalog whose byte engine scans files (the user's records; the CLI's: all of them). */
  scanCatalog(): Catalog;
  /** Every record (list_repos, get_error by repo + slug). */
  records(): readonly ErrorRecord[];
  sources(): SourceInfo[];
  /** Relative paths are resolved against this folder. */
  cwd: string;
  /** The full record of a lightweight dataset one (fetched once, cached). */
  complete?(r: ErrorRecord): Promise<ErrorRecord>;
  /** The ErrLookup dataset (undefined: not enabled for this server). */
  dataset?: DatasetAccess;
  /** After a refresh that changed the cache. */
  reload?(): Promise<void>;
  /** A sentence get_error adds about a record (e.g. how to get a dataset record's explanation). */
  note?(r: ErrorRecord): string | undefined;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: ObjectSchema;
  run(env: AgentEnv, args: Record<string, unknown>, signal?: { cancelled(): boolean }): Promise<ToolResult>;
}

export const MAX_TEXT = 2 * 1024 * 1024;
const MAX_LIMIT = 100;
/** Records explained in full by explain_text (the others are listed). */
const EXPLAIN_FULL = 3;
const MAX_BLOCKS = 50;

export function errorResult(message: string): ToolResult {
  return { text: message, isError: true, data: { error: message } };
}

// ---------------------------------------------------------------------------------------------
// Shared pieces

function recordData(r: ErrorRecord): Record<string, unknown> {
  return {
    id: r.id,
    repo: r.repo,
    slug: r.slug,
    errorCode: r.errorCode,
    errorClass: r.errorClass,
    severity: r.severity,
    message: r.errorMessage,
    summary: firstSentence(r.documentation) || null,
  };
}

function heading(r: ErrorRecord): string {
  const name = r.errorClass || r.errorCode || r.errorType;
  return `**${escapeInline(name)}** ${codeSpan(r.errorMessage)} · ${escapeInline(r.severity)} · ${escapeInline(r.repo)} · id ${codeSpan(r.id)}`;
}

function capturesText(caps: readonly { name: string; value: string }[]): string {
  return caps.map((c) => `${escapeInline(c.name)} = ${codeSpan(c.value)}`).join(', ');
}

function confidenceText(m: RecordMatch): string {
  return `${m.confidence.score.toFixed(2)} (${m.confidence.label}: ${m.confidence.reasons.slice(0, 2).map(escapeInline).join('; ')})`;
}

function plural(n: number, word: string): string {
  const many = /[^aeiou]y$/.test(word) ? `${word.slice(0, -1)}ies` : /(?:s|x|ch|sh)$/.test(word) ? `${word}es` : `${word}s`;
  return `${n.toLocaleString('en-US')} ${n === 1 ? word : many}`;
}

function sameRepo(r: ErrorRecord, repo: string | undefined): boolean {
  return !repo || r.repo.toLowerCase() === repo.toLowerCase();
}

function resolvePath(env: AgentEnv, p: string): string {
  if (p.startsWith('file://')) {
    try {
      return decodeURIComponent(new URL(p).pathname);
    } catch {
      return p;
    }
  }
  return path.resolve(env.cwd, p);
}

function ioMessage(file: string, e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  const why =
    code === 'ENOENT' ? 'no such file' : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EISDIR' ? 'it is a directory' : (e as Error).message;
  return `cannot read '${file}': ${why}${code ? ` (${code})` : ''}`;
}

// ---------------------------------------------------------------------------------------------
// Multi-line blocks

export interface MatchedBlock {
  /** 0-based first and last line of the block in the text. */
  startLine: number;
  endLine: number;
  lines: { line: number; matches: RecordMatch[] }[];
}

/**
 * Groups the matched lines of a text into blocks: one error usually spans several lines (a
 * traceback, a log entry and its context). Today: runs of consecutive matched lines.
 * (core/blocks will detect tracebacks and log entries; it replaces this one function.)
 */
export function groupBlocks(explained: readonly { line: number; matches: RecordMatch[] }[]): MatchedBlock[] {
  const out: MatchedBlock[] = [];
  for (const e of explained) {
    const last = out[out.length - 1];
    if (last && e.line === last.endLine + 1) {
      last.endLine = e.line;
      last.lines.push(e);
    } else out.push({ startLine: e.line, endLine: e.line, lines: [e] });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The tools

const searchError: ToolDefinition = {
  name: 'search_error',
  title: 'Search error records',
  description:
    'Find the known error records that explain an error message or log line (exact pattern match first, with captured values and a confidence; then by error code, slug and words). Use it on any error text you see; then get_error for fixes.',
  inputSchema: {
    type: 'object',
    properties: {
      message: { type: 'string', description: 'The error message or log line(s), as printed.', minLength: 1, maxLength: 100_000 },
      repo: { type: 'string', description: 'Only records of this repository (owner/name), e.g. "psf/requests".', minLength: 1, maxLength: 200 },
      limit: { type: 'integer', description: 'At most this many records (default 5).', minimum: 1, maximum: MAX_LIMIT, default: 5 },
    },
    required: ['message'],
    additionalProperties: false,
  },
  async run(env, args) {
    const message = args['message'] as string;
    const repo = args['repo'] as string | undefined;
    const limit = (args['limit'] as number | undefined) ?? 5;
    if (!message.trim()) return errorResult("'message' must contain some text");
    const catalog = env.catalog();
    const results: Record<string, unknown>[] = [];
    const lines: string[] = [];
    const seen = new Set<string>();
    for (const { line, matches } of catalog.explainText(message)) {
      for (const m of matches) {
        if (results.length >= limit) break;
        if (seen.has(m.record.id) || !sameRepo(m.record, repo)) continue;
        seen.add(m.record.id);
        const caps = m.match.captures.map((c) => ({ name: c.name, value: c.value }));
        results.push({
          ...recordData(m.record),
          kind: 'match',
          line: line + 1,
          matchedText: m.match.text,
          captures: caps,
          confidence: { score: m.confidence.score, label: m.confidence.label, reasons: m.confidence.reasons },
        });
        lines.push(
          `${results.length}. ${heading(m.record)}\n   exact match on line ${line + 1}: ${codeSpan(m.match.text)}; confidence ${confidenceText(m)}` +
            (caps.length ? `\n   captured: ${capturesText(caps)}` : '') +
            (firstSentence(m.record.documentation) ? `\n   ${escapeInline(firstSentence(m.record.documentation))}` : ''),
        );
      }
    }
    if (results.length < limit) {
      // more than asked for: hits of other repositories are dropped below
      for (const h of catalog.search(message, repo ? Math.min(200, limit * 20) : limit + seen.size)) {
        if (results.length >= limit) break;
        if (seen.has(h.record.id) || !sameRepo(h.record, repo)) continue;
        seen.add(h.record.id);
        results.push({ ...recordData(h.record), kind: h.kind, score: h.score });
        const how = h.kind === 'fuzzy' ? 'similar words' : h.kind === 'pattern' ? 'pattern' : `same ${h.kind}`;
        lines.push(`${results.length}. ${heading(h.record)}\n   found by ${how} (no exact match of the text)` + (firstSentence(h.record.documentation) ? `\n   ${escapeInline(firstSentence(h.record.documentation))}` : ''));
      }
    }
    const where = repo ? ` in ${escapeInline(repo)}` : '';
    if (!results.length) return { text: `No known error record${where} matches this message.`, data: { results: [] } };
    const exact = results.filter((r) => r['kind'] === 'match').length;
    const head = `${plural(results.length, 'record')}${where} (${exact} exact match${exact === 1 ? '' : 'es'}):`;
    return { text: `${head}\n\n${lines.join('\n')}\n\nget_error {"id": "…"} gives a record's explanation, fixes, raise site and snippets.`, data: { results } };
  },
};

const getError: ToolDefinition = {
  name: 'get_error',
  title: 'Get an error record',
  description:
    'The full explanation of one error record as Markdown: what it means, why it happens, how to fix it, the source code that raises it and handling snippets. Pass the id from search_error, or repo + slug.',
  inputSchema: {
    type: 'object',
    properties: {
      id: { type: 'string', description: 'Record id (16 hex digits), as returned by search_error.', minLength: 1, maxLength: 200 },
      repo: { type: 'string', description: 'Repository (owner/name); with slug instead of id.', minLength: 1, maxLength: 200 },
      slug: { type: 'string', description: "The record's slug within repo.", minLength: 1, maxLength: 300 },
    },
    additionalProperties: false,
  },
  async run(env, args) {
    const id = args['id'] as string | undefined;
    const repo = args['repo'] as string | undefined;
    const slug = args['slug'] as string | undefined;
    if (id === undefined && (repo === undefined || slug === undefined)) return errorResult("get_error needs 'id', or both 'repo' and 'slug'");
    let r: ErrorRecord | undefined;
    if (id !== undefined) {
      r = env.catalog().get(id.trim());
      if (r && r.id !== id.trim() && r.slug !== id.trim()) r = undefined; // get() also takes error codes; an id is an id
    } else {
      const want = repo!.toLowerCase();
      r = env.records().find((x) => x.slug === slug && x.repo.toLowerCase() === want);
    }
    if (!r) return errorResult(id !== undefined ? `no record with id '${id}' (search_error finds ids)` : `no record '${slug}' in ${repo} (search_error finds records)`);
    if (env.complete) r = await env.complete(r);
    const note = env.note?.(r);
    return { text: renderRecord(r) + (note ? `\n\n${note}` : ''), data: { record: r } };
  },
};

const listRepos: ToolDefinition = {
  name: 'list_repos',
  title: 'List record sources and repositories',
  description: 'Which error records are loaded: the record sources (bundled, dataset, files) and each repository with its number of records. Use it to see whether a library is covered.',
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  async run(env) {
    const counts = new Map<string, number>();
    for (const r of env.records()) counts.set(r.repo, (counts.get(r.repo) ?? 0) + 1);
    const repos = [...counts].map(([repo, records]) => ({ repo, records })).sort((a, b) => b.records - a.records || (a.repo < b.repo ? -1 : 1));
    const sources = env.sources();
    const text = [
      `${plural(env.records().length, 'record')} of ${plural(repos.length, 'repository')} loaded.`,
      '',
      'Sources:',
      ...sources.map((s) => `- ${s.origin}: ${codeSpan(s.path)} (${plural(s.records, 'record')})`),
      '',
      'Repositories:',
      ...repos.slice(0, 500).map((r) => `- ${escapeInline(r.repo)}: ${plural(r.records, 'record')}`),
      ...(repos.length > 500 ? [`- … and ${repos.length - 500} more`] : []),
    ].join('\n');
    return { text, data: { sources, repos } };
  },
};

const refreshDataset: ToolDefinition = {
  name: 'refresh_dataset',
  title: 'Refresh the ErrLookup dataset',
  description:
    "Checks ErrLookup's public dataset for a newer version and downloads it (the only tool that uses the network; works only after the user enabled the dataset on this machine). full: also download the full records of the selected repositories for offline use.",
  inputSchema: {
    type: 'object',
    properties: { full: { type: 'boolean', description: 'Also fetch the full records (explanations, fixes) of the selected repositories (default false).', default: false } },
    additionalProperties: false,
  },
  async run(env, args) {
    const ds = env.dataset;
    if (!ds) return errorResult('the ErrLookup dataset is not enabled for this server (start it with --dataset)');
    if (!ds.optedIn())
      return errorResult(
        'the ErrLookup dataset has not been downloaded on this machine, and nothing is fetched until the user opts in: ask the user to run `error-explainer dataset sync` (or, in VS Code, "Error Explainer: Download ErrLookup Dataset…")',
      );
    const r = await ds.refresh(args['full'] === true);
    if (r.status === 'failed') return errorResult(`the dataset refresh failed: ${r.reason ?? 'unknown reason'} (the cached copy is kept and still used)`);
    if (r.status === 'updated' || (r.repos?.length ?? 0) > 0) await env.reload?.();
    const text =
      (r.status === 'updated' ? `Updated the dataset to ${r.datasetVersion}.` : r.status === 'unchanged' ? `The dataset is up to date (${r.datasetVersion}).` : `Nothing done: ${r.reason ?? r.status}.`) +
      (r.repos?.length ? `\nFull records cached: ${r.repos.map((x) => `${escapeInline(x.repo)} (${x.records})`).join(', ')}.` : '');
    return { text, data: { ...r } };
  },
};

const explainText: ToolDefinition = {
  name: 'explain_text',
  title: 'Explain pasted output',
  description:
    'Explains pasted terminal or log output: the known errors in it, grouped into blocks of consecutive lines, each with its captured values, confidence and (for the best ones) the full explanation and fixes. Use it on command output that failed.',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string', description: 'The output, as printed (several lines are fine; at most 2 MiB — use scan_log for log files).', minLength: 1, maxLength: MAX_TEXT } },
    required: ['text'],
    additionalProperties: false,
  },
  async run(env, args) {
    return explainTextResult(env, args['text'] as string);
  },
};

/** explain_text's answer (also the VS Code tool's for text). */
export async function explainTextResult(env: AgentEnv, text: string): Promise<ToolResult> {
  const catalog = env.catalog();
  const blocks = groupBlocks(catalog.explainText(text));
  if (!blocks.length) {
    const hits = catalog.search(text, 3).filter((h) => h.kind !== 'fuzzy' || h.score >= 30);
    const hint = hits.length ? `\n\nClosest records by ${hits[0]!.kind === 'fuzzy' ? 'words' : hits[0]!.kind}:\n${hits.map((h, i) => `${i + 1}. ${heading(h.record)}`).join('\n')}` : '';
    return { text: `No known error in this text.${hint}`, data: { blocks: [], closest: hits.map((h) => recordData(h.record)) } };
  }
  const best = new Map<string, RecordMatch>();
  const out: string[] = [];
  const data: Record<string, unknown>[] = [];
  for (const b of blocks.slice(0, MAX_BLOCKS)) {
    const range = b.startLine === b.endLine ? `Line ${b.startLine + 1}` : `Lines ${b.startLine + 1}–${b.endLine + 1}`;
    out.push(`### ${range}`);
    const recs: Record<string, unknown>[] = [];
    for (const l of b.lines) {
      for (const m of l.matches) {
        const prev = best.get(m.record.id);
        if (!prev || m.confidence.score > prev.confidence.score) best.set(m.record.id, m);
        const caps = m.match.captures.map((c) => ({ name: c.name, value: c.value }));
        recs.push({ ...recordData(m.record), line: l.line + 1, matchedText: m.match.text, captures: caps, confidence: m.confidence.score, label: m.confidence.label });
        out.push(`- line ${l.line + 1}: ${heading(m.record)}; confidence ${confidenceText(m)}${caps.length ? `; captured ${capturesText(caps)}` : ''}`);
      }
    }
    data.push({ startLine: b.startLine + 1, endLine: b.endLine + 1, matches: recs });
  }
  if (blocks.length > MAX_BLOCKS) out.push(`\n… and ${blocks.length - MAX_BLOCKS} more blocks (scan_log summarizes long output).`);
  const ranked = [...best.values()].sort((a, b) => b.confidence.score - a.confidence.score);
  out.push('', `## Explanations (${Math.min(EXPLAIN_FULL, ranked.length)} of ${ranked.length} records, best first)`);
  for (const m of ranked.slice(0, EXPLAIN_FULL)) {
    const r = env.complete ? await env.complete(m.record) : m.record;
    out.push('', renderRecord(r, { match: { text: m.match.text, captures: m.match.captures } }));
  }
  if (ranked.length > EXPLAIN_FULL) out.push('', `Other records: ${ranked.slice(EXPLAIN_FULL).map((m) => codeSpan(m.record.id)).join(', ')} (get_error {"id": …}).`);
  return { text: out.join('\n'), data: { blocks: data, records: ranked.map((m) => m.record.id) } };
}

const scanLog: ToolDefinition = {
  name: 'scan_log',
  title: 'Scan a log file',
  description:
    'Scans a log file of any size (gigabytes are fine) or a text for known errors and returns them grouped by record: how often, first and last line, captured values, confidence, and each record explained once. Use it on a log file instead of reading it.',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', description: 'The log file (absolute, or relative to the working folder; file:// URIs work).', minLength: 1, maxLength: 4096 },
      text: { type: 'string', description: 'Or the log text itself (at most 2 MiB).', minLength: 1, maxLength: MAX_TEXT },
      minConfidence: { type: 'number', description: `Ignore matches below this confidence, 0..1 (default ${DEFAULT_MIN_CONFIDENCE}).`, minimum: 0, maximum: 1, default: DEFAULT_MIN_CONFIDENCE },
      limit: { type: 'integer', description: 'At most this many records (default 10); the rest is counted as "more".', minimum: 1, maximum: MAX_LIMIT, default: 10 },
    },
    additionalProperties: false,
  },
  async run(env, args, signal) {
    const p = args['path'] as string | undefined;
    const text = args['text'] as string | undefined;
    if ((p === undefined) === (text === undefined)) return errorResult("scan_log needs either 'path' or 'text' (one of them)");
    return scanLogResult(env, p !== undefined ? { path: p } : { text: text! }, {
      minConfidence: (args['minConfidence'] as number | undefined) ?? DEFAULT_MIN_CONFIDENCE,
      limit: (args['limit'] as number | undefined) ?? 10,
      ...(signal ? { cancelled: () => signal.cancelled() } : {}),
    });
  },
};

export interface ScanLogOptions {
  minConfidence: number;
  limit: number;
  cancelled?(): boolean;
}

/** scan_log's answer (also the VS Code tool's for files). */
export async function scanLogResult(env: AgentEnv, input: { path: string } | { text: string }, opts: ScanLogOptions): Promise<ToolResult> {
  const summary = new ScanSummary({ minConfidence: opts.minConfidence, keepPerRecord: 6 });
  const catalog = env.scanCatalog();
  let name: string;
  let lines: number;
  let size: number;
  let truncatedLines = 0;
  if ('path' in input) {
    const file = resolvePath(env, input.path);
    name = file;
    try {
      const r = await scanFile(file, catalog, summary, opts.cancelled ? { cancelled: opts.cancelled } : {});
      if (r.cancelled) return errorResult(`the scan of '${file}' was cancelled`);
      lines = r.lines;
      size = r.size;
      truncatedLines = r.truncatedLines;
    } catch (e) {
      return errorResult(ioMessage(file, e));
    }
  } else {
    name = '(text)';
    size = Buffer.byteLength(input.text);
    const all = input.text.split(/\r\n|\r|\n/);
    lines = all.length;
    for (const { line, matches } of env.catalog().explainText(input.text)) summary.add(line + 1, matches, all[line] ?? '');
  }
  return formatScan(env, name, size, lines, truncatedLines, summary, opts);
}

async function formatScan(env: AgentEnv, name: string, size: number, lines: number, truncatedLines: number, summary: ScanSummary, opts: ScanLogOptions): Promise<ToolResult> {
  const groups = summary.result();
  const shown = groups.slice(0, opts.limit);
  const more = groups.length - shown.length;
  const mb = size >= 1 << 20 ? `${(size / (1 << 20)).toFixed(1)} MiB` : `${size.toLocaleString('en-US')} bytes`;
  const out: string[] = [
    `Scanned ${codeSpan(name)}: ${plural(lines, 'line')} (${mb}). ${plural(groups.length, 'known error')} matched ${plural(summary.matches, 'time')} at confidence ≥ ${opts.minConfidence}` +
      (summary.belowThreshold ? ` (${plural(summary.belowThreshold, 'weaker match')} not counted)` : '') +
      '.',
  ];
  if (truncatedLines) out.push(`${plural(truncatedLines, 'line')} longer than 16M characters were matched on their first 16M characters.`);
  const data: Record<string, unknown>[] = [];
  for (const [i, g] of shown.entries()) {
    out.push('', `## ${i + 1}. ${heading(g.record)}`, groupLine(g));
    for (const o of g.occurrences.slice(0, 3)) out.push(`- line ${o.line}: ${codeSpan(o.lineText || o.text)}${o.captures.length ? ` — ${capturesText(o.captures)}` : ''}`);
    const r = env.complete ? await env.complete(g.record) : g.record;
    out.push('', renderRecord(r, { summary: true }));
    data.push({
      ...recordData(g.record),
      count: g.count,
      firstLine: g.firstLine,
      lastLine: g.lastLine,
      confidence: g.confidence,
      occurrences: g.occurrences.map((o) => ({ line: o.line, text: o.text, captures: o.captures, confidence: o.confidence })),
    });
  }
  if (more > 0) out.push('', `… and ${plural(more, 'more record')} (raise 'limit' to see them).`);
  return {
    text: out.join('\n'),
    data: { file: name, size, lines, matches: summary.matches, belowThreshold: summary.belowThreshold, records: data, more, truncatedLines },
  };
}

function groupLine(g: RecordGroup): string {
  const where = g.firstLine === g.lastLine ? `line ${g.firstLine}` : `lines ${g.firstLine}–${g.lastLine}`;
  return `${plural(g.count, 'time')}, ${where}, best confidence ${g.confidence.toFixed(2)}`;
}

/** Every tool, in the order agents see them. */
export const TOOLS: readonly ToolDefinition[] = [searchError, getError, explainText, scanLog, listRepos, refreshDataset];

/** Runs a tool by name with unchecked arguments: unknown tools and bad arguments are error results. */
export async function callTool(env: AgentEnv, name: string, args: unknown, signal?: { cancelled(): boolean }): Promise<ToolResult> {
  const tool = TOOLS.find((t) => t.name === name);
  if (!tool) return errorResult(`unknown tool '${name}' (tools: ${TOOLS.map((t) => t.name).join(', ')})`);
  const problem = argumentProblem(tool.inputSchema, args);
  if (problem) return errorResult(`${name}: ${problem}`);
  try {
    return await tool.run(env, (args ?? {}) as Record<string, unknown>, signal);
  } catch (e) {
    return errorResult(`${name} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}
