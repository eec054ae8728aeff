// ANSI colours in log editors: the text of coloured spans gets decorations in the theme's terminal
// colours (bold, italic, underline, ...), and the escape sequences themselves are hidden (a
// decoration of zero size: the document is unchanged, so diagnostics, hovers and links keep their
// exact ranges). Parsing is the core's (server/src/core/ansi.ts). Small documents are decorated
// whole; large ones only around their visible ranges, recomputed on scroll and on edits.
// Setting: errorExplainer.ansi.render (default true).
import * as vscode from 'vscode';
import { AnsiColor, hasEscapes, parseAnsiLine, SgrStyle, styleKey, StyledSpan, xterm256Hex } from '../../server/src/core/ansi';
import { decorationWindows, FULL_MAX_LINES } from './lineWindows';
import { isLogDocument } from './logDocuments';
import type { Services } from './services';
import type { AnsiDecorationState } from './state';

/** Distinct styles with a decoration type of their own; further styles are left undecorated. */
const MAX_STYLES = 256;
const UPDATE_DELAY_MS = 40;

const ANSI_NAMES = ['Black', 'Red', 'Green', 'Yellow', 'Blue', 'Magenta', 'Cyan', 'White'];

function themeColor(c: AnsiColor): vscode.ThemeColor | string {
  if (c.kind === 'rgb') return c.hex;
  if (c.index < 16) return new vscode.ThemeColor(`terminal.ansi${c.index >= 8 ? 'Bright' : ''}${ANSI_NAMES[c.index % 8]}`);
  return xterm256Hex(c.index);
}

function decorationOptions(style: SgrStyle): vscode.DecorationRenderOptions {
  let fg: vscode.ThemeColor | string | undefined = style.fg ? themeColor(style.fg) : undefined;
  let bg: vscode.ThemeColor | string | undefined = style.bg ? themeColor(style.bg) : undefined;
  if (style.inverse) [fg, bg] = [bg ?? new vscode.ThemeColor('editor.background'), fg ?? new vscode.ThemeColor('editor.foreground')];
  const lines = [style.underline ? 'underline' : '', style.strikethrough ? 'line-through' : ''].filter(Boolean).join(' ');
  return {
    ...(fg ? { color: fg } : {}),
    ...(bg ? { backgroundColor: bg } : {}),
    ...(style.bold ? { fontWeight: 'bold' } : {}),
    ...(style.italic ? { fontStyle: 'italic' } : {}),
    ...(lines ? { textDecoration: lines } : {}),
    ...(style.dim ? { opacity: '0.65' } : {}),
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  };
}


