// `error-explainer scan`: stream log files (or stdin) through the catalog and report every match.
import { closeSync, createReadStream, fstatSync, openSync, read, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { defaultCacheDir, loadDatasetRecords } from '../../core/dataset';
import { SEVERITIES, type Severity, severityRank } from '../../core/record';
import { flag, parseArgs, stringOption, stringsOption } from '../args';
import { type Command, EXIT_FINDINGS, EXIT_OK, IoError, type Io, UsageError } from '../command';
import { type ByteSource, forEachMatchingLine } from '../../core/lineScan';
import { Output } from '../output';
import { checkReadable, formatProblem, loadCatalog } from '../records';
import { type RecordMatch, bestOfBlock, continuesTrace, matchInBlock, recordMatch, traceChoice } from '../../core/catalog';
import { DEFAULT_MIN_CONFIDENCE, type HitList, PlainScorer } from '../../core/confidence';
import type { ErrorBlock } from '../../core/blocks';
import { LineHits, type LineMatch, MatchEngine } from '../../core/engine';
import { BlockContext } from '../blockContext';
import { ScanRecords, recordsView } from '../../core/scanColumns';
import { FORMATS, type Format, type MatchEvent, createReporter, problemPath } from '../reporters';
import { COLOR_MODES, type ColorMode, terminalWidth, useColor } from '../terminal';
import { VERSION } from '../version';
import { cacheMinBytes, indexCacheDir } from '../../core/indexCache';

const USAGE = `error-explainer scan [--records PATH]... [--no-bundled] [--dataset [--cache DIR]] [--format text|markdown|json|count|sarif] [--color auto|always|never] [--min-confidence X] [--fail-on SEVERITY] [--no-explain] [--no-cache] [--threads 1|2] FILE...

Scans log files (\`-\` = stdin, reported as <stdin>) line by line, in constant memory, and reports
every match of an error record. Lines end at \\n, \\r\\n or a lone \\r; columns are 1-based
UTF-16 units of the original line (endColumn exclusive). In a traceback or stack trace the
exception line gets one match (the record its frames say raised it; json: "block"), and its
frames and quoted code none.

  --records PATH     also load records from PATH (file, .gz, JSON Lines, folder); repeatable
  --no-bundled       do not load the bundled records
  --dataset          also match with the cached ErrLookup dataset (see \`error-explainer dataset sync\`)
  --cache DIR        dataset cache folder (default as for \`dataset\`)
  --format F         text (default): file:line:col: severity: message [code] per match (the
                       file relative to the current directory, the error as the log shows it;
                       VS Code tasks read it with the $error-explainer problem matcher), its
                       captures, then one explanation per matched record
                       (see --no-explain), rendered for the terminal
                     markdown: the same, explanations as raw Markdown
                     json: JSON Lines, one object per match (with its confidence)
                     count: one JSON object {lines, matches, belowConfidence, byRecord} at the end
                       (byRecord: matches per record id, most matched first)
                     sarif: SARIF 2.1.0 for code scanning (rank = confidence 0-100)
  --color WHEN       text: auto (default: on a terminal, unless NO_COLOR is set), always, never
  --min-confidence X report only matches whose confidence is at least X, 0 to 1 (default
                       ${DEFAULT_MIN_CONFIDENCE}; 0 reports every match); the others are counted
                       (text summary, count's belowConfidence) and never reach --fail-on
  --fail-on SEV      exit 1 when a match has severity SEV or worse (critical|error|warning|info)
  --no-explain       text format: no explanations after the match lines
  --no-cache         neither read nor write the index cache (by default, record sets of 2 MB and
                       more keep their validated records and built index under
                       $ERROR_EXPLAINER_INDEX_CACHE or ~/.cache/error-explainer/index, keyed by
                       the content of the record files and this program's build)
  --threads N        1: scan in this thread only; 2 (the default where there are 2 or more
                       processors): a second thread scans part of each block of large inputs
                       (the same results)

Exit status: 0 ok, 1 --fail-on reached, 2 usage or I/O error.`;

/**
 * A regular file is read as it was when the scan opened it: bytes appended meanwhile (a log that is
 * still being written) are left for the next run, so the scan ends even when the writer is faster.
 * A file deleted while open is read to its end (POSIX keeps the open file).
 */
function openSnapshot(file: string): { input: Readable | ByteSource; close(): void } {
  const fd = openSync(file, 'r');
  let size: number | undefined;
  try {
    const st = fstatSync(fd);
    if (st.isFile()) size = st.size;
  } catch {
    // not a regular file we can size: read to its end
  }
  if (size === undefined) {
    // (a pipe, a device: its stream closes the descriptor)
    return { input: createReadStream('', { fd, highWaterMark: 1 << 20 }), close: () => undefined };
  }
  // a regular file: its bytes up to its size at open
  return fileSource(fd, size);
}

/**
 * The bytes of the file fd[0, size) as a ByteSource: each read goes right into the scan's buffer
 * (the scan starts the next one before it works on the bytes of the last: core/lineBlocks.ts
 * readAhead). close(): the descriptor is closed once no read is in flight.
 */
function fileSource(fd: number, size: number): { input: ByteSource; close(): void } {
  let pos = 0; // where the next read starts
  let closed = false;
  let inFlight: Promise<number> | undefined;
  const readInto = (buf: Uint8Array, at: number, n: number): Promise<number> => {
    if (closed || pos >= size) return Promise.resolve(0);
    const want = Math.min(n, size - pos);
    // (a read after a short one, a file that shrank, gets 0: the end)
    const p = new Promise<number>((resolve, reject) => read(fd, buf, at, want, pos, (e, got) => (e ? reject(e) : resolve(got))));
    pos += want;
    inFlight = p;
    return p;
  };
  return {
    input: { readInto },
    close: () => {
      if (closed) return;
      closed = true;
      const shut = () => closeSync(fd);
      if (inFlight) inFlight.then(shut, shut);
      else shut();
    },
  };
}

/** What a match event says about the block its line is in (1-based lines, as the scan counts). */
function blockInfo(b: ErrorBlock): NonNullable<MatchEvent['block']> {
  const f = b.frames[b.raising];
  return {
    kind: b.kind,
    firstLine: b.first,
    lastLine: b.last,
    ...(b.errorClass ? { errorClass: b.errorClass } : {}),
    ...(f ? { raisedAt: { file: f.file, line: f.line, ...(f.column !== undefined ? { column: f.column } : {}), ...(f.function ? { function: f.function } : {}) } } : {}),
  };
}

/** --min-confidence's value: a number in [0, 1] (DEFAULT_MIN_CONFIDENCE when not given). */
export function minConfidenceOption(v: string | undefined): number {
  if (v === undefined) return DEFAULT_MIN_CONFIDENCE;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1) throw new UsageError(`--min-confidence takes a number from 0 to 1, not '${v}'`);
  return n;
}

