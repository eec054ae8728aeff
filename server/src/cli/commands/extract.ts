// `error-explainer extract DIR --repo owner/name [--sha SHA] [--out FILE]`: skeleton records for
// the raise/throw sites of a source tree, by ErrLookup's rules.
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../../core/dataset/fsutil';
import { REPO_RE } from '../../core/dataset/types';
import { extractFromDir, formatRecords } from '../../core/extract';
import { withSourceRoot } from '../../core/extract/records';
import { flag, parseArgs, stringOption } from '../args';
import { type Command, EXIT_OK, type Io, IoError, UsageError } from '../command';

const USAGE = `error-explainer extract DIR --repo owner/name [--sha SHA] [--out FILE] [--verbose]

Finds raise/throw sites under DIR and writes one skeleton record per message (a JSON array, the
per-repository layout of ErrLookup), sorted and stable: running it twice on unchanged code gives
the same file.

  Python      raise X("…"), raise X(f"…{v}…") (also split over lines, implicitly concatenated)
  JS / TS     throw new X("…"), throw new X(\`…\${v}…\`), new XError("…") anywhere (factories)
  Go          errors.New("…"), fmt.Errorf("…%s…", v)
  Java        throw new X("…" + v)   (a concatenated expression is written {v})
  Rust        panic!("…"), bail!("…"), anyhow!("…")
  and         messages written in exception classes (__str__, super().__init__("…"), super(\`…\`)),
              a local assigned first and raised after, calls of error helpers (fail("…")), and
              class-only records (tag class-only) for raises without a message (raise queue.Empty)

Each record has errorMessage (placeholders as written), messagePattern, errorClass, filePath,
lineNumber, sourceCode (±18 lines), githubUrl (pinned to --sha), an ErrLookup id and the tag
source-root-<hex of DIR's absolute path> (so the editor finds the raise site outside the
workspace); no explanation is invented: fill in documentation and solutions by hand.

  --repo owner/name   repository the records belong to (required)
  --sha SHA           commit the githubUrl links point to
  --out FILE          write here (default: standard output)
  --verbose           list the sites that were skipped (message too short to be a safe pattern)

Exit status: 0 ok, 2 usage or I/O error.`;

export const extract: Command = {
  name: 'extract',
  summary: 'write skeleton records for the raise/throw sites of your own code',
  usage: USAGE,
  async run(args: string[], io: Io): Promise<number> {
    const p = parseArgs(args, { repo: 'string', sha: 'string', out: 'string', verbose: 'boolean' });
    if (flag(p, 'help')) {
      io.stdout.write(USAGE + '\n');
      return EXIT_OK;
    }
    const [dirArg, ...extra] = p.positionals;
    if (!dirArg) throw new UsageError('extract needs a DIR');
    if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`);
    const repo = stringOption(p, 'repo');
    if (!repo) throw new UsageError('extract needs --repo owner/name');
    if (!REPO_RE.test(repo)) throw new UsageError(`--repo must be owner/name, not '${repo}'`);
    const sha = stringOption(p, 'sha');
    if (sha !== undefined && !/^[0-9a-fA-F]{7,64}$/.test(sha)) throw new UsageError(`--sha must be a commit hash, not '${sha}'`);
    const dir = path.resolve(io.cwd, dirArg);
    try {
      if (!statSync(dir).isDirectory()) throw new IoError(`'${dirArg}' is not a directory`);
    } catch (e) {
      if (e instanceof IoError) throw e;
      throw new IoError(`cannot read '${dirArg}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    const result = extractFromDir(dir, { repo, sha: sha ?? null });
    // the folder read, so raise sites outside the workspace still resolve (Go to Raise Site)
    const text = formatRecords(result.records.map((r) => withSourceRoot(r, dir)));
    const out = stringOption(p, 'out');
    if (out) {
      try {
        writeFileAtomic(path.resolve(io.cwd, out), text);
      } catch (e) {
        throw new IoError(`cannot write '${out}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
    } else io.stdout.write(text);
    io.stderr.write(`${result.records.length} records from ${result.files} source files${result.skipped.length ? ` (${result.skipped.length} sites skipped${flag(p, 'verbose') ? '' : '; --verbose lists them'})` : ''}\n`);
    if (flag(p, 'verbose')) for (const s of result.skipped) io.stderr.write(`  ${s.filePath}:${s.line}: ${JSON.stringify(s.message)}: ${s.reason}\n`);
    return EXIT_OK;
  },
};
