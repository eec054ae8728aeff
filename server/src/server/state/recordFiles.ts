// Records the client read itself (the web build has no file system: it reads the bundled records,
// `records.paths` and `.error-records/` through workspace.fs and sends their bytes). Parsed,
// validated, ordered and merged exactly as loadSources does for paths: bundled < user <
// workspace, a later record wins on a duplicate id, problems are located in the file (its URI).
// User and workspace files count only in a trusted workspace, whatever the client sends.
import { Buffer } from 'node:buffer';
import { type LoadResult, parseRecordBytes } from '../../core/load';
import type { RecordOrigin, RecordProblem } from '../../core/record';
import type { RecordFileDto, SourceStatus } from '../../protocol';
import { assembleLoaded, type LoadedRecords } from './recordSources';

const ORDER: Record<RecordFileDto['origin'], number> = { bundled: 0, user: 1, workspace: 2 };

function fileProblem(file: string, message: string): RecordProblem {
  return { file, line: 1, column: 1, endLine: 1, endColumn: 1, path: '(file)', severity: 'error', message };
}

/** Is this a well-formed file entry (anything else from the client is dropped)? */
function isFile(f: unknown): f is RecordFileDto {
  const x = f as RecordFileDto;
  return !!x && typeof x === 'object' && x.origin in ORDER && typeof x.root === 'string' && typeof x.uri === 'string';
}

export async function loadRecordFiles(files: readonly unknown[], trusted: boolean): Promise<LoadedRecords> {
  const t0 = performance.now();
  const usable = files.filter(isFile).filter((f) => trusted || f.origin === 'bundled');
  // stable sort: the client's order within an origin is kept
  const ordered = usable.map((f, i) => ({ f, i })).sort((a, b) => ORDER[a.f.origin] - ORDER[b.f.origin] || a.i - b.i).map((x) => x.f);
  const sets: { origin: RecordOrigin; result: LoadResult }[] = [];
  const sources: SourceStatus[] = [];
  for (const f of ordered) {
    let result: LoadResult;
    if (typeof f.base64 === 'string') {
      result = parseRecordBytes(Buffer.from(f.base64, 'base64'), f.uri, { strict: f.origin === 'bundled' });
    } else {
      result = { records: [], problems: [fileProblem(f.uri, `cannot read records: ${typeof f.error === 'string' ? f.error : 'no content'}`)], files: [f.uri] };
    }
    sets.push({ origin: f.origin, result });
    // one status line per source (a records folder with many files is one source)
    const last = sources[sources.length - 1];
    if (last && last.origin === f.origin && last.path === f.root) last.records += result.records.length;
    else sources.push({ origin: f.origin, path: f.root, records: result.records.length });
  }
  return await assembleLoaded(sets, sources, [], trusted, t0);
}