/** --color's value (auto when not given). */
export function threadsOption(v: string | undefined): number {
  if (v === undefined) return availableParallelism() >= 2 ? 2 : 1;
  if (v !== '1' && v !== '2') throw new UsageError(`--threads must be 1 or 2, not '${v}'`);
  return Number(v);
}

/** Inputs this large (or stdin, of unknown size) are scanned with a second thread: for less, the
 * thread's start (tens of milliseconds) costs more than it saves. */
const THREAD_MIN_BYTES = 8 << 20;

function worthAThread(files: string[]): boolean {
  let bytes = 0;
  for (const f of files) {
    if (f === '-') return true;
    try {
      bytes += statSync(f).size;
    } catch {
      // (reported when it is opened)
    }
  }
  return bytes >= THREAD_MIN_BYTES;
}

/** The scanner's helper thread (core/engine/wasmScan.ts ScanHelper runs `source` in it). */
function spawnThread(source: string, data: object): Worker {
  return new Worker(source, { eval: true, workerData: data });
}

export function colorOption(v: string | undefined): ColorMode {
  if (v === undefined) return 'auto';
  if (!COLOR_MODES.includes(v as ColorMode)) throw new UsageError(`unknown --color '${v}' (${COLOR_MODES.join(', ')})`);
  return v as ColorMode;
}

/** LineMatches held for a block's window, read as the scan's live hits (LineHits) are. */
function heldHits(ms: LineMatch[]): HitList & Pick<LineHits, 'matchesWhere'> {
  return {
    count: ms.length,
    entry: (i) => ms[i]!.entry,
    start: (i) => ms[i]!.start,
    end: (i) => ms[i]!.end,
    matchesWhere: (keep) => ms.filter((_, i) => keep(i)),
  };
}

