// `error-explainer mcp`: the agent tools (core/agent/tools.ts) as an MCP server on stdin/stdout,
// over the same record sources as `scan` (bundled, --records, --dataset's cache). stdout carries
// only the protocol; problems go to stderr.
import * as path from 'node:path';
import type { Catalog } from '../../core/catalog';
import type { AgentEnv, SourceInfo } from '../../core/agent/tools';
import { DatasetStore, defaultCacheDir, isLiteRecord, loadDatasetRecords, parseSelection } from '../../core/dataset';
import { flag, parseArgs, stringOption, stringsOption } from '../args';
import { type Command, EXIT_OK, type Io } from '../command';
import { visibleStream } from '../output';
import { checkReadable, formatProblem, loadCatalog } from '../records';
import { VERSION } from '../version';
import { cacheMinBytes, indexCacheDir } from '../../core/indexCache';

const USAGE = `error-explainer mcp [--records PATH]... [--no-bundled] [--dataset [--cache DIR] [--repos LIST]] [--no-cache]

Serves Error Explainer's tools to coding agents over the Model Context Protocol (stdio):
search_error, get_error, explain_text, scan_log, list_repos, refresh_dataset. Add it to your agent
as the command \`error-explainer mcp\` (see README: Claude Code, Codex, VS Code, Cursor).

  --records PATH   also load records from PATH (file, .gz, JSON Lines, folder); repeatable
  --no-bundled     do not load the bundled records
  --dataset        also use the cached ErrLookup dataset (\`error-explainer dataset sync\`);
                   refresh_dataset, the only tool that uses the network, needs it
  --cache DIR      dataset cache folder (default as for \`dataset\`)
  --repos LIST     dataset repositories to use: owner/name, owner/*, * (default: the selection
                   saved by \`dataset sync --repos\`, else all)
  --no-cache       neither read nor write the index cache (without a dataset, record sets of
                   2 MB and more start from it as \`scan\` and \`explain\` do)

Relative paths given to scan_log are resolved against the folder the server starts in.`;

/** Exact repositories of a saved selection whose full records refresh_dataset {full} fetches. */
const MAX_FULL_REPOS = 50;

export const mcp: Command = {
  name: 'mcp',
  summary: 'serve the tools to coding agents over MCP (stdio)',
  usage: USAGE,
  async run(args: string[], io: Io): Promise<number> {
    const p = parseArgs(args, { records: 'strings', 'no-bundled': 'boolean', dataset: 'boolean', cache: 'string', repos: 'string', 'no-cache': 'boolean' });
    if (flag(p, 'help')) {
      io.stdout.write(USAGE + '\n');
      return EXIT_OK;
    }
    const recordPaths = stringsOption(p, 'records');
    for (const r of recordPaths) checkReadable(r, 'records');
    const noBundled = flag(p, 'no-bundled');
    const useDataset = flag(p, 'dataset');
    const repos = stringOption(p, 'repos')?.split(',').map((r) => r.trim()).filter(Boolean);
    const cacheDir = path.resolve(io.cwd, stringOption(p, 'cache') ?? defaultCacheDir(io.env));
    const store = (): DatasetStore =>
      new DatasetStore({ cacheDir, url: io.env['ERROR_EXPLAINER_DATASET_URL'] ?? DatasetStore.consentedUrl(cacheDir) });

    let catalog: Catalog | undefined;
    let sources: SourceInfo[] = [];
    const load = async (): Promise<void> => {
      const ds = useDataset ? await loadDatasetRecords(cacheDir, { full: true, ...(repos ? { repos } : {}) }) : undefined;
      if (ds?.length === 0) io.stderr.write('error-explainer: no dataset cached (run `error-explainer dataset sync`)\n');
      // (through the index cache as scan and explain, unless a dataset is in the set: the tools
      // render records' prose, so a full entry)
      const indexCache = flag(p, 'no-cache') ? undefined : { dir: indexCacheDir(io.env), minBytes: cacheMinBytes(io.env), full: true };
      const loaded = await loadCatalog(recordPaths, noBundled, ds, { datasetPath: cacheDir, ...(indexCache ? { cache: indexCache } : {}) });
      for (const pr of loaded.problems) if (pr.severity === 'error') io.stderr.write(formatProblem(pr) + '\n');
      catalog = loaded.catalog;
      catalog.engine.prepareLines(); // the tools match lines: the index now, not in the first call
      sources = loaded.sources;
      // the cache for the next start, once this one can answer: a miss writes it in time slices; a
      // hit adds the string prefilter when its entry (a scan's) lacked it
      setImmediate(() => {
        void (loaded.saveCacheAsync?.() ?? Promise.resolve(loaded.saveCache?.())).then((error) => {
          if (error) io.stderr.write(`error-explainer: index cache not written: ${error}\n`);
        });
      });
    };
    // The transport answers `initialize` at once; tools wait for the records.
    let loading = load();
    loading.catch((e: unknown) => io.stderr.write(`error-explainer: ${(e as Error).message}\n`));

    const env: AgentEnv = {
      cwd: io.cwd,
      catalog: () => catalog!,
      scanCatalog: () => catalog!,
      records: () => catalog!.records,
      sources: () => sources,
      note: (r) => (isLiteRecord(r) ? 'This dataset record has no cached explanation yet: refresh_dataset {"full": true} downloads the full records of the selected repositories.' : undefined),
      ...(useDataset
        ? {
            dataset: {
              optedIn: () => store().optedIn,
              refresh: async (full: boolean) => {
                const s = store();
                const r = await s.sync({ force: true });
                const out: Awaited<ReturnType<NonNullable<AgentEnv['dataset']>['refresh']>> = {
                  status: r.status,
                  datasetVersion: r.datasetVersion,
                  fetched: r.fetched,
                  ...(r.reason !== undefined ? { reason: r.reason } : {}),
                };
                if (r.status === 'failed' || !full) return out;
                const sel = parseSelection(repos ?? s.savedSelection() ?? []);
                const exact = sel.all ? [] : s.repos().map((x) => x.repo).filter((x) => sel.has(x)).slice(0, MAX_FULL_REPOS);
                out.repos = [];
                for (const repo of exact) out.repos.push({ repo, records: (await s.fullRecords(repo)).length });
                return out;
              },
            },
            reload: async () => {
              loading = load();
              await loading;
            },
          }
        : {}),
    };
    // loaded here, not at the top: the SDK would double every other command's start-up time
    const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
    const { serveMcp } = await import('../../mcp/server');
    // JSON lines out with invisible characters escaped (cli/output.ts: the CLI's one rule)
    const transport = new StdioServerTransport(io.stdin, visibleStream(io.stdout));
    // `initialize` is answered at once; tools wait for the records (a big dataset takes seconds)
    await serveMcp(env, VERSION, transport, async () => {
      await loading;
    });
    return EXIT_OK;
  },
};
