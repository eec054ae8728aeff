// Log files on disk (protocol.ts ScanLogRequest & co.): a file of any size scanned with the byte
// engine (core/logScan) with progress in percent and cancellation, then optionally followed (only
// appended bytes are scanned; truncation and rotation rescan). Also the line window of a file too
// large for the editor, and the language-model tool's answer (core/agent). Plain params in, plain
// results out; server.ts owns the connection and hands in the progress reporter.
import * as path from 'node:path';
import { Catalog, CompositeCatalog, type RecordCatalog } from '../../core/catalog';
import { DEFAULT_MIN_CONFIDENCE } from '../../core/confidence';
import { type AgentEnv, explainTextResult, MAX_TEXT, scanLogResult } from '../../core/agent/tools';
import { LogFollower } from '../../core/logScan/file';
import { ScanSummary } from '../../core/logScan/summary';
import { readLineWindow } from '../../core/logScan/window';
import type { AgentExplainParams, AgentExplainResult, LogLinesParams, LogLinesResult, ScanLogParams, ScanLogResult } from '../../protocol';
import { occurrenceDto, summary } from './dto';
import { errorText, type Logger } from '../runSafe';
import { pathToUri, uriToPath } from '../uri';

/** Groups sent per result (the summary keeps all; the rest is counted in moreGroups). */
export const MAX_GROUPS = 500;
/** Followed scans at once per server (the oldest is stopped past it). */
export const MAX_SCANS = 16;
const UPDATE_INTERVAL_MS = 250;

/** What server.ts hands in for $/progress (a WorkDoneProgressReporter's shape). */
export interface ProgressSink {
  begin(title: string, percentage?: number, message?: string, cancellable?: boolean): void;
  report(percentage: number, message?: string): void;
  done(): void;
}

/** The catalog whose byte engine scans files: the user's records (bundled, files, workspace). */
export function scanCatalogOf(c: RecordCatalog): Catalog {
  if (c instanceof CompositeCatalog) return c.user;
  if (c instanceof Catalog) return c;
  return new Catalog([]);
}

function filePath(params: { path?: unknown; uri?: unknown }): string | undefined {
  if (typeof params.uri === 'string') return uriToPath(params.uri);
  if (typeof params.path === 'string' && params.path) return params.path.startsWith('file:') ? uriToPath(params.path) : path.resolve(params.path);
  return undefined;
}

function ioError(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  return (e as Error).message;
}

interface Scan {
  id: number;
  file: string;
  follower: LogFollower;
  /** Was followed (then 'stopped' means stopped by the user, not done). */
  followed: boolean;
  lastSent: number;
  timer: NodeJS.Timeout | undefined;
}

export class LogScans {
  private readonly scans = new Map<number, Scan>();
  private nextId = 1;

  constructor(
    private readonly catalog: () => RecordCatalog,
    private readonly sendUpdate: (r: ScanLogResult) => void,
    private readonly log: Logger,
  ) {}

  /** Scans (and with follow, keeps following) a file. Never throws: failures are results with error. */
  async scan(params: ScanLogParams, progress: ProgressSink | undefined, cancelled: () => boolean): Promise<ScanLogResult> {
    const file = filePath(params ?? {});
    const minConfidence = typeof params?.minConfidence === 'number' && params.minConfidence >= 0 && params.minConfidence <= 1 ? params.minConfidence : DEFAULT_MIN_CONFIDENCE;
    if (!file) return failed('', minConfidence, 'scanLog needs a file path or file: URI');
    const id = this.nextId++;
    const name = path.basename(file);
    let lastPct = -1;
    const follower = new LogFollower(file, scanCatalogOf(this.catalog()), new ScanSummary({ minConfidence }), {
      follow: params.follow === true,
      pollMs: Math.max(100, typeof params.pollMs === 'number' ? params.pollMs : 1000),
      cancelled,
      onProgress: (done, total) => {
        const pct = total > 0 ? Math.floor((100 * done) / total) : 100;
        if (pct !== lastPct) {
          lastPct = pct;
          progress?.report(pct, `${name}: ${pct} %`);
        }
      },
      onUpdate: () => this.changed(id),
      onError: (e) => this.log.warn(`following ${file} failed: ${errorText(e)}`),
    });
    progress?.begin(`Scanning ${name}`, 0, undefined, true);
    try {
      await follower.start();
    } catch (e) {
      return failed(file, minConfidence, `cannot read '${file}': ${ioError(e)}`);
    } finally {
      progress?.done();
    }
    const scan: Scan = { id, file, follower, followed: follower.st.state === 'following', lastSent: 0, timer: undefined };
    if (follower.st.state === 'following') {
      this.scans.set(id, scan);
      if (this.scans.size > MAX_SCANS) this.stop(this.scans.keys().next().value!);
    }
    return this.result(scan);
  }

