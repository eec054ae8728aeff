// The ErrLookup dataset's requests: datasetStatus / datasetSync / datasetSuggest over the
// DatasetService (core/dataset; created and kept by state/datasetCatalogs.ts and RecordsState).
// Nothing is downloaded before the user's opt-in (DatasetSyncRequest); after it, an hourly check
// syncs when refreshHours passed.
import type { DatasetService } from '../../core/dataset';
import type { DatasetStatusDto, DatasetSuggestResult, DatasetSyncResult } from '../../protocol';

export function datasetStatus(ds: DatasetService, loaded: number): DatasetStatusDto {
  const s = ds.status(loaded);
  return { ...s, failure: s.failure ? { kind: s.failure.kind, message: s.failure.message, at: s.failure.at } : null };
}

/** The user's confirmed sync; `url`: the base URL they agreed to (opt-ins are per URL). */
export async function datasetSync(ds: DatasetService, force: boolean, url?: string): Promise<DatasetSyncResult> {
  const r = await ds.sync(force, url);
  return {
    status: r.status,
    datasetVersion: r.datasetVersion,
    ...(r.reason !== undefined ? { reason: r.reason } : {}),
    ...(r.notify !== undefined ? { notify: r.notify } : {}),
  };
}

export function datasetSuggest(ds: DatasetService, folders: readonly string[]): DatasetSuggestResult {
  const r = ds.suggest(folders);
  return {
    suggestions: r.suggestions.map((s) => ({
      dependency: s.dependency,
      ecosystem: s.ecosystem,
      file: s.file,
      repo: s.repo,
      errorCount: s.errorCount,
      reason: s.reason,
    })),
    unmatched: r.unmatched,
    message: r.message,
    needsSync: r.needsSync,
  };
}
