// The workspace as the client describes it: its folders (file system paths, in client order),
// whether it is trusted, and its settings (pulled per resource, settings.ts). Set at initialize;
// folders and trust change by notification. Feature modules read it through ServerContext.
import type { InitializeParams, WorkspaceFoldersChangeEvent } from 'vscode-languageserver';
import { SettingsStore } from './settings';
import { uriToPath } from '../uri';

export class Workspace {
  folders: string[] = [];
  trusted = false;
  settings = new SettingsStore(undefined);

  /** initialize: the workspace folders, else the root URI's folder. */
  setFolders(params: Pick<InitializeParams, 'workspaceFolders' | 'rootUri'>): void {
    this.folders = (params.workspaceFolders ?? []).map((f) => uriToPath(f.uri)).filter((p): p is string => !!p);
    if (this.folders.length === 0 && params.rootUri) {
      const p = uriToPath(params.rootUri);
      if (p) this.folders = [p];
    }
  }

  /** workspace/didChangeWorkspaceFolders: removed ones dropped, added ones appended (once). */
  changeFolders(e: WorkspaceFoldersChangeEvent): void {
    const removed = new Set(e.removed.map((f) => uriToPath(f.uri)));
    this.folders = this.folders.filter((f) => !removed.has(f));
    for (const f of e.added) {
      const p = uriToPath(f.uri);
      if (p && !this.folders.includes(p)) this.folders.push(p);
    }
  }
}
