// `error-explainer validate`: check record files and report located problems.
import { loadRecordsFromPath } from '../../core/load';
import { flag, parseArgs } from '../args';
import { type Command, EXIT_FINDINGS, EXIT_OK, type Io, UsageError } from '../command';
import { Output } from '../output';
import { checkReadable, formatProblem } from '../records';

const USAGE = `error-explainer validate [--strict] PATH...

Validates record files or folders (JSON object, {record, datasetVersion} envelope, array,
JSON Lines, .gz) and prints each problem as \`file:line:col: error|warning|info: message [path]\`.

  --strict   apply ErrLookup's full rules (default: the lenient rules for user records)

Exit status: 0 no errors, 1 errors found, 2 usage or I/O error.`;

const ORDER = { error: 0, warning: 1, info: 2 } as const;

export const validate: Command = {
  name: 'validate',
  summary: 'validate record files (problems with line and column)',
  usage: USAGE,
  async run(args: string[], io: Io): Promise<number> {
    const p = parseArgs(args, { strict: 'boolean' });
    if (flag(p, 'help')) {
      io.stdout.write(USAGE + '\n');
      return EXIT_OK;
    }
    if (!p.positionals.length) throw new UsageError('validate needs at least one PATH');
    for (const f of p.positionals) checkReadable(f, 'path');
    const out = new Output(io.stdout);
    const counts = { error: 0, warning: 0, info: 0 };
    let records = 0;
    let files = 0;
    for (const path of p.positionals) {
      const result = await loadRecordsFromPath(path, { strict: flag(p, 'strict') });
      records += result.records.length;
      files += result.files.length;
      const problems = [...result.problems].sort(
        (a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) || a.line - b.line || a.column - b.column || ORDER[a.severity] - ORDER[b.severity],
      );
      for (const pr of problems) {
        counts[pr.severity]++;
        out.write(formatProblem(pr) + '\n');
      }
    }
    await out.flush();
    const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
    io.stderr.write(
      `${plural(records, 'record')} in ${plural(files, 'file')}: ${plural(counts.error, 'error')}, ${plural(counts.warning, 'warning')}, ${counts.info} info\n`,
    );
    return counts.error > 0 ? EXIT_FINDINGS : EXIT_OK;
  },
};