export const scan: Command = {
  name: 'scan',
  summary: 'scan log files for known errors (text, json, count, sarif)',
  usage: USAGE,
  async run(args: string[], io: Io): Promise<number> {
    const p = parseArgs(args, { records: 'strings', 'no-bundled': 'boolean', format: 'string', 'fail-on': 'string', 'no-explain': 'boolean', dataset: 'boolean', cache: 'string', color: 'string', 'no-cache': 'boolean', 'min-confidence': 'string', threads: 'string' });
    if (flag(p, 'help')) {
      io.stdout.write(USAGE + '\n');
      return EXIT_OK;
    }
    const format = (stringOption(p, 'format') ?? 'text') as Format;
    if (!FORMATS.includes(format)) throw new UsageError(`unknown format '${format}' (${FORMATS.join(', ')})`);
    const colorMode = colorOption(stringOption(p, 'color'));
    const failOnText = stringOption(p, 'fail-on');
    if (failOnText !== undefined && !SEVERITIES.includes(failOnText as Severity)) {
      throw new UsageError(`unknown severity '${failOnText}' for --fail-on (${SEVERITIES.join(', ')})`);
    }
    const failOn = failOnText === undefined ? -1 : severityRank(failOnText as Severity);
    const minConfidence = minConfidenceOption(stringOption(p, 'min-confidence'));
    const threads = threadsOption(stringOption(p, 'threads'));
    const files = p.positionals;
    if (!files.length) throw new UsageError('scan needs at least one FILE (use - for stdin)');
    if (files.filter((f) => f === '-').length > 1) throw new UsageError('stdin (-) can be scanned only once');
    for (const f of files) if (f !== '-') checkReadable(f, 'file');

    const datasetRecords = flag(p, 'dataset') ? await loadDatasetRecords(path.resolve(io.cwd, stringOption(p, 'cache') ?? defaultCacheDir(io.env)), { full: true }) : undefined;
    if (datasetRecords?.length === 0) io.stderr.write('error-explainer: no dataset cached (run `error-explainer dataset sync`)\n');
    // the prose of records is read for explanations (text, markdown) and SARIF rules only
    const full = format === 'sarif' || ((format === 'text' || format === 'markdown') && !flag(p, 'no-explain'));
    const cache = flag(p, 'no-cache') ? undefined : { dir: indexCacheDir(io.env), minBytes: cacheMinBytes(io.env), full, lazyCheck: !full };
    // the scan's helper thread starts now: its start-up overlaps the loading of the records
    const thread = threads > 1 && worthAThread(files) ? MatchEngine.earlyScanThread(spawnThread) : undefined;
    const loaded = await loadCatalog(stringsOption(p, 'records'), flag(p, 'no-bundled'), datasetRecords, { ...(cache ? { cache } : {}), prose: full }).catch((e: unknown) => {
      thread?.dispose();
      throw e;
    });
    const { catalog, problems } = loaded;
    if (thread) catalog.engine.useScanThread(thread.spawn);
    thread?.dispose(); // (stopped if the engine did not take it: no byte index to scan with)
    for (const pr of problems) if (pr.severity === 'error') io.stderr.write(formatProblem(pr) + '\n');

    const out = new Output(io.stdout);
    const style = { color: useColor(colorMode, io.stdout as { isTTY?: boolean }, io.env), width: terminalWidth(io.stdout as { isTTY?: boolean; columns?: number }, io.env) };
    const records = catalog.records;
    // a plain line's matches are scored (and counted) from the index cache's columns when it has
    // them: no record is read for that (the first read of a cached record parses its row)
    const view = loaded.scanColumns ? new ScanRecords(loaded.scanColumns) : recordsView(records);
    const reporter = createReporter(format, out, { version: VERSION, explain: !flag(p, 'no-explain'), style, idOf: (entry) => view.id(entry), idsUnique: true }); // (loadCatalog merges record sets by id: one record per id)
    let lines = 0;
    let matches = 0;
    let below = 0;
    let worst = Infinity;
    /** --format count: a match is tallied by its record, no match object made. */
    const tally = reporter.tally?.bind(reporter);
    const scorer = new PlainScorer((entry) => view.scoredRecord(entry), records.length, minConfidence);
    reporter.begin();
    for (const f of files) {
      const name = f === '-' ? '<stdin>' : format === 'text' || format === 'markdown' ? problemPath(f, io.cwd) : f;
      let close = (): void => undefined;
      try {
        const opened = f === '-' ? { input: io.stdin, close } : openSnapshot(f);
        close = opened.close;
        const input = opened.input;
        const report = (n: number, m: RecordMatch, block?: ErrorBlock) => {
          if (m.confidence.score < minConfidence) {
            below++;
            return;
          }
          matches++;
          worst = Math.min(worst, severityRank(m.record.severity));
          reporter.match({ file: name, line: n, m, ...(block ? { block: blockInfo(block) } : {}) });
        };
        // one match per trace (an error block and the blocks chained to it): the best of its
        // exception lines (core/catalog traceChoice), reported when the trace ends
        let trace: { block: ErrorBlock; lines: { n: number; ms: RecordMatch[] }[] }[] = [];
        const flushTrace = () => {
          if (!trace.length) return;
          const bests = trace.map((t) => bestOfBlock(t.lines.map((l) => l.ms))[0]);
          const blocks = trace.map((t) => t.block);
          let k = traceChoice(blocks, bests.map((m) => (m && m.confidence.score >= minConfidence ? m : undefined)));
          if (k < 0) k = traceChoice(blocks, bests);
          const best = k >= 0 ? bests[k] : undefined;
          if (best) report(trace[k]!.lines.find((l) => l.ms.includes(best))!.n, best, trace[k]!.block);
          trace = [];
        };
        // a line's matches: the scan's live hits while they are valid (a line with no error block
        // near, handed back at once: only the matches it reports are made), else LineMatches
        // (made when the line waits for its block's window)
        const blocks = new BlockContext<LineHits | LineMatch[]>(
          (n, line, p, block, role) => {
            const last = trace[trace.length - 1];
            if (last && last.block !== block && !(block && continuesTrace(last.block, block))) flushTrace();
            if (!block) reportLine(n, line, p);
            else if (role === 'exception') {
              const ms = p instanceof LineHits ? p.matches() : p;
              const lineMatches = matchInBlock(ms.map((lm) => ({ record: records[lm.entry]!, match: lm })), line, block);
              let member = trace[trace.length - 1];
              if (member?.block !== block) trace.push((member = { block, lines: [] }));
              member.lines.push({ n, ms: lineMatches });
            }
            // frames, quoted code and other block lines: context, never matches
          },
          (p) => (p instanceof LineHits ? p.matches() : p),
        );
        // the matches of a line outside any block: each one's confidence from the hits (or from the
        // LineMatches held for a window), by the records' ceilings first; LineMatches only for those
        // reported (none for --format count)
        const reportLine = (n: number, line: string, held: LineHits | LineMatch[]) => {
          const p = held instanceof LineHits ? held : heldHits(held);
          const confident = scorer.score(p, line);
          below += p.count - confident;
          if (confident === 0) return;
          if (tally) {
            for (let k = 0; k < p.count; k++) {
              if (!scorer.confident(k)) continue;
              const entry = p.entry(k);
              matches++;
              worst = Math.min(worst, severityRank(view.severity(entry)));
              tally(entry);
            }
            return;
          }
          const facts = scorer.facts;
          for (const lm of p.matchesWhere((k) => scorer.confident(k))) report(n, recordMatch(records[lm.entry]!, lm, line, undefined, facts));
        };
        const stats = await forEachMatchingLine(
          input,
          catalog.engine,
          // (`hits` is valid during the call only: the context keeps LineMatches of lines it holds)
          (n, hits) => blocks.match(n, hits.text(), hits.byteStart(), hits),
          async () => {
            if (out.full) await out.flush();
            return !out.closed;
          },
          // (a file is read ahead of its walk; stdin, maybe a live stream, line by line as it comes)
          { blocks, ahead: f !== '-' },
        );
        blocks.finish();
        flushTrace();
        lines += stats.lines;
      } catch (e) {
        await out.flush();
        throw new IoError(`cannot read '${name}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      } finally {
        close();
      }
      if (out.closed) return EXIT_OK;
    }
    reporter.end({ lines, matches, below, minConfidence });
    await out.flush();
    const cacheError = loaded.saveCache?.();
    if (cacheError) io.stderr.write(`error-explainer: index cache not written: ${cacheError}\n`);
    return failOn >= 0 && worst <= failOn ? EXIT_FINDINGS : EXIT_OK;
  },
};
