// Diagnostics of log-like documents: one per record match, on the matched span. The message is the
// error as the log shows it (core/problem: the matched text with its captured values), the code a
// short name of the record (errorCode, else class, else a short id) linked to its GitHub source.
// errorExplainer.records.exclude drops records, diagnostics.severityOverrides changes their
// severity (before minSeverity applies). An error block (a traceback, a stack trace: core/blocks)
// whose exception line a record explains gets one diagnostic, with the block's lines as its range
// and its frames as related information (never one for its frames or the code it quotes). Served
// as pull
// diagnostics (textDocument/diagnostic, with result ids so an edit that changes no match answers
// "unchanged") or, for clients without pull support, pushed after a short debounce.
// Also: record-file problems as diagnostics on the record files themselves.
import {
  CancellationToken,
  Diagnostic,
  DiagnosticSeverity,
  DocumentDiagnosticReport,
  DocumentDiagnosticReportKind,
} from 'vscode-languageserver';
import type { ErrorBlock } from '../../core/blocks';
import { type RecordMatch, bestOfBlock, traceAt, traceChoice } from '../../core/catalog';
import { ErrorRecord, RecordProblem, Severity, severityRank } from '../../core/record';
import { problemCode, problemMessage } from '../../core/problem';
import { oneLine, safeGithubUrl } from '../../core/render';
import { DIAGNOSTIC_SOURCE, type ErrorExplainerSettings, type SeverityOverride } from '../../protocol';
import type { ServerContext } from '../context';
import { NO_MATCHES, type TrackedDocument } from '../state/documents';
import { scanDocument } from './matching';
import { pathToUri } from '../uri';
import { Cancelled, errorText } from '../runSafe';
import { isExcluded, severityOverride } from '../state/settings';

interface Report {
  resultId: string;
  items: Diagnostic[];
}
/** A report plus what is needed to extend it when only lines after its last match changed. */
interface ReportState extends Report {
  key: string;
  base: Diagnostic[];
  omitted: number;
  firstOmitted: Diagnostic['range'] | undefined;
  /** Last line that had a counted match (-1: none). */
  lastMatchedLine: number;
}
const reports = new WeakMap<TrackedDocument, ReportState>();

export function severityOf(s: Severity): DiagnosticSeverity {
  switch (s) {
    case 'critical':
    case 'error':
      return DiagnosticSeverity.Error;
    case 'warning':
      return DiagnosticSeverity.Warning;
    default:
      return DiagnosticSeverity.Information;
  }
}

function overrideSeverity(o: SeverityOverride): DiagnosticSeverity {
  switch (o) {
    case 'error':
      return DiagnosticSeverity.Error;
    case 'warning':
      return DiagnosticSeverity.Warning;
    case 'info':
      return DiagnosticSeverity.Information;
    default:
      return DiagnosticSeverity.Hint;
  }
}

/** Rank of an override for minSeverity (a hint counts as info). */
const OVERRIDE_RANK: Record<SeverityOverride, number> = { error: severityRank('error'), warning: severityRank('warning'), info: severityRank('info'), hint: severityRank('info') };

/** The severity a record's problems are shown with, and its rank for minSeverity. */
export function effectiveSeverity(settings: ErrorExplainerSettings, r: ErrorRecord): { severity: DiagnosticSeverity; rank: number } {
  const o = severityOverride(settings, r);
  return o ? { severity: overrideSeverity(o), rank: OVERRIDE_RANK[o] } : { severity: severityOf(r.severity), rank: severityRank(r.severity) };
}

/** The line-independent part of a record's diagnostic, cached per record until reload/file changes. */
type DiagnosticBody = Omit<Diagnostic, 'range' | 'message' | 'severity'>;
const bodies = new Map<string, { key: string; record: ErrorRecord; body: DiagnosticBody }>();

