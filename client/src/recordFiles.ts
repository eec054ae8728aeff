// The web build's record files. The desktop server reads its record sources from disk
// (server/src/server/state/recordSources.ts); the web server has no file system, so the client reads
// the same sources through workspace.fs and sends their bytes: at start
// (initializationOptions.recordFiles) and after every change (RecordFilesNotification).
// Sources, in order: the bundled records (errorExplainer.records.includeBundled), then, in a
// trusted workspace only, each folder's errorExplainer.records.paths (relative to the folder, or
// absolute on the folder's file system) and its `.error-records/`. Folders are read recursively
// (record files only; node_modules, .git skipped), in name order, as on the desktop.
import * as vscode from 'vscode';
import { MAX_RECORD_FILE_BYTES } from '../../server/src/core/load/decode';
import { MAX_DIR_DEPTH, RECORD_FILE_RE, SKIP_DIRS } from '../../server/src/core/load/walk';
import type { RecordFileDto } from '../../server/src/protocol';
import { classifyRecordPath, encodeRecordFile } from './recordFileData';

const WORKSPACE_RECORDS_DIR = '.error-records';
const CHANGE_DELAY_MS = 300;

interface Root {
  origin: RecordFileDto['origin'];
  uri: vscode.Uri;
  /** .error-records/: skipped silently when missing. */
  optional?: boolean;
  /** Why it cannot be read here (reported as a problem on it). */
  error?: string;
}

export class RecordFileCollector implements vscode.Disposable {
  /** The files read last (what the server has). */
  files: RecordFileDto[] = [];
  private watchers: vscode.Disposable[] = [];
  private readonly disposables: vscode.Disposable[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> = Promise.resolve();
  private onChange: (() => void) | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: (message: string) => void,
  ) {}

  private roots(): Root[] {
    const roots: Root[] = [];
    const global = vscode.workspace.getConfiguration('errorExplainer');
    if (global.get<boolean>('records.includeBundled', true)) roots.push({ origin: 'bundled', uri: vscode.Uri.joinPath(this.extensionUri, 'records') });
    if (!vscode.workspace.isTrusted) return roots;
    const folders = vscode.workspace.workspaceFolders ?? [];
    for (const folder of folders) {
      for (const given of vscode.workspace.getConfiguration('errorExplainer', folder.uri).get<string[]>('records.paths', [])) {
        const p = typeof given === 'string' ? classifyRecordPath(given) : undefined;
        if (!p) continue;
        if (p.kind === 'unsupported') roots.push({ origin: 'user', uri: vscode.Uri.joinPath(folder.uri, p.path.replace(/[\\/:]/g, '_')), error: `${p.path}: ${p.reason}` });
        else roots.push({ origin: 'user', uri: p.kind === 'absolute' ? folder.uri.with({ path: p.path }) : vscode.Uri.joinPath(folder.uri, p.path) });
      }
    }
    for (const folder of folders) roots.push({ origin: 'workspace', uri: vscode.Uri.joinPath(folder.uri, WORKSPACE_RECORDS_DIR), optional: true });
    const seen = new Set<string>();
    return roots.filter((r) => !seen.has(r.uri.toString()) && !!seen.add(r.uri.toString()));
  }

  /** Reads every source again; resolves with the files (also kept in `files`). */
  collect(): Promise<RecordFileDto[]> {
    this.running = this.running.then(async () => {
      const roots = this.roots();
      const files: RecordFileDto[] = [];
      for (const root of roots) files.push(...(await this.readRoot(root)));
      this.files = files;
      this.rewatch(roots);
      this.log(`records read through workspace.fs: ${files.length} file(s) from ${roots.length} source(s)`);
    });
    return this.running.then(() => this.files);
  }

  /** Calls `onChange` (after collecting again) when a source changes, the settings or the trust do. */
  watch(onChange: () => void): void {
    this.onChange = onChange;
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('errorExplainer.records')) this.changed();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.changed()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.changed()),
    );
  }

  private changed(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.collect().then(() => this.onChange?.());
    }, CHANGE_DELAY_MS);
  }

  private rewatch(roots: Root[]): void {
    for (const w of this.watchers) w.dispose();
    this.watchers = [];
    for (const r of roots) {
      if (r.origin === 'bundled' || r.error) continue; // the bundle never changes
      const parent = vscode.Uri.joinPath(r.uri, '..');
      const name = r.uri.path.slice(r.uri.path.lastIndexOf('/') + 1);
      for (const pattern of [new vscode.RelativePattern(r.uri, '**'), new vscode.RelativePattern(parent, name)]) {
        const w = vscode.workspace.createFileSystemWatcher(pattern);
        w.onDidCreate(() => this.changed());
        w.onDidChange(() => this.changed());
        w.onDidDelete(() => this.changed());
        this.watchers.push(w);
      }
    }
  }

  private async readRoot(root: Root): Promise<RecordFileDto[]> {
    const base = { origin: root.origin, root: root.uri.toString() };
    if (root.error) return [{ ...base, uri: root.uri.toString(), error: root.error }];
    let stat: vscode.FileStat;
    try {
      stat = await vscode.workspace.fs.stat(root.uri);
    } catch (e) {
      return root.optional ? [] : [{ ...base, uri: root.uri.toString(), error: `not found (${errorText(e)})` }];
    }
    const uris: vscode.Uri[] = [];
    const problems: RecordFileDto[] = [];
    if (stat.type & vscode.FileType.Directory) await this.walk(root.uri, 0, uris, problems, base);
    else uris.push(root.uri);
    const out: RecordFileDto[] = [...problems];
    for (const uri of uris) out.push({ ...base, uri: uri.toString(), ...(await readFile(uri)) });
    return out;
  }

  private async walk(dir: vscode.Uri, depth: number, out: vscode.Uri[], problems: RecordFileDto[], base: { origin: RecordFileDto['origin']; root: string }): Promise<void> {
    if (depth > MAX_DIR_DEPTH) {
      problems.push({ ...base, uri: dir.toString(), error: `folder nesting deeper than ${MAX_DIR_DEPTH} levels; not searched further` });
      return;
    }
    let entries: [string, vscode.FileType][];
    try {
      entries = await vscode.workspace.fs.readDirectory(dir);
    } catch (e) {
      problems.push({ ...base, uri: dir.toString(), error: `cannot read folder: ${errorText(e)}` });
      return;
    }
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [name, type] of entries) {
      const uri = vscode.Uri.joinPath(dir, name);
      // a symbolic link to a folder is not followed (no loops); one to a file is read
      if (type & vscode.FileType.Directory && !(type & vscode.FileType.SymbolicLink)) {
        if (!SKIP_DIRS.has(name)) await this.walk(uri, depth + 1, out, problems, base);
      } else if (type & vscode.FileType.File && RECORD_FILE_RE.test(name)) out.push(uri);
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const d of [...this.watchers, ...this.disposables]) d.dispose();
  }
}

async function readFile(uri: vscode.Uri): Promise<{ base64: string } | { error: string }> {
  try {
    // (not read at all when too large; a gzip file is bounded while it inflates)
    const { size } = await vscode.workspace.fs.stat(uri);
    if (size > MAX_RECORD_FILE_BYTES) return { error: `the file is larger than ${MAX_RECORD_FILE_BYTES / (1024 * 1024)} MiB` };
    return await encodeRecordFile(await vscode.workspace.fs.readFile(uri));
  } catch (e) {
    return { error: `cannot read the file: ${errorText(e)}` };
  }
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
