// Output formats of `scan`: text (for people: one problem line per match, the captures, then one
// explanation per record rendered for the terminal), markdown (the same, explanations as raw
// Markdown), json (JSON Lines), count, sarif. Each reporter streams: it writes as matches arrive
// and keeps only per-record state (bounded by the number of records).
// A text problem line is `file:line:col: severity: message [code]` (core/problem: the error as the
// log shows it and the record's short code), the shape the `$error-explainer` problem matcher
// (package.json) reads; everything else is indented, so the matcher never takes it for a problem.
// Its file is relative to the current directory (problemPath), so the matcher needs no lookup.
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { RecordMatch } from '../core/catalog';
import { problemCode, problemMessage } from '../core/problem';
import type { ErrorRecord, Severity } from '../core/record';
import { escapeInline, firstSentence, oneLine, renderRecord, safeGithubUrl } from '../core/render';
import type { Output } from './output';
import { markdownToTerminal, paint, severityCodes, type Style, wrap } from './terminal';

export const FORMATS = ['text', 'markdown', 'json', 'count', 'sarif'] as const;
export type Format = (typeof FORMATS)[number];

export interface MatchEvent {
  /** The file as given on the command line (text and markdown: its problemPath); `<stdin>` for `-`. */
  file: string;
  /** 1-based line number. */
  line: number;
  m: RecordMatch;
  /** The match is on the exception line of an error block (a traceback, a stack trace). */
  block?: {
    kind: string;
    /** 1-based, inclusive. */
    firstLine: number;
    lastLine: number;
    errorClass?: string;
    /** The frame that raised it. */
    raisedAt?: { file: string; line: number; column?: number; function?: string };
  };
}

/** What a scan counted: lines read, matches reported, and matches below --min-confidence (not reported). */
export interface Totals {
  lines: number;
  matches: number;
  below: number;
  minConfidence: number;
}

export interface Reporter {
  begin(): void;
  match(e: MatchEvent): void;
  /** A reported match counted by its record only (the record's index in the catalog; a reporter
   * that prints nothing of the match has it: the scan then makes no match object). */
  tally?(entry: number): void;
  /** After all files: totals. */
  end(totals: Totals): void;
}

export interface ReporterOptions {
  version: string;
  /** text / markdown: print an explanation per distinct record after the match lines. */
  explain: boolean;
  /** text: colours and width (default: no colour, 80 columns). */
  style?: Style;
  /** count: the id of the record at an index of the catalog (what tally() counts by). */
  idOf?: (entry: number) => string;
  /** count: no two indexes have the same id (a catalog's records are merged by id): tallies need no
   * merging by id when no match event came. */
  idsUnique?: boolean;
}

export function createReporter(format: Format, out: Output, opts: ReporterOptions): Reporter {
  switch (format) {
    case 'json':
      return new JsonReporter(out);
    case 'count':
      return new CountReporter(out, opts.idOf, opts.idsUnique === true);
    case 'sarif':
      return new SarifReporter(out, opts.version);
    case 'markdown':
      return new TextReporter(out, opts.explain, undefined);
    default:
      return new TextReporter(out, opts.explain, opts.style ?? { color: false, width: 80 });
  }
}

/**
 * The file of a text problem line: relative to `cwd` (`logs/app.log`, `../../var/log/syslog`), the
 * absolute path only when there is no relative one (another drive on Windows). The
 * `$error-explainer` matcher resolves it against the task's cwd (`["relative", "${cwd}"]`). It does
 * not use `autoDetect`: VS Code looks each autoDetect file up one match after the other and stops
 * 100 ms after the process exits, dropping the problems still waiting for their lookup (most of
 * them on a busy or remote machine; test/e2e/suite-editor.ts runs such a task).
 */
export function problemPath(file: string, cwd: string): string {
  const abs = path.resolve(cwd, file);
  const rel = path.relative(path.resolve(cwd), abs);
  return rel && !path.isAbsolute(rel) ? rel : abs;
}