  stop(scanId: number): ScanLogResult | null {
    const s = this.scans.get(scanId);
    if (!s) return null;
    this.scans.delete(scanId);
    if (s.timer) clearTimeout(s.timer);
    s.follower.stop();
    return this.result(s);
  }

  dispose(): void {
    for (const id of [...this.scans.keys()]) this.stop(id);
  }

  /** Follower changes, sent at most every UPDATE_INTERVAL_MS per scan (the last one always). */
  private changed(id: number): void {
    const s = this.scans.get(id);
    if (!s || s.timer) return;
    const wait = Math.max(0, s.lastSent + UPDATE_INTERVAL_MS - Date.now());
    s.timer = setTimeout(() => {
      s.timer = undefined;
      if (!this.scans.has(id)) return;
      s.lastSent = Date.now();
      this.sendUpdate(this.result(s));
    }, wait);
  }

  private result(s: Scan): ScanLogResult {
    const f = s.follower;
    const groups = f.summary.result();
    const state = f.st.state === 'scanning' ? 'following' : f.st.state;
    return {
      scanId: s.id,
      path: s.file,
      uri: pathToUri(s.file),
      size: f.st.size,
      scannedBytes: f.st.offset,
      lines: f.st.lines,
      matches: f.summary.matches,
      belowThreshold: f.summary.belowThreshold,
      minConfidence: f.summary.minConfidence,
      groups: groups.slice(0, MAX_GROUPS).map((g) => ({
        record: summary(g.record),
        count: g.count,
        firstLine: g.firstLine,
        lastLine: g.lastLine,
        confidence: g.confidence,
        occurrences: g.occurrences.map(occurrenceDto),
        omitted: g.omitted,
      })),
      moreGroups: Math.max(0, groups.length - MAX_GROUPS),
      // a scan without follow ends 'stopped' in the follower: that is 'done'
      state: state === 'stopped' && !s.followed ? 'done' : state,
      resets: f.st.resets,
      lastReset: f.st.lastReset ?? null,
      truncatedLines: f.st.truncatedLines,
    };
  }
}

function failed(file: string, minConfidence: number, error: string): ScanLogResult {
  return {
    scanId: -1,
    path: file,
    uri: file ? pathToUri(file) : '',
    size: 0,
    scannedBytes: 0,
    lines: 0,
    matches: 0,
    belowThreshold: 0,
    minConfidence,
    groups: [],
    moreGroups: 0,
    state: 'failed',
    resets: 0,
    lastReset: null,
    truncatedLines: 0,
    error,
  };
}

/** Lines around one line of a file (the read-only window for files the editor will not load). */
export function logLines(params: LogLinesParams): LogLinesResult {
  const file = filePath(params ?? {});
  const line = Number(params?.line);
  if (!file || !Number.isInteger(line) || line < 1) return { firstLine: 1, lines: [], atEnd: true, error: 'logLines needs a path and a line number ≥ 1' };
  const clamp = (v: unknown, d: number) => Math.max(0, Math.min(5000, Number.isFinite(Number(v)) ? Math.floor(Number(v)) : d));
  try {
    return readLineWindow(file, line, clamp(params.before, 200), clamp(params.after, 300));
  } catch (e) {
    return { firstLine: line, lines: [], atEnd: true, error: `cannot read '${file}': ${ioError(e)}` };
  }
}

/** The errorExplainer_explain language-model tool: explain_text for text, scan_log for a file. */
export async function agentExplain(env: AgentEnv, params: AgentExplainParams, cancelled: () => boolean): Promise<AgentExplainResult> {
  const text = typeof params?.text === 'string' && params.text.trim() ? params.text : undefined;
  const p = typeof params?.path === 'string' && params.path.trim() ? params.path.trim() : undefined;
  if (!text && !p) return { markdown: 'Give the error text (`text`) or a log file (`path`).', isError: true };
  if (text && text.length > MAX_TEXT) return { markdown: `The text is too long (${text.length} characters, at most ${MAX_TEXT}); pass the log file's path instead.`, isError: true };
  const r = text ? await explainTextResult(env, text) : await scanLogResult(env, { path: p! }, { minConfidence: DEFAULT_MIN_CONFIDENCE, limit: 10, cancelled });
  return { markdown: r.text, ...(r.isError ? { isError: true } : {}) };
}