function diagnosticBody(ctx: ServerContext, r: ErrorRecord): DiagnosticBody {
  const key = `${ctx.epoch()}:${ctx.raiseSites.version}`;
  const hit = bodies.get(r.id);
  if (hit && hit.key === key && hit.record === r) return hit.body;
  const body: DiagnosticBody = {
    source: DIAGNOSTIC_SOURCE,
    code: problemCode(r),
    data: { id: r.id },
  };
  if (safeGithubUrl(r.githubUrl)) body.codeDescription = { href: r.githubUrl! };
  const site = ctx.raiseSites.resolve(r);
  if (site?.kind === 'local') {
    body.relatedInformation = [
      {
        location: { uri: site.uri, range: { start: { line: site.line, character: 0 }, end: { line: site.line, character: 0 } } },
        message: oneLine(`${r.errorClass || r.errorType} is raised here`),
      },
    ];
  }
  if (bodies.size > 50_000) bodies.clear();
  bodies.set(r.id, { key, record: r, body });
  return body;
}

export function toDiagnostic(ctx: ServerContext, m: RecordMatch, line: number, severity: DiagnosticSeverity = severityOf(m.record.severity)): Diagnostic {
  return {
    range: { start: { line, character: m.match.start }, end: { line, character: m.match.end } },
    severity,
    message: problemMessage(m.record, m.match.text),
    ...diagnosticBody(ctx, m.record),
  };
}

/** Frames listed as related information of a block's diagnostic, at most. */
export const MAX_RELATED_FRAMES = 20;

/**
 * The diagnostic of an error block explained by `m` (a match on its exception line `line`): the
 * block's lines are its range (from the start of its first line to the end of its last); its
 * related information is the record's raise site, then the frames from the raising one outwards,
 * each at its workspace file when there is one, else at the frame's line in this document.
 * `data.line` is the exception line (code actions look the match up there).
 */
export function blockDiagnostic(
  ctx: ServerContext,
  doc: TrackedDocument,
  block: ErrorBlock,
  m: RecordMatch,
  line: number,
  severity: DiagnosticSeverity = severityOf(m.record.severity),
): Diagnostic {
  const body = diagnosticBody(ctx, m.record);
  const related = [...(body.relatedInformation ?? []), ...frameInformation(ctx, doc, block)];
  const d: Diagnostic = {
    ...body,
    range: { start: { line: block.first, character: 0 }, end: { line: block.last, character: doc.line(block.last).length } },
    severity,
    message: problemMessage(m.record, m.match.text),
    data: { id: m.record.id, line },
  };
  if (related.length) d.relatedInformation = related;
  else delete d.relatedInformation;
  return d;
}

/** The frames of a block, the raising one first and then outwards (at most MAX_RELATED_FRAMES). */
export function framesOutward(block: ErrorBlock): number[] {
  const raising = Math.max(0, block.raising);
  return block.frames
    .map((_, i) => i)
    .sort((a, b) => Math.abs(a - raising) - Math.abs(b - raising) || a - b)
    .slice(0, MAX_RELATED_FRAMES);
}

function frameInformation(ctx: ServerContext, doc: TrackedDocument, block: ErrorBlock): NonNullable<Diagnostic['relatedInformation']> {
  return framesOutward(block).map((i) => {
    const f = block.frames[i]!;
    const file = ctx.fileRefs.resolve(f.file);
    const where = `${f.function ? `${f.function} ` : ''}(${f.file}:${f.line})`;
    return {
      location: file
        ? { uri: pathToUri(file), range: point(Math.max(0, f.line - 1), Math.max(0, (f.column ?? 1) - 1)) }
        : { uri: doc.uri, range: { start: { line: f.lineIndex, character: f.start }, end: { line: f.lineIndex, character: f.end } } },
      message: i === block.raising ? `raised here: ${where}` : `called from ${where}`,
    };
  });
}

function point(line: number, character: number): Diagnostic['range'] {
  return { start: { line, character }, end: { line, character } };
}

