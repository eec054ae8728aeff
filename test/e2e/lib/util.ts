// Helpers for the end-to-end suites: the extension's API, polling, positions from text, hovers.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ErrorExplainerApi } from '../../../client/src/api';
import { offsetOf } from '../../shared/positions';

export const EXTENSION_ID = 'error-explainer.error-explainer';

export async function api(): Promise<ErrorExplainerApi> {
  const ext = vscode.extensions.getExtension<ErrorExplainerApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not installed`);
  const exports = await ext.activate();
  assert.ok(exports && typeof exports.ready === 'function', 'activate() returned no API');
  return exports;
}

export { poll } from '../../shared/poll';

export function workspaceRoot(): vscode.Uri {
  const f = vscode.workspace.workspaceFolders?.[0];
  assert.ok(f, 'no workspace folder open');
  return f.uri;
}

export function fixtureUri(rel: string): vscode.Uri {
  return vscode.Uri.joinPath(workspaceRoot(), rel);
}

export async function openFixture(rel: string): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(fixtureUri(rel));
  return vscode.window.showTextDocument(doc, { preview: false });
}

/** Position of `needle` in the document (plus `delta` characters); fails when absent. */
export function posOf(doc: vscode.TextDocument, needle: string, delta = 0): vscode.Position {
  return doc.positionAt(offsetOf(doc.getText(), needle) + delta);
}

export function rangeOf(doc: vscode.TextDocument, needle: string): vscode.Range {
  return new vscode.Range(posOf(doc, needle), posOf(doc, needle, needle.length));
}

/** The hover text VS Code's hover providers give at a position (all contents joined). */
export async function hoverText(uri: vscode.Uri, pos: vscode.Position): Promise<string> {
  const hovers = (await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', uri, pos)) ?? [];
  return hovers
    .flatMap((h) => h.contents)
    .map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : ''))
    .join('\n---\n');
}

export function tuple(r: vscode.Range): [number, number, number, number] {
  return [r.start.line, r.start.character, r.end.line, r.end.character];
}

export async function closeAllEditors(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}

/** Documents of the record view currently open. */
export function recordDocs(): vscode.TextDocument[] {
  return vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'error-explainer-record');
}

/** The record id a record view shows (in its query; earlier versions had it in the path). */
export function recordIdOf(d: vscode.TextDocument): string | undefined {
  try {
    const q = JSON.parse(d.uri.query || '{}') as { id?: unknown };
    if (typeof q.id === 'string') return q.id;
  } catch {
    /* not JSON */
  }
  return /^\/(.+)\.md$/.exec(d.uri.path)?.[1];
}