/** The problem line of a match: `file:line:col: severity: message [code]` (styled when colour is on). */
export function problemLine(e: MatchEvent, style: Pick<Style, 'color'> = { color: false }): string {
  const { record, match } = e.m;
  const where = `${oneLine(e.file)}:${e.line}:${match.start + 1}:`;
  const sev = paint(style, record.severity, ...severityCodes(record.severity));
  return `${paint(style, where, 'bold')} ${sev}: ${problemMessage(record, match.text)} ${paint(style, `[${problemCode(record)}]`, 'dim')}`;
}

/** Text of a SARIF message (SARIF 2.1.0 §3.11.6): `[text](target)` is an embedded link there, so
 * literal `[`, `]` and `\` are backslash-escaped and record or log text can never form one. */
export function sarifText(s: string): string {
  return s.replace(/[\\[\]]/g, '\\$&');
}

/** The JSON Lines object of one match (keys in the documented order). */
export function matchJson(e: MatchEvent): Record<string, unknown> {
  const { record, match } = e.m;
  return {
    file: e.file,
    line: e.line,
    column: match.start + 1,
    endColumn: match.end + 1,
    id: record.id,
    slug: record.slug,
    repo: record.repo,
    errorCode: record.errorCode,
    severity: record.severity,
    text: match.text,
    captures: match.captures.map((c) => ({ name: c.name, value: c.value })),
    confidence: { score: e.m.confidence.score, label: e.m.confidence.label, reasons: e.m.confidence.reasons },
    ...(e.block ? { block: e.block } : {}),
  };
}

class JsonReporter implements Reporter {
  constructor(private readonly out: Output) {}
  begin(): void {}
  match(e: MatchEvent): void {
    this.out.write(JSON.stringify(matchJson(e)) + '\n');
  }
  end(): void {}
}

class CountReporter implements Reporter {
  private readonly byRecord = new Map<string, number>();
  /** tally()'s counts by record index (a string-keyed map per match cost ~1 µs: 60 ms at 100k
   * records on a 200 MB log), merged into byRecord by id at the end. */
  private counts = new Int32Array(0);
  constructor(
    private readonly out: Output,
    private readonly idOf?: (entry: number) => string,
    private readonly idsUnique = false,
  ) {}
  begin(): void {}
  match(e: MatchEvent): void {
    this.add(e.m.record.id, 1);
  }
  tally(entry: number): void {
    if (entry >= this.counts.length) {
      const grown = new Int32Array(Math.max(entry + 1, this.counts.length * 2, 1024));
      grown.set(this.counts);
      this.counts = grown;
    }
    this.counts[entry]!++;
  }
  private add(id: string, count: number): void {
    this.byRecord.set(id, (this.byRecord.get(id) ?? 0) + count);
  }
  end(t: Totals): void {
    const head = `${JSON.stringify({ lines: t.lines, matches: t.matches, belowConfidence: t.below }).slice(0, -1)},"byRecord":{`;
    // tallies only, each index its own id: grouped straight from them, with no map by id (at 100k
    // records and 24k counted ones, the map took 10-30 ms more of a scan's end, run once, cold)
    if (this.byRecord.size === 0 && this.idsUnique) {
      this.out.write(`${head}${membersByCount(this.tallied())}}}\n`);
      return;
    }
    for (const [id, n] of this.tallied()) this.add(id, n);
    this.out.write(`${head}${membersByCount(this.byRecord)}}}\n`);
  }

  /** The tallies as (id, count), by index. */
  private *tallied(): Generator<[string, number]> {
    const counts = this.counts;
    for (let e = 0; e < counts.length; e++) {
      const n = counts[e]!;
      if (n === 0) continue;
      if (!this.idOf) throw new Error('count: tally() needs idOf');
      yield [this.idOf(e), n];
    }
  }
}

/** byRecord's `"id":n` members: most matched first, then by id (UTF-16 order, as the default
 * sort), the same text whichever way the scan found the matches. Grouped by count, each group
 * sorted natively, and written member by member: an object would put keys that read as array
 * indices first, whatever their count. */
