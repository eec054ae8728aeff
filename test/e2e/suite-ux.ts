// What users see, in a real VS Code (issue 15): ANSI colours of logs as decorations with the
// escapes hidden and ranges exact; the status item and its menu; Search showing recent errors;
// record tabs titled by the error with Insert/Copy actions; the first-run walkthrough.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { runMocha } from './lib/mocha';
import { api, closeAllEditors, fixtureUri, hoverText, openFixture, poll, posOf } from './lib/util';

const COLORED = 'logs/colored.log';

/** Texts decorated with the style whose key starts with `fg|bg|bold...` (core/ansi.ts styleKey). */
function textsOf(state: { styles: { key: string; texts: string[] }[] }, key: string): string[] {
  return state.styles.find((s) => s.key === key)?.texts ?? [];
}

export function run(): Promise<void> {
  return runMocha('ux', () => {
    describe('ANSI-coloured logs', () => {
      after(async () => {
        await vscode.workspace.getConfiguration('errorExplainer').update('ansi.render', undefined, vscode.ConfigurationTarget.Global);
        await closeAllEditors();
      });

      it('colours the text of coloured spans and hides every escape sequence', async () => {
        const a = await api();
        const editor = await openFixture(COLORED);
        const uri = editor.document.uri.toString();
        const st = await poll('ANSI decorations', () => a.ansiDecorations(uri));
        // styleKey: fg|bg|bold|dim|italic|underline|inverse|strike (palette index or #hex)
        assert.deepEqual(textsOf(st, '1||b|||||'), ['ERROR', 'Inconsistent'], 'bold red (1;31 and grep\'s 01;31)');
        assert.deepEqual(textsOf(st, '1|||||||'), ['MMError: encode metadata not ready']);
        assert.deepEqual(textsOf(st, '208|||||||'), ['2026-11-29 10:00:04 WARN'], '256-colour');
        assert.deepEqual(textsOf(st, '#787878|||||||'), ['2026-11-29 10:00:07 DEBUG done'], 'truecolor');
        assert.deepEqual(
          textsOf(st, '3|||||||'),
          ['Traceback (most recent call last):', '  File "worker.py", line 12, in <module>', 'ValueError: bad value'],
          'the colour carries over line ends until the reset',
        );
        const escapes = editor.document.getText().match(/\x1b\[[0-9;]*[mK]/g)!.length;
        assert.ok(st.hidden > 0 && st.hidden <= escapes);
        for (const h of st.hiddenTexts) assert.match(h, /^(\x1b\[[0-9;]*[A-Za-z])+$/, `only escape sequences are hidden: ${JSON.stringify(h)}`);
        // what is left visible is what the matcher reads
        assert.deepEqual(st.lines, [[0, editor.document.lineCount - 1]]);
      });

      it('keeps diagnostics and hovers on the exact text of coloured lines', async () => {
        const doc = (await openFixture(COLORED)).document;
        const diags = await poll('diagnostics of the coloured log', () => {
          const d = vscode.languages.getDiagnostics(doc.uri);
          return d.length >= 2 ? d : undefined;
        });
        // the ranges are in the original text: grep's colour reset inside the match stays inside
        // the range (hidden on screen), and the range starts and ends on the visible characters
        const texts = diags.map((d) => doc.getText(d.range)).sort();
        assert.deepEqual(texts, ['Inconsistent\x1b[m\x1b[K receive_count for req_id=req-42: registered 2, got 3', 'encode metadata not ready']);
        const hover = await hoverText(doc.uri, posOf(doc, 'metadata not ready', 2));
        assert.match(hover, /MMError/);
      });

      it('recomputes on edits and follows the setting', async () => {
        const a = await api();
        const editor = await openFixture(COLORED);
        const uri = editor.document.uri.toString();
        const edit = new vscode.WorkspaceEdit();
        edit.insert(editor.document.uri, new vscode.Position(editor.document.lineCount, 0), '\x1b[35mappended in magenta\x1b[0m\n');
        assert.ok(await vscode.workspace.applyEdit(edit));
        await poll('the appended line decorated', () => textsOf(a.ansiDecorations(uri) ?? { styles: [] }, '5|||||||').includes('appended in magenta'));
        await vscode.workspace.getConfiguration('errorExplainer').update('ansi.render', false, vscode.ConfigurationTarget.Global);
        await poll('decorations removed when the setting is off', () => a.ansiDecorations(uri) === undefined);
        await vscode.workspace.getConfiguration('errorExplainer').update('ansi.render', true, vscode.ConfigurationTarget.Global);
        await poll('decorations back', () => a.ansiDecorations(uri));
      });

      it('decorates a large log around the visible lines only, and follows scrolling', async () => {
        const a = await api();
        const big = fixtureUri('logs/big.log');
        const lines: string[] = [];
        for (let i = 0; i < 30000; i++) lines.push(`\x1b[32m2026-11-29 10:${String(i % 60).padStart(2, '0')}\x1b[0m line ${i} \x1b[31mred ${i}\x1b[0m`);
        fs.writeFileSync(big.fsPath, lines.join('\n') + '\n');
        const editor = await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(big), { preview: false });
        const uri = editor.document.uri.toString();
        const first = await poll('decorations of the big log', () => a.ansiDecorations(uri));
        assert.equal(first.lines.length, 1);
        const [from, to] = first.lines[0]!;
        assert.ok(from === 0 && to < 1000, `only a window around the top: ${JSON.stringify(first.lines)}`);
        editor.revealRange(new vscode.Range(20000, 0, 20000, 0), vscode.TextEditorRevealType.AtTop);
        const later = await poll('decorations after scrolling', () => {
          const s = a.ansiDecorations(uri);
          return s && s.lines.some(([f, t]) => f <= 20000 && t >= 20000) ? s : undefined;
        });
        assert.ok(later.lines.every(([f, t]) => t - f < 2000), JSON.stringify(later.lines));
        const win = later.lines.find(([f, t]) => f <= 20000 && t >= 20000)!;
        assert.equal(textsOf(later, '1|||||||')[0], `red ${win[0]}`, 'decorations start at the window');
      });
    });

    describe('discoverability', () => {
      const RECEIVE_COUNT_ID = 'a5259f8458270c81';
      afterEach(async () => {
        await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
      });
      after(closeAllEditors);

      it('the status item says what it counts; its tooltip names the extension', async () => {
        const a = await api();
        await a.ready();
        const text = await poll('the records status item', () => (/^\$\(book\) [\d,]+ error records?$/.test(a.statusText().records) ? a.statusText() : undefined));
        const n = a.lastStatus()!.records;
        assert.equal(text.records, `$(book) ${n.toLocaleString('en-US')} error record${n === 1 ? '' : 's'}`);
        assert.match(text.recordsTooltip, new RegExp(`^Error Explainer: ${n.toLocaleString('en-US')} error records? loaded\n`));
        assert.match(text.recordsTooltip, /bundled: \d+ records? from /);
      });

      it('its menu offers search, errors in this file, reload, the dataset, output, settings, get started', async () => {
        const a = await api();
        await openFixture('logs/app.log');
        const pending = vscode.commands.executeCommand('errorExplainer.statusMenu');
        const picker = await poll('the status menu', () => (a.picker()?.kind === 'status' && a.picker()!.items.length ? a.picker() : undefined));
        const labels = picker.items.map((l) => l.replace(/^\$\([^)]+\) /, ''));
        for (const want of ['Search Error Records', 'Show Errors in This File', 'Reload Records', 'Download ErrLookup Dataset…', 'ErrLookup Dataset Status', 'Show Output', 'Open Settings', 'Get Started']) {
          assert.ok(labels.includes(want), `${want} missing from ${labels.join(' | ')}`);
        }
        await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
        assert.equal(await pending, undefined);
      });

      it('"Error Explainer: Status" is in the command palette; the record settings show in User settings', () => {
        const pkg = vscode.extensions.getExtension('error-explainer.error-explainer')!.packageJSON as {
          contributes: { menus: { commandPalette: { command: string; when?: string }[] }; configuration: { properties: Record<string, { scope?: string }> } };
          capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
        };
        const hidden = pkg.contributes.menus.commandPalette.filter((m) => m.when === 'false').map((m) => m.command);
        assert.ok(!hidden.includes('errorExplainer.statusMenu'), hidden.join(', '));
        // machine / machine-overridable settings are hidden from the User tab of a remote window
        for (const key of ['errorExplainer.records.paths', 'errorExplainer.dataset.url', 'errorExplainer.dataset.repos']) {
          assert.ok(!/^machine/.test(pkg.contributes.configuration.properties[key]!.scope ?? ''), key);
          assert.ok(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(key), `${key} is restricted in untrusted workspaces`);
        }
      });

      it('Search opens with the errors seen recently, where they were seen', async () => {
        const a = await api();
        const doc = (await openFixture('logs/app.log')).document;
        await poll('app.log diagnosed', () => vscode.languages.getDiagnostics(doc.uri).length >= 2);
        const pending = vscode.commands.executeCommand<string | undefined>('errorExplainer.search');
        const picker = await poll('recent errors in the empty search', () => (a.picker()?.kind === 'search' && a.picker()!.items.length ? a.picker() : undefined));
        assert.equal(picker.value, '');
        assert.ok(picker.items.includes('Inconsistent receive_count for req_id={req_id}: registered {registered_count}, got {expected_destination_count}'), picker.items.join(' | '));
        assert.ok(picker.items.includes('encode metadata not ready'), picker.items.join(' | '));
        await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
        assert.equal(await pending, undefined);
      });

      it('record tabs are titled by class and message; Copy acts on the record the active view shows', async () => {
        await closeAllEditors();
        const matchedText = 'Inconsistent receive_count for req_id=req-42: registered 2, got 3';
        await vscode.commands.executeCommand('errorExplainer.openRecord', { id: RECEIVE_COUNT_ID, captures: [{ name: 'req_id', value: 'req-42' }], matchedText });
        const tab = await poll('the record preview tab', () =>
          vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputWebview && t.label.startsWith('Preview ')),
        );
        // the class and the line's own text (not the template with {req_id}), one short line
        assert.equal(tab.label, 'Preview BadRequestError: Inconsistent receive_count for req_id=req-42: register…');
        assert.ok(!tab.label.includes(RECEIVE_COUNT_ID));
        await poll('the preview active', () => vscode.window.tabGroups.activeTabGroup.activeTab === tab || vscode.window.tabGroups.activeTabGroup.activeTab?.label === tab.label);
        const md = await vscode.commands.executeCommand<string | undefined>('errorExplainer.recordView.copyExplanation');
        assert.ok(md && md.includes('Inconsistent receive_count'), String(md));
        assert.match(md!, /req\\?_id.*req-42/, 'the view\'s captures are copied too');
        assert.equal(await vscode.env.clipboard.readText(), md);
      });

      it('the walkthrough opens, and its sample log is diagnosed and coloured', async () => {
        const a = await api();
        await vscode.commands.executeCommand('errorExplainer.getStarted');
        await poll('the walkthrough editor', () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => /Welcome|Walkthrough|Get Started/i.test(t.label)));
        const uri = await vscode.commands.executeCommand<string>('errorExplainer.openSampleLog');
        assert.match(uri, /media\/walkthrough\/sample\.log$/);
        const diags = await poll('diagnostics of the sample log', () => {
          const d = vscode.languages.getDiagnostics(vscode.Uri.parse(uri));
          return d.length >= 5 ? d : undefined;
        });
        assert.equal(diags.length, 5);
        const st = await poll('ANSI decorations of the sample log', () => a.ansiDecorations(uri));
        assert.ok(textsOf(st, '1|||||||').includes('MMError: encode metadata not ready'));
      });
    });
  });
}
