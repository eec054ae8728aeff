// `error-explainer dataset sync|status|suggest`: the ErrLookup dataset in a local cache.
import * as path from 'node:path';
import { DEFAULT_DATASET_URL, DatasetStore, defaultCacheDir, parseSelection, scanWorkspaceDependencies, suggestionMessage, suggestRepositories } from '../../core/dataset';
import { flag, parseArgs, stringOption } from '../args';
import { type Command, EXIT_OK, EXIT_USAGE, type Io, UsageError } from '../command';

const USAGE = `error-explainer dataset sync [--url URL] [--repos owner/name,...] [--cache DIR]
       error-explainer dataset status [--cache DIR] [--json]
       error-explainer dataset suggest [DIR] [--cache DIR] [--json]

Keeps a local copy of the public ErrLookup dataset (about 500,000 explained errors of popular
open-source repositories) for \`scan --dataset\`. Nothing is downloaded except by \`dataset sync\`.

  sync      download the manifest; when its datasetVersion changed, the index and repos.json
            (sha256 and size checked against the manifest, written atomically; a failed
            download keeps the previous copy). With --repos, also the full records of those
            repositories, and the selection is saved for \`scan --dataset\`.
  status    what is cached: version, rows, repositories, selection, last failure
  suggest   map the dependencies of DIR (default: .) to dataset repositories

  --url URL         dataset base URL (default ${DEFAULT_DATASET_URL}; a mirror, or file:///folder)
  --repos LIST      comma-separated owner/name, owner/*, or * for all (saved)
  --cache DIR       cache folder (default $ERROR_EXPLAINER_CACHE, else ~/.cache/error-explainer/dataset)
  --json            machine-readable output

Exit status: 0 ok, 2 usage error or failed download (the cached copy is kept and still used).`;

function cacheDir(p: ReturnType<typeof parseArgs>, io: Io): string {
  return path.resolve(io.cwd, stringOption(p, 'cache') ?? defaultCacheDir(io.env));
}

async function sync(p: ReturnType<typeof parseArgs>, io: Io): Promise<number> {
  const dir = cacheDir(p, io);
  const url = stringOption(p, 'url') ?? io.env['ERROR_EXPLAINER_DATASET_URL'] ?? DatasetStore.consentedUrl(dir);
  const store = new DatasetStore({ cacheDir: dir, url });
  const reposArg = stringOption(p, 'repos');
  const r = await store.sync({ force: true, optIn: true });
  if (r.status === 'failed') {
    io.stderr.write(`error-explainer: dataset sync failed: ${r.reason}\n`);
    return EXIT_USAGE;
  }
  const st = store.status();
  io.stdout.write(`${r.status === 'updated' ? 'updated to' : 'up to date:'} ${r.datasetVersion} (${st.rows} errors, ${st.repos} repositories) in ${dir}\n`);
  if (reposArg !== undefined) {
    const list = reposArg.split(',').map((s) => s.trim()).filter(Boolean);
    const sel = parseSelection(list);
    const known = store.repos().map((x) => x.repo);
    const unknown = sel.unknown(known);
    if (unknown.length) io.stderr.write(`error-explainer: not in the dataset: ${unknown.join(', ')}\n`);
    store.saveSelection(list);
    const exact = sel.all ? [] : known.filter((k) => sel.has(k));
    let failed = 0;
    for (const repo of exact.length <= 50 ? exact : []) {
      try {
        const recs = await store.fullRecords(repo);
        io.stdout.write(`  ${repo}: ${recs.length} records\n`);
      } catch (e) {
        failed++;
        io.stderr.write(`error-explainer: records of ${repo}: ${(e as Error).message}\n`);
      }
    }
    io.stdout.write(`selection saved: ${list.join(', ') || '(none)'}\n`);
    if (failed) return EXIT_USAGE;
  }
  return EXIT_OK;
}

function status(p: ReturnType<typeof parseArgs>, io: Io): number {
  const dir = cacheDir(p, io);
  const store = new DatasetStore({ cacheDir: dir, url: DatasetStore.consentedUrl(dir) });
  const st = store.status();
  const selection = store.savedSelection();
  if (flag(p, 'json')) {
    io.stdout.write(JSON.stringify({ ...st, selection }, null, 2) + '\n');
    return EXIT_OK;
  }
  const lines = [
    `cache:       ${st.cacheDir}`,
    `url:         ${st.cachedUrl ?? st.url}`,
    `version:     ${st.datasetVersion ?? '(nothing cached; run `error-explainer dataset sync`)'}`,
    `checked:     ${st.checkedAt ?? '-'}`,
    `errors:      ${st.rows} in ${st.repos} repositories`,
    `selection:   ${selection ? selection.join(', ') || '(none)' : '(all)'}`,
    `full records cached: ${st.cachedRepos.length ? st.cachedRepos.join(', ') : '-'}`,
  ];
  if (st.failure) lines.push(`last failure: ${new Date(st.failure.at).toISOString()} ${st.failure.message}`);
  io.stdout.write(lines.join('\n') + '\n');
  return EXIT_OK;
}

function suggest(p: ReturnType<typeof parseArgs>, io: Io): number {
  const dir = cacheDir(p, io);
  const root = path.resolve(io.cwd, p.positionals[1] ?? '.');
  const store = new DatasetStore({ cacheDir: dir, url: DatasetStore.consentedUrl(dir) });
  const deps = scanWorkspaceDependencies(root);
  const repos = store.repos();
  const result = suggestRepositories(deps, repos);
  if (flag(p, 'json')) {
    io.stdout.write(JSON.stringify({ dependencies: deps.length, ...result, message: suggestionMessage(result.suggestions) ?? null }, null, 2) + '\n');
    return EXIT_OK;
  }
  if (!repos.length) io.stderr.write('error-explainer: no dataset cached; run `error-explainer dataset sync` to map dependencies to repositories\n');
  for (const s of result.suggestions) io.stdout.write(`${s.dependency} (${s.file}) -> ${s.repo}: ${s.errorCount} errors [${s.reason}]\n`);
  const msg = suggestionMessage(result.suggestions);
  if (msg) io.stdout.write(`${msg}\n  error-explainer dataset sync --repos ${[...new Set(result.suggestions.map((s) => s.repo))].join(',')}\n`);
  else io.stdout.write(`no dataset repository found for the ${deps.length} dependencies of ${root}\n`);
  return EXIT_OK;
}

export const dataset: Command = {
  name: 'dataset',
  summary: 'download and inspect the ErrLookup dataset cache (sync, status, suggest)',
  usage: USAGE,
  async run(args: string[], io: Io): Promise<number> {
    const p = parseArgs(args, { url: 'string', repos: 'string', cache: 'string', json: 'boolean' });
    const sub = p.positionals[0];
    if (flag(p, 'help') || sub === undefined) {
      io.stdout.write(USAGE + '\n');
      return sub === undefined && !flag(p, 'help') ? EXIT_USAGE : EXIT_OK;
    }
    if (sub === 'sync') return sync(p, io);
    if (sub === 'status') return status(p, io);
    if (sub === 'suggest') return suggest(p, io);
    throw new UsageError(`unknown dataset subcommand '${sub}' (sync, status or suggest)`);
  },
};