/** Diagnostics of a document with a result id; scans lines that have no cached matches yet. */
export async function documentDiagnostics(ctx: ServerContext, doc: TrackedDocument, token?: CancellationToken): Promise<Report> {
  const settings = await ctx.settingsFor(doc.uri);
  if (!settings.diagnostics.enabled || !(await ctx.isLogDocument(doc))) {
    return { resultId: `${ctx.epoch()}:off`, items: [] };
  }
  await scanDocument(ctx, doc, token);
  const resultId = `${ctx.epoch()}:${doc.generation}`;
  const prev = reports.get(doc);
  if (prev && prev.resultId === resultId) return prev;

  const minRank = severityRank(settings.diagnostics.minSeverity);
  const max = settings.diagnostics.maxPerFile;
  const minConfidence = settings.diagnostics.minConfidence;
  const key = `${ctx.epoch()}:${minRank}:${max}:${minConfidence}`; // the epoch changes with every settings change
  // Appending to a log: the lines up to the previous report's last match are unchanged and in
  // place, so extend that report from the first edited line instead of walking every line.
  // (not when the appended text starts with an exception chained to one above: that changes the
  // trace's problem, traceChoice)
  const incremental =
    prev !== undefined && prev.key === key && doc.diagnosticsDirtyFrom > prev.lastMatchedLine && doc.blocks.blocksIn(doc.diagnosticsDirtyFrom, doc.diagnosticsDirtyFrom + 1)[0]?.chain === undefined;
  const base = incremental ? prev.base.slice() : [];
  let omitted = incremental ? prev.omitted : 0;
  let firstOmitted = incremental ? prev.firstOmitted : undefined;
  let lastMatchedLine = incremental ? prev.lastMatchedLine : -1;
  const matches = doc.matches;
  const from = incremental ? doc.diagnosticsDirtyFrom : 0;
  const blocks = doc.blocks.blocksIn(from, matches.length);
  let bi = 0;
  for (let i = from; i < matches.length; i++) {
    let block = blocks[bi];
    while (block && block.last < i) block = blocks[++bi];
    if (block && block.first <= i) {
      // one diagnostic per trace (a block and the blocks chained to it): the best match of its
      // exception lines, core/catalog traceChoice (the exclude list and severity overrides as for
      // any match)
      const members = traceAt(blocks, bi);
      bi += members.length - 1;
      const pers = members.map((b) =>
        b.exceptions.map((e) =>
          (matches[e.lineIndex] ?? NO_MATCHES).filter((m) => m.confidence.score >= minConfidence && !isExcluded(settings, m.record) && effectiveSeverity(settings, m.record).rank <= minRank),
        ),
      );
      const bests = pers.map((per) => bestOfBlock(per)[0]);
      const k = traceChoice(members, bests);
      const best = k >= 0 ? bests[k] : undefined;
      if (best) {
        block = members[k]!;
        const per = pers[k]!;
        lastMatchedLine = members[members.length - 1]!.last;
        const line = block.exceptions[per.findIndex((ms) => ms.some((m) => m.record.id === best.record.id))]!.lineIndex;
        if (base.length < max) {
          try {
            base.push(blockDiagnostic(ctx, doc, block, best, line, effectiveSeverity(settings, best.record).severity));
          } catch (e) {
            ctx.log.error(`diagnostic for record ${best.record.id} failed: ${errorText(e)}`);
          }
        } else {
          omitted++;
          firstOmitted ??= { start: { line: block.first, character: 0 }, end: { line: block.last, character: doc.line(block.last).length } };
        }
      }
      i = members[members.length - 1]!.last;
      bi++;
      continue;
    }
    const ms = matches[i];
    if (!ms || ms.length === 0) continue;
    for (const m of ms) {
      // a match below the threshold is a possible explanation (the hover lists it), not a problem
      if (m.confidence.score < minConfidence || isExcluded(settings, m.record)) continue;
      const eff = effectiveSeverity(settings, m.record);
      if (eff.rank > minRank) continue;
      lastMatchedLine = i;
      if (base.length < max) {
        try {
          base.push(toDiagnostic(ctx, m, i, eff.severity));
        } catch (e) {
          ctx.log.error(`diagnostic for record ${m.record.id} failed: ${errorText(e)}`);
        }
      } else {
        omitted++;
        firstOmitted ??= { start: { line: i, character: m.match.start }, end: { line: i, character: m.match.end } };
      }
    }
  }
  const items = base.slice();
  if (omitted > 0 && firstOmitted) {
    items.push({
      range: firstOmitted,
      severity: DiagnosticSeverity.Information,
      source: DIAGNOSTIC_SOURCE,
      code: 'max-per-file',
      message: `${omitted} more error ${omitted === 1 ? 'match' : 'matches'} in this file not shown (errorExplainer.diagnostics.maxPerFile = ${max})`,
    });
  }
  const report: ReportState = { resultId, items, key, base, omitted, firstOmitted, lastMatchedLine };
  reports.set(doc, report);
  doc.diagnosticsDirtyFrom = Infinity;
  return report;
}

