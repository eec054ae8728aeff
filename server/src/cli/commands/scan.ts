// `error-explainer scan`: stream log files (or stdin) through the catalog and report every match.
import { closeSync, createReadStream, fstatSync, openSync } from 'node:fs';
import * as path from 'node:path';
import { Readable } from 'node:stream';
import { defaultCacheDir, loadDatasetRecords } from '../../core/dataset';
import { SEVERITIES, type Severity, severityRank } from '../../core/record';
import { flag, parseArgs, stringOption, stringsOption } from '../args';
import { type Command, EXIT_FINDINGS, EXIT_OK, IoError, type Io, UsageError } from '../command';
import { forEachMatchingLine } from '../../core/lineScan';
import { Output } from '../output';
import { checkReadable, formatProblem, loadCatalog } from '../records';
import { recordMatch } from '../../core/catalog';
import { FORMATS, type Format, createReporter, problemPath } from '../reporters';
import { COLOR_MODES, type ColorMode, terminalWidth, useColor } from '../terminal';
import { VERSION } from '../version';

const USAGE = `error-explainer scan [--records PATH]... [--no-bundled] [--dataset [--cache DIR]] [--format text|markdown|json|count|sarif] [--color auto|always|never] [--fail-on SEVERITY] [--no-explain] FILE...

Scans log files (\`-\` = stdin, reported as <stdin>) line by line, in constant memory, and reports
every match of an error record. Lines end at \\n, \\r\\n or a lone \\r; columns are 1-based
UTF-16 units of the original line (endColumn exclusive).

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
                     count: one JSON object {lines, matches, byRecord} at the end
                     sarif: SARIF 2.1.0 for code scanning (rank = confidence 0-100)
  --color WHEN       text: auto (default: on a terminal, unless NO_COLOR is set), always, never
  --fail-on SEV      exit 1 when a match has severity SEV or worse (critical|error|warning|info)
  --no-explain       text format: no explanations after the match lines

Exit status: 0 ok, 1 --fail-on reached, 2 usage or I/O error.`;

/**
 * A regular file is read as it was when the scan opened it: bytes appended meanwhile (a log that is
 * still being written) are left for the next run, so the scan ends even when the writer is faster.
 * A file deleted while open is read to its end (POSIX keeps the open file).
 */
function openSnapshot(file: string): Readable {
  const fd = openSync(file, 'r');
  let size: number | undefined;
  try {
    const st = fstatSync(fd);
    if (st.isFile()) size = st.size;
  } catch {
    // not a regular file we can size: read to its end
  }
  if (size === 0) {
    closeSync(fd);
    return Readable.from([]);
  }
  return createReadStream('', { fd, highWaterMark: 1 << 20, ...(size !== undefined ? { end: size - 1 } : {}) });
}

/** --color's value (auto when not given). */
export function colorOption(v: string | undefined): ColorMode {
  if (v === undefined) return 'auto';
  if (!COLOR_MODES.includes(v as ColorMode)) throw new UsageError(`unknown --color '${v}' (${COLOR_MODES.join(', ')})`);
  return v as ColorMode;
}

export const scan: Command = {
  name: 'scan',
  summary: 'scan log files for known errors (text, json, count, sarif)',
  usage: USAGE,
  async run(args: string[], io: Io): Promise<number> {
    const p = parseArgs(args, { records: 'strings', 'no-bundled': 'boolean', format: 'string', 'fail-on': 'string', 'no-explain': 'boolean', dataset: 'boolean', cache: 'string', color: 'string' });
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
    const files = p.positionals;
    if (!files.length) throw new UsageError('scan needs at least one FILE (use - for stdin)');
    if (files.filter((f) => f === '-').length > 1) throw new UsageError('stdin (-) can be scanned only once');
    for (const f of files) if (f !== '-') checkReadable(f, 'file');

    const datasetRecords = flag(p, 'dataset') ? await loadDatasetRecords(path.resolve(io.cwd, stringOption(p, 'cache') ?? defaultCacheDir(io.env)), { full: true }) : undefined;
    if (datasetRecords?.length === 0) io.stderr.write('error-explainer: no dataset cached (run `error-explainer dataset sync`)\n');
    const { catalog, problems } = await loadCatalog(stringsOption(p, 'records'), flag(p, 'no-bundled'), datasetRecords);
    for (const pr of problems) if (pr.severity === 'error') io.stderr.write(formatProblem(pr) + '\n');

    const out = new Output(io.stdout);
    const style = { color: useColor(colorMode, io.stdout as { isTTY?: boolean }, io.env), width: terminalWidth(io.stdout as { isTTY?: boolean; columns?: number }, io.env) };
    const reporter = createReporter(format, out, { version: VERSION, explain: !flag(p, 'no-explain'), style });
    let lines = 0;
    let matches = 0;
    let worst = Infinity;
    reporter.begin();
    for (const f of files) {
      const name = f === '-' ? '<stdin>' : format === 'text' || format === 'markdown' ? problemPath(f, io.cwd) : f;
      try {
        const input: Readable = f === '-' ? io.stdin : openSnapshot(f);
        const stats = await forEachMatchingLine(
          input,
          catalog.engine,
          (n, hits) => {
            const line = hits.text();
            for (const lm of hits.matches()) {
              const m = recordMatch(catalog.records[lm.entry]!, lm, line);
              matches++;
              worst = Math.min(worst, severityRank(m.record.severity));
              reporter.match({ file: name, line: n, m });
            }
          },
          async () => {
            if (out.full) await out.flush();
            return !out.closed;
          },
        );
        lines += stats.lines;
        if (stats.truncatedLines) {
          io.stderr.write(`error-explainer: ${name}: ${stats.truncatedLines} line(s) longer than 16M characters were matched on their first 16M characters only\n`);
        }
      } catch (e) {
        await out.flush();
        throw new IoError(`cannot read '${name}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
      if (out.closed) return EXIT_OK;
    }
    reporter.end({ lines, matches });
    await out.flush();
    return failOn >= 0 && worst <= failOn ? EXIT_FINDINGS : EXIT_OK;
  },
};
