// In-memory ServerContext for fast tests of the server's feature modules (no connection).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Catalog } from '../../server/src/core/catalog';
import { parseRecordText } from '../../server/src/core/load';
import type { ErrorRecord } from '../../server/src/core/record';
import { DEFAULT_SETTINGS, ErrorExplainerSettings } from '../../server/src/protocol';
import type { ServerContext } from '../../server/src/server/context';
import { DocumentStore } from '../../server/src/server/state/documents';
import { FileRefResolver } from '../../server/src/server/state/fileRefResolver';
import { isLogLike } from '../../server/src/server/state/logKind';
import { RaiseSiteResolver } from '../../server/src/server/state/raiseSiteResolver';
import { RecordIndex } from '../../server/src/core/recordIndex';
import type { Logger } from '../../server/src/server/runSafe';
import { SeenRecords } from '../../server/src/server/state/seen';
import { pathToUri } from '../../server/src/server/uri';

import { REPO, WORKSPACE_FIXTURE as FIXTURE } from '../shared/paths';

export { REPO, WORKSPACE_FIXTURE as FIXTURE } from '../shared/paths';

export function fixtureRecords(): ErrorRecord[] {
  const bundled = parseRecordText(fs.readFileSync(path.join(REPO, 'records/sgl-project/sglang.json'), 'utf8'), 'sglang.json', { strict: true });
  const team = parseRecordText(fs.readFileSync(path.join(FIXTURE, '.error-records/team.json'), 'utf8'), 'team.json');
  return [...bundled.records, ...team.records];
}

export interface TestCtx extends ServerContext {
  errors: string[];
  settings: ErrorExplainerSettings;
  setCatalog(c: Catalog): void;
}

export function makeCtx(records: ErrorRecord[] = fixtureRecords(), folders: string[] = [FIXTURE]): TestCtx {
  const errors: string[] = [];
  const log: Logger = {
    error: (m) => errors.push(m),
    warn: () => undefined,
    info: () => undefined,
    log: () => undefined,
  };
  const documents = new DocumentStore();
  let catalog = new Catalog(records);
  let index = new RecordIndex(records);
  const ctx: TestCtx = {
    errors,
    settings: structuredClone(DEFAULT_SETTINGS),
    log,
    documents,
    seen: new SeenRecords(),
    raiseSites: new RaiseSiteResolver(() => folders, (f) => documents.get(pathToUri(f))?.lines),
    fileRefs: new FileRefResolver(() => folders),
    catalog: () => catalog,
    index: () => index,
    epoch: () => 1,
    folders: () => folders,
    settingsFor: async () => ctx.settings,
    isLogDocument: async (doc) => isLogLike(doc.uri, doc.languageId, ctx.settings.logFiles, folders),
    setCatalog(c: Catalog) {
      catalog = c;
      index = new RecordIndex(c.records);
    },
  };
  return ctx;
}