function membersByCount(counted: Iterable<[string, number]>): string {
  const byCount = new Map<number, string[]>();
  for (const [id, n] of counted) {
    const group = byCount.get(n);
    if (group) group.push(id);
    else byCount.set(n, [id]);
  }
  let out = '';
  for (const n of [...byCount.keys()].sort((a, b) => b - a)) {
    const group = byCount.get(n)!.sort();
    for (let i = 0; i < group.length; i++) out += `${out ? ',' : ''}${JSON.stringify(group[i])}:${n}`;
  }
  return out;
}

interface Seen {
  record: ErrorRecord;
  count: number;
  first: MatchEvent;
}

class TextReporter implements Reporter {
  private readonly seen = new Map<string, Seen>();
  /** `style`: render explanations for a terminal; undefined: raw Markdown (--format markdown). */
  constructor(
    private readonly out: Output,
    private readonly explain: boolean,
    private readonly style: Style | undefined,
  ) {}
  begin(): void {}
  /** Colour on: the painted SGR sequences pass (Output.writeStyled); off: every control is escaped. */
  private emit(s: string): void {
    if (this.style?.color) this.out.writeStyled(s);
    else this.out.write(s);
  }
  match(e: MatchEvent): void {
    const { record, match } = e.m;
    const style = this.style ?? { color: false };
    let s = problemLine(e, style) + '\n';
    for (const c of match.captures) s += `    ${paint(style, oneLine(c.name), 'dim')} = ${JSON.stringify(c.value)}\n`;
    if (e.block) s += `    ${blockSentence(e.block)}\n`;
    this.emit(s);
    const prev = this.seen.get(record.id);
    if (prev) prev.count++;
    else this.seen.set(record.id, { record, count: 1, first: e });
  }
  end(t: Totals): void {
    const n = this.seen.size;
    const below = t.below ? ` (${t.below} below confidence ${t.minConfidence} not shown: --min-confidence 0 shows them)` : '';
    const summary = `${t.matches} match${t.matches === 1 ? '' : 'es'} of ${n} record${n === 1 ? '' : 's'} in ${t.lines} line${t.lines === 1 ? '' : 's'}${below}`;
    if (!this.explain || n === 0) {
      this.emit(`\n${summary}\n`);
      return;
    }
    this.emit(`\n${summary}. Explanations:\n`);
    const style = this.style;
    for (const { record, count, first } of this.seen.values()) {
      const where = `${first.file}:${first.line}:${first.m.match.start + 1}`;
      const md = renderRecord(record, {
        summary: true,
        match: { text: first.m.match.text, captures: first.m.match.captures },
        confidence: first.m.confidence,
      });
      if (!style) {
        this.emit(`\n---\n\n**${escapeInline(record.slug)}** (${count}×, first at ${escapeInline(where)})\n\n${md}`);
        continue;
      }
      const rule = paint(style, '─'.repeat(Math.min(72, style.width)), 'dim');
      const head = wrap(`${paint(style, oneLine(record.slug), 'bold', ...severityCodes(record.severity))}  (${count}×, first at ${oneLine(where)})`, style.width, '', '  ').join('\n');
      this.emit(`\n${rule}\n${head}\n${rule}\n\n`);
      this.emit(markdownToTerminal(md, style, '  '));
    }
  }
}

const KIND_NAMES: Record<string, string> = { python: 'Python traceback', java: 'Java stack trace', node: 'JavaScript stack', go: 'Go panic', rust: 'Rust panic' };

/** `in a Python traceback (lines 3-9), raised at /usr/lib/python3.11/shutil.py:1105 in make_archive` */
export function blockSentence(b: NonNullable<MatchEvent['block']>): string {
  let s = `in a ${KIND_NAMES[b.kind] ?? b.kind} (lines ${b.firstLine}-${b.lastLine})`;
  if (b.raisedAt) s += `, raised at ${oneLine(b.raisedAt.file)}:${b.raisedAt.line}${b.raisedAt.function ? ` in ${oneLine(b.raisedAt.function)}` : ''}`;
  return s;
}

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = {
  critical: 'error',
  error: 'error',
  warning: 'warning',
  info: 'note',
};

