// `error-explainer explain`: the best records for any pasted text, rendered for the terminal.
import { flag, parseArgs, stringOption, stringsOption } from '../args';
import { type Command, EXIT_OK, type Io, UsageError } from '../command';
import { type RecordMatch, explainBlocks, splitLines } from '../../core/catalog';
import { blockSentence } from '../reporters';
import type { ErrorRecord } from '../../core/record';
import { escapeMarkdown, renderRecord, stripControls } from '../../core/render';
import { Output } from '../output';
import { formatProblem, loadCatalog } from '../records';
import { markdownToTerminal, paint, terminalWidth, useColor } from '../terminal';
import { colorOption } from './scan';
import { cacheMinBytes, indexCacheDir } from '../../core/indexCache';

const USAGE = `error-explainer explain [--records PATH]... [--no-bundled] [--format text|markdown] [--color auto|always|never] [--limit N] [--no-cache] TEXT...

Explains pasted text: the records whose pattern matches it (best first), else the closest records
by words. TEXT words are joined with spaces; no TEXT or \`-\` reads stdin. A traceback or stack
trace is explained by its exception line, the record raised at its frames first; its frames and
quoted code are not matched.

  --records PATH   also load records from PATH (file, .gz, JSON Lines, folder); repeatable
  --no-bundled     do not load the bundled records
  --format F       text (default): rendered for the terminal (bold headings, indented code,
                     wrapped to its width); markdown: escaped Markdown (safe to paste into a
                     Markdown renderer). --markdown is short for --format markdown
  --color WHEN     text: auto (default: on a terminal, unless NO_COLOR is set), always, never
  --limit N        at most N records (default 3)
  --no-cache       neither read nor write the index cache (by default record sets of 2 MB and
                     more are loaded from it when \`scan\` or \`explain\` compiled them before)`;

/** Fuzzy hits below this score (0-100) are not shown as "closest records". */
const MIN_FUZZY_SCORE = 30;
const MAX_STDIN = 16 * 1024 * 1024;

async function readAll(io: Io): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of io.stdin) {
    const b = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    parts.push(b);
    size += b.length;
    if (size > MAX_STDIN) throw new UsageError(`explain reads at most ${MAX_STDIN} bytes of stdin; use scan for logs`);
  }
  return Buffer.concat(parts).toString('utf8');
}

export const explain: Command = {
  name: 'explain',
  summary: 'explain pasted text with the best matching records',
  usage: USAGE,
  async run(args: string[], io: Io): Promise<number> {
    const p = parseArgs(args, { records: 'strings', 'no-bundled': 'boolean', markdown: 'boolean', limit: 'string', format: 'string', color: 'string', 'no-cache': 'boolean' });
    if (flag(p, 'help')) {
      io.stdout.write(USAGE + '\n');
      return EXIT_OK;
    }
    const limitText = stringOption(p, 'limit') ?? '3';
    const limit = Number(limitText);
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit needs a positive integer, not '${limitText}'`);
    const format = stringOption(p, 'format') ?? (flag(p, 'markdown') ? 'markdown' : 'text');
    if (format !== 'text' && format !== 'markdown') throw new UsageError(`unknown format '${format}' (text or markdown)`);
    const colorMode = colorOption(stringOption(p, 'color'));
    const text = p.positionals.length === 0 || (p.positionals.length === 1 && p.positionals[0] === '-') ? await readAll(io) : p.positionals.join(' ');
    if (!text.trim()) throw new UsageError('explain needs TEXT (or text on stdin)');

    // (through the index cache as scan: the explanation reads records' prose, so a full entry)
    const cache = flag(p, 'no-cache') ? undefined : { dir: indexCacheDir(io.env), minBytes: cacheMinBytes(io.env), full: true };
    const loaded = await loadCatalog(stringsOption(p, 'records'), flag(p, 'no-bundled'), undefined, cache ? { cache } : {});
    const { catalog, problems } = loaded;
    for (const pr of problems) if (pr.severity === 'error') io.stderr.write(formatProblem(pr) + '\n');

    const found: { record: ErrorRecord; match?: RecordMatch['match']; confidence?: RecordMatch['confidence']; block?: string }[] = [];
    const seen = new Set<string>();
    // in text order: each error block's matches (ranked by its frames), and the other lines' matches
    const lines = splitLines(text);
    const ex = explainBlocks(catalog, lines);
    const groups: { line: number; matches: RecordMatch[]; block?: string }[] = [
      ...ex.blocks.map((b) => {
        const f = b.block.frames[b.block.raising];
        const sentence = blockSentence({
          kind: b.block.kind,
          firstLine: b.block.first + 1,
          lastLine: b.block.last + 1,
          ...(f ? { raisedAt: { file: f.file, line: f.line, ...(f.function ? { function: f.function } : {}) } } : {}),
        });
        return { line: b.block.first, matches: b.matches, block: `${b.block.errorClass ? `${b.block.errorClass}, ` : ''}${sentence}` };
      }),
      ...ex.lines,
    ].sort((a, b) => a.line - b.line);
    for (const g of groups) {
      let first = true;
      for (const m of g.matches) {
        if (seen.has(m.record.id)) continue;
        seen.add(m.record.id);
        found.push({ record: m.record, match: m.match, confidence: m.confidence, ...(g.block && first ? { block: g.block } : {}) });
        first = false;
      }
    }
    const out = new Output(io.stdout);
    // the output first; then the cache file for the next run (or the prefilter this one added)
    const done = async (): Promise<number> => {
      await out.flush();
      const cacheError = loaded.saveCache?.();
      if (cacheError) io.stderr.write(`error-explainer: index cache not written: ${cacheError}\n`);
      return EXIT_OK;
    };
    const terminal = format === 'text';
    const style = { color: useColor(colorMode, io.stdout as { isTTY?: boolean }, io.env), width: terminalWidth(io.stdout as { isTTY?: boolean; columns?: number }, io.env) };
    if (found.length === 0) {
      const hits = catalog.search(text, limit).filter((h) => h.kind !== 'fuzzy' || h.score >= MIN_FUZZY_SCORE);
      if (!hits.length) {
        out.write('No record matches this text.\n');
        return done();
      }
      out.write(`No record pattern matches this text; closest record${hits.length === 1 ? '' : 's'} by ${hits[0]!.kind === 'fuzzy' ? 'words' : hits[0]!.kind}:\n\n`);
      for (const h of hits) found.push({ record: h.record });
    }
    found.slice(0, limit).forEach((f, i) => {
      const md = renderRecord(f.record, {
        ...(f.match ? { match: { text: f.match.text, captures: f.match.captures } } : {}),
        ...(f.confidence ? { confidence: f.confidence } : {}),
      });
      // a block's record is headed by which block it explains and where it was raised (log text)
      if (!terminal) {
        out.write((i > 0 ? '\n---\n\n' : '') + (f.block ? `*${escapeMarkdown(f.block)}:*\n\n` : '') + md);
        return;
      }
      // renderRecord's text has no controls of its own (stripControls): every ESC is a painted colour
      const write = (s: string) => (style.color ? out.writeStyled(s) : out.write(s));
      if (i > 0) write(`\n${paint(style, '─'.repeat(Math.min(72, style.width)), 'dim')}\n\n`);
      if (f.block) write(`${paint(style, stripControls(f.block), 'bold')}:\n\n`);
      write(markdownToTerminal(md, style));
    });
    return done();
  },
};