/** textDocument/diagnostic */
export async function pullDiagnostics(
  ctx: ServerContext,
  uri: string,
  previousResultId: string | undefined,
  token?: CancellationToken,
): Promise<DocumentDiagnosticReport> {
  const doc = ctx.documents.get(uri);
  if (!doc) return { kind: DocumentDiagnosticReportKind.Full, items: [] };
  const report = await documentDiagnostics(ctx, doc, token);
  if (previousResultId !== undefined && previousResultId === report.resultId) {
    return { kind: DocumentDiagnosticReportKind.Unchanged, resultId: report.resultId };
  }
  return { kind: DocumentDiagnosticReportKind.Full, resultId: report.resultId, items: report.items };
}

/** Push fallback: debounced per document; publishes only when the result id changed. */
export class DiagnosticsPusher {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly published = new Map<string, string>();

  constructor(
    private readonly ctx: ServerContext,
    private readonly publish: (uri: string, diagnostics: Diagnostic[], version: number | undefined) => void,
    private readonly delayMs = 100,
  ) {}

  schedule(uri: string): void {
    const t = this.timers.get(uri);
    if (t) clearTimeout(t);
    this.timers.set(
      uri,
      setTimeout(() => {
        this.timers.delete(uri);
        void this.run(uri);
      }, this.delayMs),
    );
  }

  scheduleAll(): void {
    for (const d of this.ctx.documents.all()) this.schedule(d.uri);
  }

  closed(uri: string): void {
    const t = this.timers.get(uri);
    if (t) clearTimeout(t);
    this.timers.delete(uri);
    if (this.published.delete(uri)) this.publish(uri, [], undefined);
  }

  private async run(uri: string): Promise<void> {
    const doc = this.ctx.documents.get(uri);
    if (!doc) return;
    try {
      const version = doc.version;
      const report = await documentDiagnostics(this.ctx, doc);
      if (this.ctx.documents.get(uri) !== doc) return;
      if (doc.version !== version) return this.schedule(uri);
      if (this.published.get(uri) === report.resultId) return;
      if (report.items.length === 0 && !this.published.has(uri)) {
        this.published.set(uri, report.resultId);
        return;
      }
      this.published.set(uri, report.resultId);
      this.publish(uri, report.items, doc.version);
    } catch (e) {
      if (!(e instanceof Cancelled)) this.ctx.log.error(`publishing diagnostics for ${uri} failed: ${errorText(e)}`);
    }
  }
}

/** Record-file problems grouped by file URI (RecordProblem is 1-based, LSP is 0-based). */
export function problemDiagnostics(problems: readonly RecordProblem[]): Map<string, Diagnostic[]> {
  const byUri = new Map<string, Diagnostic[]>();
  for (const p of problems) {
    const uri = /^[a-z][a-z0-9+.-]*:/i.test(p.file) && !/^[a-z]:[\\/]/i.test(p.file) ? p.file : pathToUri(p.file);
    let list = byUri.get(uri);
    if (!list) byUri.set(uri, (list = []));
    const line = Math.max(0, p.line - 1);
    const character = Math.max(0, p.column - 1);
    const endLine = Math.max(line, p.endLine - 1);
    const endCharacter = endLine === line ? Math.max(character, p.endColumn - 1) : Math.max(0, p.endColumn - 1);
    list.push({
      range: { start: { line, character }, end: { line: endLine, character: endCharacter } },
      severity: p.severity === 'error' ? DiagnosticSeverity.Error : p.severity === 'warning' ? DiagnosticSeverity.Warning : DiagnosticSeverity.Information,
      source: DIAGNOSTIC_SOURCE,
      code: p.path,
      message: p.message,
    });
  }
  return byUri;
}