/** SARIF artifact URI of a scanned file: relative paths stay relative (forward slashes). */
export function artifactUri(file: string): string {
  if (file === '<stdin>') return 'stdin';
  if (path.isAbsolute(file)) return pathToFileURL(file).href;
  return file
    .split(/[\\/]+/)
    .map((seg) => encodeURIComponent(seg))
    .join('/');
}

/**
 * SARIF 2.1.0, streamed: `results` are written as they come; `tool.driver.rules` (only the records
 * that matched, indexed in order of first match) is written at the end — JSON key order is free.
 */
class SarifReporter implements Reporter {
  private readonly ruleIndex = new Map<string, number>();
  private readonly rules: ErrorRecord[] = [];
  private count = 0;
  constructor(
    private readonly out: Output,
    private readonly version: string,
  ) {}
  begin(): void {
    this.out.write('{"$schema":"https://json.schemastore.org/sarif-2.1.0.json","version":"2.1.0","runs":[{"results":[');
  }
  match(e: MatchEvent): void {
    const { record, match } = e.m;
    let idx = this.ruleIndex.get(record.id);
    if (idx === undefined) {
      idx = this.rules.length;
      this.ruleIndex.set(record.id, idx);
      this.rules.push(record);
    }
    const sentence = firstSentence(record.documentation);
    const result = {
      ruleId: record.id,
      ruleIndex: idx,
      level: LEVEL[record.severity] ?? 'warning',
      message: { text: sarifText(`${problemMessage(record, match.text)}${sentence ? ` — ${sentence}` : ''}`) },
      rank: Math.round(Math.max(0, Math.min(1, e.m.confidence.score)) * 100),
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: artifactUri(e.file) },
            region: { startLine: e.line, startColumn: match.start + 1, endColumn: match.end + 1, snippet: { text: match.text } },
          },
        },
      ],
      properties: { captures: match.captures.map((c) => ({ name: c.name, value: c.value })), confidence: e.m.confidence.label, ...(e.block ? { block: e.block } : {}) },
    };
    this.out.write((this.count++ ? ',' : '') + JSON.stringify(result));
  }
  end(): void {
    const rules = this.rules.map((r) => {
      const helpUri = safeGithubUrl(r.githubUrl);
      const solutions = r.solutions.map((s) => `- ${oneLine(s)}`).join('\n');
      return {
        id: r.id,
        name: oneLine(r.slug),
        shortDescription: { text: sarifText(oneLine(r.errorMessage) || r.id) },
        fullDescription: { text: sarifText(oneLine(r.documentation ?? '') || oneLine(r.errorMessage) || r.id) },
        ...(helpUri ? { helpUri } : {}),
        help: {
          text: sarifText([oneLine(r.documentation ?? ''), solutions].filter(Boolean).join('\n\n') || oneLine(r.errorMessage)),
          markdown: renderRecord(r, { summary: true }),
        },
        defaultConfiguration: { level: LEVEL[r.severity] ?? 'warning' },
        properties: {
          tags: [...new Set([...r.tags, r.repo, r.errorType])], // SARIF: unique strings
          precision: 'high',
          'problem.severity': LEVEL[r.severity] === 'note' ? 'recommendation' : (LEVEL[r.severity] ?? 'warning'),
          repo: r.repo,
          ...(r.errorClass ? { errorClass: r.errorClass } : {}),
          ...(r.errorCode ? { errorCode: r.errorCode } : {}),
        },
      };
    });
    const tool = {
      driver: {
        name: 'error-explainer',
        semanticVersion: this.version,
        version: this.version,
        rules,
      },
    };
    this.out.write(`],"columnKind":"utf16CodeUnits","tool":${JSON.stringify(tool)}}]}\n`);
  }
}
