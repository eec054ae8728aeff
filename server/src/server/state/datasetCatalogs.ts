// The ErrLookup dataset's service (core/dataset: its cache folder under the client's storage) and
// its catalog across record reloads (DatasetCatalogs). Nothing is downloaded before the user's
// opt-in (features/dataset.ts answers the requests); RecordsState runs the hourly check.
import * as path from 'node:path';
import { DatasetService, defaultCacheDir } from '../../core/dataset';
import type { DatasetCatalog } from '../../core/dataset/datasetCatalog';
import type { ErrorExplainerSettings } from '../../protocol';
import type { DatasetSource } from './recordSources';
import { errorText, type Logger } from '../runSafe';

export function createDatasetService(storagePath: string | undefined): DatasetService {
  return new DatasetService(storagePath ? path.join(storagePath, 'dataset') : defaultCacheDir(process.env));
}

/**
 * The dataset's catalog across reloads: the same one while the settings and the cached version
 * are unchanged (a reload of the user's records does not rebuild 500k rows), a new one built in
 * the background otherwise (the old one is dropped). `onReady` runs when every row of the
 * current catalog matches: the server then re-matches open documents.
 */
export class DatasetCatalogs {
  private key = '';
  private current: DatasetCatalog | undefined;

  constructor(
    private readonly log: Logger,
    private readonly onReady: (catalog: DatasetCatalog) => void,
  ) {}

  /** The catalog for the settings (configures the service); undefined when nothing is selected. */
  update(ds: DatasetService | undefined, settings: ErrorExplainerSettings): DatasetSource | undefined {
    let key = '';
    try {
      if (ds) {
        ds.configure(settings.dataset);
        key = ds.catalogKey();
      }
      if (key !== this.key) {
        this.current?.dispose();
        this.current = undefined;
        this.key = key;
        this.current = ds?.openCatalog();
        const c = this.current;
        if (c) {
          const t0 = performance.now();
          void c.build().then((done) => {
            if (!done || c !== this.current) return;
            this.log.info(
              `Error Explainer: ${c.rows.count} dataset rows match (${c.stats.shards} shards, ${Math.round(performance.now() - t0)} ms in the background, longest step ${Math.round(Math.max(c.stats.maxShardMs, c.stats.maxSliceMs))} ms)`,
            );
            if (c.stats.readError) this.log.warn(`the dataset cache could not be read to the end (${c.stats.readError}): ${c.rows.count} of ${c.total} rows are used`);
            this.onReady(c);
          });
        }
      }
    } catch (e) {
      this.log.error(`opening the ErrLookup dataset failed: ${errorText(e)}`);
      this.current?.dispose();
      this.current = undefined;
    }
    const c = this.current;
    return c && ds ? { catalog: c, path: ds.cacheDir, records: c.total } : undefined;
  }

  get catalog(): DatasetCatalog | undefined {
    return this.current;
  }

  dispose(): void {
    this.current?.dispose();
    this.current = undefined;
    this.key = '';
  }
}