export function registerAnsiDecorations(s: Services): { state(uri: string): AnsiDecorationState | undefined } {
  const hidden = vscode.window.createTextEditorDecorationType({
    // zero size and invisible: the characters stay in the document (offsets unchanged)
    textDecoration: 'none; font-size: 0; letter-spacing: 0',
    opacity: '0',
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  });
  const types = new Map<string, vscode.TextEditorDecorationType>();
  /** Decoration types each editor currently shows (to clear the ones no longer used). */
  const applied = new WeakMap<vscode.TextEditor, Set<vscode.TextEditorDecorationType>>();
  const states = new Map<string, AnsiDecorationState>();
  const timers = new Map<vscode.TextEditor, NodeJS.Timeout>();

  const typeFor = (style: SgrStyle, key: string): vscode.TextEditorDecorationType | undefined => {
    let t = types.get(key);
    if (!t && types.size < MAX_STYLES) {
      t = vscode.window.createTextEditorDecorationType(decorationOptions(style));
      types.set(key, t);
    }
    return t;
  };

  const enabled = (doc: vscode.TextDocument): boolean =>
    vscode.workspace.getConfiguration('errorExplainer', doc.uri).get<boolean>('ansi.render', true) && isLogDocument(doc);

  const clear = (editor: vscode.TextEditor): void => {
    for (const t of applied.get(editor) ?? []) editor.setDecorations(t, []);
    applied.delete(editor);
    states.delete(editor.document.uri.toString());
  };

  const update = (editor: vscode.TextEditor): void => {
    const doc = editor.document;
    if (doc.isClosed || !enabled(doc)) {
      clear(editor);
      return;
    }
    const windows = decorationWindows(
      doc.lineCount,
      doc.lineCount <= FULL_MAX_LINES ? doc.getText().length : Infinity,
      editor.visibleRanges.map((r) => ({ start: r.start.line, end: r.end.line })),
    );
    const escapes: vscode.Range[] = [];
    const byStyle = new Map<string, { style: SgrStyle; ranges: vscode.Range[] }>();
    for (const [from, to] of windows) {
      // SGR state carries across lines within a window; each window starts in the default style
      let state: SgrStyle = {};
      for (let line = from; line <= to; line++) {
        const text = doc.lineAt(line).text;
        if (!hasEscapes(text) && Object.keys(state).length === 0) continue;
        const parsed = parseAnsiLine(text, state);
        state = parsed.state;
        for (const e of parsed.escapes) escapes.push(new vscode.Range(line, e.start, line, e.end));
        for (const sp of parsed.spans) addSpan(byStyle, line, sp);
      }
    }
    const now = new Set<vscode.TextEditorDecorationType>();
    editor.setDecorations(hidden, escapes);
    now.add(hidden);
    const styles: AnsiDecorationState['styles'] = [];
    for (const [key, { style, ranges }] of byStyle) {
      const t = typeFor(style, key);
      if (!t) continue;
      editor.setDecorations(t, ranges);
      now.add(t);
      styles.push({ key, texts: ranges.slice(0, 50).map((r) => doc.getText(r)) });
    }
    for (const t of applied.get(editor) ?? []) if (!now.has(t)) editor.setDecorations(t, []);
    applied.set(editor, now);
    if (escapes.length || styles.length) states.set(doc.uri.toString(), { uri: doc.uri.toString(), lines: windows, hidden: escapes.length, hiddenTexts: escapes.slice(0, 50).map((r) => doc.getText(r)), styles });
    else states.delete(doc.uri.toString());
  };

  const schedule = (editor: vscode.TextEditor, delay = UPDATE_DELAY_MS): void => {
    const t = timers.get(editor);
    if (t) clearTimeout(t);
    timers.set(
      editor,
      setTimeout(() => {
        timers.delete(editor);
        try {
          update(editor);
        } catch (e) {
          s.output.warn(`ANSI decorations failed: ${e instanceof Error ? e.message : String(e)}`);
        }
      }, delay),
    );
  };
  const isLarge = (doc: vscode.TextDocument): boolean => doc.lineCount > FULL_MAX_LINES;

  vscode.window.visibleTextEditors.forEach((e) => schedule(e, 0));
  s.context.subscriptions.push(
    hidden,
    { dispose: () => types.forEach((t) => t.dispose()) },
    { dispose: () => timers.forEach((t) => clearTimeout(t)) },
    vscode.window.onDidChangeVisibleTextEditors((editors) => editors.forEach((e) => schedule(e, 0))),
    vscode.window.onDidChangeTextEditorVisibleRanges((e) => {
      if (isLarge(e.textEditor.document)) schedule(e.textEditor);
    }),
    vscode.workspace.onDidChangeTextDocument((e) => {
      if (!e.contentChanges.length) return;
      for (const ed of vscode.window.visibleTextEditors) if (ed.document === e.document) schedule(ed);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('errorExplainer.ansi') || e.affectsConfiguration('errorExplainer.logFiles')) vscode.window.visibleTextEditors.forEach((ed) => schedule(ed, 0));
    }),
    vscode.workspace.onDidOpenTextDocument((doc) => {
      // a language change (e.g. to "log") reopens the document
      for (const ed of vscode.window.visibleTextEditors) if (ed.document === doc) schedule(ed, 0);
    }),
  );
  return { state: (uri) => states.get(uri) };
}

function addSpan(byStyle: Map<string, { style: SgrStyle; ranges: vscode.Range[] }>, line: number, sp: StyledSpan): void {
  const key = styleKey(sp.style);
  let g = byStyle.get(key);
  if (!g) byStyle.set(key, (g = { style: sp.style, ranges: [] }));
  g.ranges.push(new vscode.Range(line, sp.start, line, sp.end));
}
