// The ErrLookup dataset in the server: the DatasetService (core/dataset) behind the protocol's
// datasetStatus / datasetSync / datasetSuggest requests. Nothing is downloaded before the user's
// opt-in (DatasetSyncRequest); after it, an hourly check syncs when refreshHours passed.
import * as path from 'node:path';
import { DatasetService, defaultCacheDir } from '../core/dataset';
import type { ErrorRecord } from '../core/record';
import type { DatasetStatusDto, DatasetSuggestResult, DatasetSyncResult, ErrorExplainerSettings } from '../protocol';

export function createDatasetService(storagePath: string | undefined): DatasetService {
  return new DatasetService(storagePath ? path.join(storagePath, 'dataset') : defaultCacheDir(process.env));
}

/** Dataset records for the catalog (after configure); [] before opt-in or with no repos selected. */
export async function datasetRecords(ds: DatasetService, settings: ErrorExplainerSettings): Promise<ErrorRecord[]> {
  ds.configure(settings.dataset);
  return ds.records();
}

export function datasetStatus(ds: DatasetService, loaded: number): DatasetStatusDto {
  const s = ds.status(loaded);
  return { ...s, failure: s.failure ? { kind: s.failure.kind, message: s.failure.message, at: s.failure.at } : null };
}

export async function datasetSync(ds: DatasetService, force: boolean): Promise<DatasetSyncResult> {
  const r = await ds.sync(force);
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
