// What every feature module gets: the shared state of one server instance. Feature modules take
// a ServerContext and plain LSP params and return plain results; only server.ts touches the
// connection.
import type { RecordCatalog } from '../core/catalog';
import type { ErrorExplainerSettings } from '../protocol';
import type { DocumentStore, TrackedDocument } from './state/documents';
import type { FileRefResolver } from './state/fileRefResolver';
import type { RaiseSiteResolver } from './state/raiseSiteResolver';
import type { RecordIndex } from '../core/recordIndex';
import type { Logger } from './runSafe';
import type { SeenRecords } from './state/seen';

export interface ServerContext {
  readonly log: Logger;
  readonly documents: DocumentStore;
  readonly seen: SeenRecords;
  readonly raiseSites: RaiseSiteResolver;
  /** Printed `file:line` paths (stack frames) -> workspace files. */
  readonly fileRefs: FileRefResolver;
  /** The current catalog (replaced on reload): the user's records, plus the dataset's when selected. */
  catalog(): RecordCatalog;
  /** Records by errorClass and by the file they are raised in (for the current catalog). */
  index(): RecordIndex;
  /** Bumped on every record reload and configuration change (part of diagnostic result ids). */
  epoch(): number;
  /** Workspace folder paths (file system), in client order. */
  folders(): readonly string[];
  /** Settings for a resource (pulled from the client, cached per scope). */
  settingsFor(uri: string | undefined): Promise<ErrorExplainerSettings>;
  /** Log-like documents get hovers, links and diagnostics on matches. */
  isLogDocument(doc: TrackedDocument): Promise<boolean>;
}
