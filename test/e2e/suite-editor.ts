// Editor features in a real VS Code against test/fixtures/e2e-basic (trusted workspace):
// hover with captures, diagnostics that follow edits, code actions in a .py file and the exact
// text they leave, the Search command through the real QuickPick, explain selection / clipboard /
// text, errors in this file, record view, copy, raise site, snippet insertion, hot reload.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { DIAGNOSTIC_SOURCE } from '../../server/src/protocol';
import { runMocha } from './lib/mocha';
import {
  api,
  closeAllEditors,
  EXTENSION_ID,
  fixtureUri,
  hoverText,
  openFixture,
  poll,
  posOf,
  rangeOf,
  recordDocs,
  recordIdOf,
  tuple,
} from './lib/util';

const RECEIVE_COUNT_ID = 'a5259f8458270c81'; // bundled sglang record with three captures
const METADATA_ID = '12c38bb1afed0ec1'; // bundled "encode metadata not ready"
const GATEWAY_ID = '7e57000000000001'; // workspace record (.error-records/team.json)

/** Markdown with its backslash escapes removed: the text a reader sees. */
function plain(md: string): string {
  return md.replace(/\\([\\`*_{}[\]()#!|<>&~$.+=-])/g, '$1');
}

async function revertAll(): Promise<void> {
  for (const doc of vscode.workspace.textDocuments) {
    if (doc.isDirty && doc.uri.scheme === 'file') {
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('workbench.action.files.revert');
    }
  }
  await closeAllEditors();
}

function diagnosticsOf(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === DIAGNOSTIC_SOURCE);
}

/** Runs a command that shows a picker, waits for its items, accepts the active one through VS Code. */
async function acceptInPicker<T>(
  kind: string,
  run: () => Thenable<T>,
  itemsReady: (items: string[]) => boolean,
  moveDown = 0,
): Promise<{ result: T; items: string[] }> {
  const a = await api();
  const pending = run();
  const state = await poll(`the ${kind} picker to show its items`, () => {
    const p = a.picker();
    return p && p.kind === kind && !p.busy && itemsReady(p.items) ? p : undefined;
  });
  // Wait until the workbench has rendered these items (it reports the first one active), move, and
  // wait until the move arrived: the commands act on the rendered list, not on the extension's.
  await poll('the picker to render its first item', () => a.picker()?.active === state.items[0]);
  for (let i = 0; i < moveDown; i++) {
    await vscode.commands.executeCommand('workbench.action.quickOpenSelectNext');
    await poll(`item ${i + 2} to be active`, () => a.picker()?.active === state.items[i + 1]);
  }
  await vscode.commands.executeCommand('workbench.action.acceptSelectedQuickOpenItem');
  const result = await pending;
  return { result, items: state.items };
}

/** package.json written before the server starts: the one-time dataset suggestion (optIn) comes. */
const SHOP_PACKAGE_JSON = JSON.stringify({ name: 'shop', private: true, dependencies: { axios: '^1.6.0', express: '^4.18.0', pg: '^8.11.0' } }, null, 2);

export function run(): Promise<void> {
  return runMocha('editor', () => {
    let serverRanBeforePackageJson = false;
    before(async () => {
      const a = await api();
      serverRanBeforePackageJson = a.serverRunning();
      fs.writeFileSync(fixtureUri('package.json').fsPath, SHOP_PACKAGE_JSON);
      await a.ready();
      await poll('records loaded', () => (a.lastStatus()?.records ?? 0) >= 4);
    });
    afterEach(revertAll);

    describe('dataset suggestion', () => {
      it('shows the one-time suggestion for the workspace dependencies; closing it downloads nothing', async () => {
        assert.equal(serverRanBeforePackageJson, false, 'the server started before the test wrote package.json');
        const a = await api();
        const [shown] = await poll('the dataset suggestion', () => (a.datasetSuggestions().length ? a.datasetSuggestions() : undefined));
        assert.equal(shown!.params.kind, 'optIn');
        assert.match(shown!.params.message, /^Your workspace uses axios, express, pg\. Download ErrLookup's explanations/);
        assert.equal(shown!.answer, 'pending');
        const msg = a.messages().find((m) => m.key === 'dataset-suggestion');
        assert.ok(msg, 'the message went through the notifier');
        assert.equal(msg.text, `Error Explainer: ${shown!.params.message}`);
        assert.equal(msg.level, 'info');
        await vscode.commands.executeCommand('notifications.clearAll');
        const closed = await poll('the message closed', () => (a.datasetSuggestions()[0]?.answer !== 'pending' ? a.datasetSuggestions()[0] : undefined));
        assert.equal(closed.answer, undefined);
        assert.equal(closed.action, 'none');
        assert.equal(a.datasetSuggestions().length, 1);
        const st = (await vscode.commands.executeCommand('errorExplainer.datasetStatus')) as { optedIn: boolean; datasetVersion: string | null };
        assert.equal(st.optedIn, false, 'closing the suggestion does not opt in');
        assert.equal(st.datasetVersion, null);
        await vscode.commands.executeCommand('notifications.clearAll');
      });
    });

    describe('hover', () => {
      it('explains a matched log line with its captures', async () => {
        const editor = await openFixture('logs/app.log');
        const doc = editor.document;
        const md = await poll('a hover on the receive_count line', async () =>
          hoverText(doc.uri, posOf(doc, 'Inconsistent receive_count', 4)),
        );
        const text = plain(md);
        const [title, actions] = md.split('\n\n')[0]!.split('  \n');
        assert.match(plain(title!), /^\*\*BadRequestError\*\* · HTTP \d+ · error · sgl-project\/sglang · raised at \[`…\/encoder\/server\.py:\d+`\]\(https:\/\/github\.com\/[^)]+\)$/, 'a one-line title with the raise site');
        assert.match(actions!, /^\[Insert try\/catch\]\(command:errorExplainer\.insertSnippet\?/, 'the action links right under it');
        assert.ok(text.includes('register_embedding_destinations memoizes the expected receive_count'), text);
        // captures: name and value of each of the three holes, on one line
        assert.match(text, /\*\*Captured:\*\* req_id = `req-42` · registered_count = `2` · expected_destination_count = `3`/);
        assert.ok(!/match \(/.test(text), 'a likely match spends no line on its confidence');
        assert.ok(!text.includes('| Capture |') && !text.includes('Why it happens'), 'a glance, not the record view');
        // the only command links are the extension's own
        const commands = [...md.matchAll(/command:([\w.]+)/g)].map((m) => m[1]);
        assert.ok(commands.length > 0, 'hover has no action links');
        for (const c of commands) assert.ok(c?.startsWith('errorExplainer.'), `foreign command link ${c}`);
      });

      it('explains a workspace record and gives nothing on an ordinary line', async () => {
        const doc = (await openFixture('logs/app.log')).document;
        const md = await poll('a hover on the gateway line', () => hoverText(doc.uri, posOf(doc, 'did not answer', 2)));
        assert.ok(plain(md).includes('The payment gateway did not respond before the client-side timeout expired.'), md);
        assert.match(plain(md), /gateway = `stripe-eu` · seconds = `30`/);
        assert.equal(await hoverText(doc.uri, posOf(doc, 'worker 3 started', 2)), '');
      });
    });

    describe('diagnostics', () => {
      it('appear for each known error and follow edits', async () => {
        const editor = await openFixture('logs/app.log');
        const doc = editor.document;
        const initial = await poll('three diagnostics', () => {
          const d = diagnosticsOf(doc.uri);
          return d.length === 3 ? d : undefined;
        });
        const ranges = initial.map((d) => tuple(d.range)).sort((x, y) => x[0] - y[0]);
        assert.deepEqual(ranges[0], tuple(rangeOf(doc, 'encode metadata not ready')));
        // Problems read as the errors in the log, with the record's class as the code (linked to its source)
        const byLine = [...initial].sort((x, y) => x.range.start.line - y.range.start.line);
        assert.deepEqual(
          byLine.map((d) => [d.message, typeof d.code === 'object' ? d.code.value : d.code]),
          [
            ['encode metadata not ready', 'MMError'],
            ['Inconsistent receive_count for req_id=req-42: registered 2, got 3', 'BadRequestError'],
            ['gateway stripe-eu did not answer within 30s', 'PaymentGatewayTimeout'],
          ],
        );
        const code = byLine[1]!.code as { value: string; target: vscode.Uri };
        assert.equal(code.target.authority, 'github.com');
        // The receive_count diagnostic covers the matched span (from the message to its last capture).
        assert.deepEqual(ranges[1], tuple(rangeOf(doc, 'Inconsistent receive_count for req_id=req-42: registered 2, got 3')));

        // Append a line with a known error: one more diagnostic, on the new line.
        const end = doc.lineAt(doc.lineCount - 1).range.end;
        assert.ok(await editor.edit((b) => b.insert(end, '\n2026-11-29 10:00:08 ERROR encode metadata not ready')));
        const after = await poll('a fourth diagnostic on the appended line', () => {
          const d = diagnosticsOf(doc.uri);
          return d.length === 4 && d.some((x) => x.range.start.line === doc.lineCount - 1) ? d : undefined;
        });
        assert.equal(after.length, 4);

        // Delete the gateway line: its diagnostic goes, the others move up.
        const gw = posOf(doc, 'PaymentGatewayTimeout: gateway').line;
        assert.ok(await editor.edit((b) => b.delete(doc.lineAt(gw).rangeIncludingLineBreak)));
        await poll('the gateway diagnostic to go', () => {
          const d = diagnosticsOf(doc.uri);
          return d.length === 3 && d.every((x) => !doc.lineAt(x.range.start.line).text.includes('PaymentGatewayTimeout'));
        });
        const lines = diagnosticsOf(doc.uri).map((d) => doc.lineAt(d.range.start.line).text);
        assert.ok(lines.every((l) => /encode metadata not ready|Inconsistent receive_count/.test(l)), lines.join('\n'));
      });
    });

    describe('code actions in a .py file', () => {
      let GATEWAY_PY = '';
      before(() => {
        GATEWAY_PY = fs.readFileSync(fixtureUri('payments/gateway.py').fsPath, 'utf8');
      });

      it('"Insert validation" leaves the snippet, indented, above the raise line', async () => {
        // Matching the log makes the record "seen" (the raise line names its class anyway).
        await openFixture('logs/app.log');
        const editor = await openFixture('payments/gateway.py');
        const doc = editor.document;
        const at = posOf(doc, 'raise PaymentGatewayTimeout');
        const actions = await poll('code actions on the raise line', async () => {
          const list = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, new vscode.Range(at, at));
          return list?.some((a) => a.title.startsWith('Insert validation for PaymentGatewayTimeout')) ? list : undefined;
        });
        const action = actions.find((a) => a.title.startsWith('Insert validation for PaymentGatewayTimeout'));
        assert.ok(action?.edit, 'the validation action carries a workspace edit');
        assert.equal(action.kind?.value, 'quickfix', 'the raise line relates: a quick fix');
        assert.ok(await vscode.workspace.applyEdit(action.edit));
        const expected = GATEWAY_PY.replace(
          '        raise PaymentGatewayTimeout(f"gateway',
          [
            '        # error-explainer: payment-gateway-timeout',
            '        if not gateway.healthy():',
            '            raise PaymentGatewayTimeout(gateway.name)',
            '        raise PaymentGatewayTimeout(f"gateway',
          ].join('\n'),
        );
        assert.equal(doc.getText(), expected);
      });

      it('"Insert try/catch" surrounds the selected lines', async () => {
        await openFixture('logs/app.log'); // the gateway record is seen in the log
        const editor = await openFixture('payments/gateway.py');
        const doc = editor.document;
        const line = posOf(doc, 'response = gateway.post(order)').line;
        const range = doc.lineAt(line).range;
        editor.selection = new vscode.Selection(range.start, range.end);
        const actions = await poll('a try/catch action for the selection', async () => {
          const list = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, range);
          return list?.some((a) => a.title.startsWith('Insert try/catch for PaymentGatewayTimeout')) ? list : undefined;
        });
        const action = actions.find((a) => a.title.startsWith('Insert try/catch for PaymentGatewayTimeout'));
        assert.ok(action?.edit);
        assert.ok(await vscode.workspace.applyEdit(action.edit));
        const expected = GATEWAY_PY.replace(
          '    response = gateway.post(order)\n',
          [
            '    # error-explainer: payment-gateway-timeout',
            '    try:',
            '        response = gateway.post(order)',
            '    except PaymentGatewayTimeout:',
            '        retry_with_same_idempotency_key(order)',
            '',
          ].join('\n'),
        );
        assert.equal(doc.getText(), expected);
        // the name gateway.py does not know is the snippet's first tab stop, selected
        const sel = await poll('the first tab stop selected', () => {
          const e = vscode.window.activeTextEditor;
          return e?.document === doc && e.document.getText(e.selection) === 'retry_with_same_idempotency_key' ? e.selection : undefined;
        });
        assert.equal(sel.start.line, posOf(doc, 'retry_with_same_idempotency_key').line);
      });

      it('quick fixes only where the code relates: none on a blank line, the rest on demand as refactorings', async () => {
        await openFixture('logs/app.log'); // the records are "seen"
        const doc = (await openFixture('payments/gateway.py')).document;
        const blank = new vscode.Position(2, 0);
        assert.equal(doc.lineAt(2).text, '');
        const quick = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, new vscode.Range(blank, blank), 'quickfix');
        assert.deepEqual(quick.map((a) => a.title), []);
        const refactors = await poll('on-demand actions', async () => {
          const list = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, new vscode.Range(blank, blank), 'refactor');
          return list.length ? list : undefined;
        });
        assert.ok(refactors.every((a) => a.kind?.value === 'refactor.errorExplainer'), refactors.map((a) => a.kind?.value).join());
        // a call of the function a record is raised in relates (the bundled receive_count record,
        // raised in register_embedding_destinations, read from its source window)
        fs.writeFileSync(fixtureUri('payments/checkout.py').fsPath, 'async def checkout(server, req_id, urls):\n    await server.register_embedding_destinations(req_id, urls, 2)\n');
        const co = (await openFixture('payments/checkout.py')).document;
        const call = posOf(co, 'register_embedding_destinations(', 3);
        const onCall = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', co.uri, new vscode.Range(call, call), 'quickfix');
        assert.ok(onCall.some((a) => a.title.startsWith('Insert try/catch for BadRequestError: Inconsistent receive_count')), onCall.map((a) => a.title).join(' | '));
        fs.rmSync(fixtureUri('payments/checkout.py').fsPath);
      });

      it('"Insert Handling Snippet" inserts the chosen kind at the cursor line', async () => {
        const editor = await openFixture('payments/gateway.py');
        const doc = editor.document;
        const at = posOf(doc, 'if response is None');
        editor.selection = new vscode.Selection(at, at);
        const inserted = await vscode.commands.executeCommand<string>('errorExplainer.insertSnippet', { id: GATEWAY_ID, kind: 'validation' });
        assert.equal(
          inserted,
          '    # error-explainer: payment-gateway-timeout\n' +
            '    if not gateway.healthy():\n' +
            '        raise PaymentGatewayTimeout(gateway.name)\n',
        );
        assert.equal(doc.getText(), GATEWAY_PY.replace('    if response is None:', `${inserted}    if response is None:`));
      });
      it('the hover link "Insert try/catch" goes to the last code editor, even when the log hid it, and surrounds the statement at its cursor', async () => {
        const py = await openFixture('payments/gateway.py');
        const at = posOf(py.document, 'return response');
        py.selection = new vscode.Selection(at, at);
        await openFixture('logs/app.log'); // replaces the Python editor in the same group
        assert.ok(!vscode.window.visibleTextEditors.some((e) => e.document === py.document), 'the Python editor is hidden');
        const inserted = await vscode.commands.executeCommand<string>('errorExplainer.insertSnippet', { id: GATEWAY_ID, kind: 'tryCatch' });
        assert.equal(
          inserted,
          [
            '    # error-explainer: payment-gateway-timeout',
            '    try:',
            '        return response',
            '    except PaymentGatewayTimeout:',
            '        retry_with_same_idempotency_key(order)',
          ].join('\n'),
        );
        const editor = vscode.window.activeTextEditor;
        assert.equal(editor?.document, py.document);
        assert.equal(py.document.getText(), GATEWAY_PY.replace('    return response', inserted));
        assert.equal(editor.document.getText(editor.selection), 'retry_with_same_idempotency_key', 'the first tab stop is selected');
      });

      it('from a log, with several code files open, the user picks where the snippet goes', async () => {
        fs.writeFileSync(fixtureUri('payments/refund.py').fsPath, 'def refund(order, gateway):\n    gateway.refund(order)\n');
        const refund = await openFixture('payments/refund.py');
        const at = posOf(refund.document, 'gateway.refund');
        refund.selection = new vscode.Selection(at, at);
        await openFixture('payments/gateway.py'); // the last code editor
        await openFixture('logs/app.log');
        const { result, items } = await acceptInPicker(
          'snippetTarget',
          () => vscode.commands.executeCommand<string>('errorExplainer.insertSnippet', { id: GATEWAY_ID, kind: 'tryCatch' }),
          (items) => items.length === 2,
          1,
        );
        assert.deepEqual(items, ['payments/gateway.py', 'payments/refund.py']);
        assert.ok(result?.includes('        gateway.refund(order)'), result);
        assert.equal(vscode.window.activeTextEditor?.document, refund.document);
        assert.match(refund.document.getText(), /^def refund\(order, gateway\):\n {4}# error-explainer: payment-gateway-timeout\n {4}try:\n {8}gateway\.refund\(order\)\n {4}except PaymentGatewayTimeout:/);
        await vscode.commands.executeCommand('workbench.action.files.revert');
        await closeAllEditors();
        fs.rmSync(fixtureUri('payments/refund.py').fsPath);
      });
    });

    describe('search', () => {
      it('queries the server from the QuickPick and opens the chosen record', async () => {
        const { result, items } = await acceptInPicker(
          'search',
          () => vscode.commands.executeCommand<string | undefined>('errorExplainer.search', { query: 'receive_count' }),
          (items) => items.length > 0,
        );
        assert.ok(items[0]?.startsWith('Inconsistent receive_count for req_id='), items.join(' | '));
        assert.equal(result, RECEIVE_COUNT_ID);
        const view = await poll('the record view', () => recordDocs().find((d) => recordIdOf(d) === RECEIVE_COUNT_ID));
        const text = plain(view.getText());
        assert.ok(text.includes('register_embedding_destinations memoizes'), text);
        // the whole record: solutions, snippets and the source window with its lines
        assert.match(text, /#### Solutions/);
        assert.match(text, /#### Source \(lines 706–742\)/);
        // ... numbered, with the raise line (724) marked
        const raw = view.getText();
        assert.match(raw, /^→ 724 │ {17}raise BadRequestError\($/m); // separator + 16 spaces of indentation
        assert.match(raw, /^  706 │ /m);
        assert.equal((raw.match(/^→/gm) ?? []).length, 1);
        // the Markdown preview shows it
        await poll('a Markdown preview tab', () =>
          vscode.window.tabGroups.all.flatMap((g) => g.tabs).some((t) => t.input instanceof vscode.TabInputWebview && /markdown/i.test(t.input.viewType)),
        );
      });

      it('moves through the results with the quick-open commands', async () => {
        const { result, items } = await acceptInPicker(
          'search',
          () => vscode.commands.executeCommand<string | undefined>('errorExplainer.search', { query: 'MMError' }),
          (items) => items.length >= 2,
          1,
        );
        const [first, second] = [items[0] ?? '', items[1] ?? ''];
        assert.notEqual(first, second);
        const view = await poll('the record view of the chosen hit', () => recordDocs().find((d) => recordIdOf(d) === String(result)));
        // the view is the second hit's record, not the first's: its message is quoted under the title
        const quoted = /^> (.*)$/m.exec(plain(view.getText()))?.[1];
        assert.equal(quoted, second);
      });

      it('closes without opening anything when dismissed', async () => {
        const a = await api();
        const pending = vscode.commands.executeCommand<string | undefined>('errorExplainer.search', { query: 'metadata' });
        await poll('search results', () => a.picker()?.kind === 'search' && (a.picker()?.items.length ?? 0) > 0);
        await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
        assert.equal(await pending, undefined);
      });
    });

    describe('explain', () => {
      it('explains the selection and opens the record with its captures', async () => {
        const editor = await openFixture('logs/app.log');
        editor.selection = new vscode.Selection(
          posOf(editor.document, 'PaymentGatewayTimeout: gateway'),
          posOf(editor.document, 'within 30s', 'within 30s'.length),
        );
        const id = await vscode.commands.executeCommand<string>('errorExplainer.explainSelection');
        assert.equal(id, GATEWAY_ID);
        const view = await poll('the record view', () => recordDocs().find((d) => recordIdOf(d) === GATEWAY_ID));
        const text = plain(view.getText());
        assert.match(text, /\| gateway \| stripe-eu \|/);
        assert.ok(text.includes('Retry with the same idempotency key'), text);
      });

      it('offers a picker when the selection holds several errors', async () => {
        const editor = await openFixture('logs/app.log');
        const doc = editor.document;
        editor.selection = new vscode.Selection(new vscode.Position(0, 0), doc.lineAt(doc.lineCount - 1).range.end);
        const { result, items } = await acceptInPicker(
          'explain',
          () => vscode.commands.executeCommand<string>('errorExplainer.explainSelection'),
          (items) => items.length === 3,
        );
        assert.deepEqual(
          [...items].sort(),
          ['Inconsistent receive_count for req_id={req_id}: registered {registered_count}, got {expected_destination_count}', 'encode metadata not ready', 'gateway {gateway} did not answer within {seconds}s'].sort(),
        );
        assert.ok([METADATA_ID, RECEIVE_COUNT_ID, GATEWAY_ID].includes(String(result)));
      });

      it('explains the clipboard and a given text', async () => {
        await vscode.env.clipboard.writeText('worker failed: encode metadata not ready');
        assert.equal(await vscode.commands.executeCommand('errorExplainer.explainClipboard'), METADATA_ID);
        assert.equal(
          await vscode.commands.executeCommand('errorExplainer.explainText', 'Inconsistent receive_count for req_id=7: registered 1, got 4'),
          RECEIVE_COUNT_ID,
        );
        assert.equal(await vscode.commands.executeCommand('errorExplainer.explainText', 'all good here'), undefined);
      });

      it('lists the errors in this file and jumps to the chosen one', async () => {
        const editor = await openFixture('logs/app.log');
        const { result, items } = await acceptInPicker(
          'fileErrors',
          () => vscode.commands.executeCommand<number>('errorExplainer.showErrorsInFile'),
          (items) => items.length === 3,
        );
        assert.equal(result, 3);
        assert.ok(items.every((i) => i.startsWith('1× ')), items.join(' | '));
        const active = vscode.window.activeTextEditor;
        assert.equal(active?.document.uri.toString(), editor.document.uri.toString());
        // the selection is the matched span of the first listed record
        const message = (items[0] ?? '').replace(/^1× /, '');
        const pattern = new RegExp('^' + message.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '.+?') + '$');
        const selected = active.document.getText(active.selection);
        assert.match(selected, pattern);
      });
    });

    describe('record actions', () => {
      it('copies the explanation as Markdown', async () => {
        const md = await vscode.commands.executeCommand<string>('errorExplainer.copyExplanation', { id: GATEWAY_ID });
        assert.ok(md && md.includes('The payment gateway did not respond'), md);
        assert.equal(await vscode.env.clipboard.readText(), md);
      });

      it('goes to the local raise site', async () => {
        const target = await vscode.commands.executeCommand<string>('errorExplainer.goToRaiseSite', { id: GATEWAY_ID });
        assert.ok(target?.endsWith('payments/gateway.py'), target);
        const editor = await poll('the raise site editor', () =>
          vscode.window.activeTextEditor?.document.uri.path.endsWith('payments/gateway.py') ? vscode.window.activeTextEditor : undefined,
        );
        assert.equal(editor.selection.active.line, 7); // lineNumber 8, 1-based
      });
    });

    describe('on a problem (what Error Lens users expect)', () => {
      const config = () => vscode.workspace.getConfiguration('errorExplainer');
      afterEach(async () => {
        for (const key of ['records.exclude', 'diagnostics.severityOverrides', 'diagnostics.inlineMessage']) {
          await config().update(key, undefined, vscode.ConfigurationTarget.Global);
        }
      });

      it('copy, search, lower the severity, ignore: quick fixes whose commands change the settings the server honours', async () => {
        const doc = (await openFixture('logs/app.log')).document;
        const diag = await poll('the receive_count problem', () => diagnosticsOf(doc.uri).find((d) => d.message.startsWith('Inconsistent receive_count')));
        const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, diag.range, 'quickfix');
        const titles = actions.map((a) => a.title);
        for (const t of ['Copy error message', 'Search the web for this error', 'Show BadRequestError problems as warnings']) assert.ok(titles.includes(t), titles.join(' | '));
        const by = (prefix: string) => actions.find((a) => a.title.startsWith(prefix))!.command!;
        // copy
        const copy = by('Copy error message');
        assert.equal(await vscode.commands.executeCommand(copy.command, ...(copy.arguments ?? [])), diag.message);
        assert.equal(await vscode.env.clipboard.readText(), diag.message);
        // lower the severity: the user settings get the override, the problem turns into a warning
        const lower = by('Show BadRequestError problems as warnings');
        await vscode.commands.executeCommand(lower.command, ...(lower.arguments ?? []));
        assert.deepEqual(config().inspect('diagnostics.severityOverrides')?.globalValue, { 'inconsistent-receive-count-for-req-id-req-id-re': 'warning' });
        await poll('the problem shown as a warning', () =>
          diagnosticsOf(doc.uri).some((d) => d.message === diag.message && d.severity === vscode.DiagnosticSeverity.Warning),
        );
        // ignore: the record's problems and hovers go away
        const ignore = by('Ignore BadRequestError');
        await vscode.commands.executeCommand(ignore.command, ...(ignore.arguments ?? []));
        assert.deepEqual(config().inspect('records.exclude')?.globalValue, ['inconsistent-receive-count-for-req-id-req-id-re']);
        await poll('the ignored record gone from Problems', () => !diagnosticsOf(doc.uri).some((d) => d.message === diag.message) && diagnosticsOf(doc.uri).length === 2);
        assert.equal(await hoverText(doc.uri, posOf(doc, 'Inconsistent receive_count', 4)), '');
        const a = await api();
        assert.ok(a.messages().some((m) => m.key === 'record-ignored' && m.text.includes('BadRequestError')));
      });

      it('errorExplainer.diagnostics.inlineMessage shows each problem at the end of its line', async () => {
        const a = await api();
        const doc = (await openFixture('logs/app.log')).document;
        await poll('three problems', () => diagnosticsOf(doc.uri).length === 3);
        assert.deepEqual(a.inlineMessages(doc.uri.toString()), [], 'off by default');
        await config().update('diagnostics.inlineMessage', true, vscode.ConfigurationTarget.Global);
        const shown = await poll('end-of-line messages', () => (a.inlineMessages(doc.uri.toString()).length === 3 ? a.inlineMessages(doc.uri.toString()) : undefined));
        assert.deepEqual(
          shown.map((m) => [doc.lineAt(m.line).text.includes(m.text), m.severity]),
          [[true, 'error'], [true, 'error'], [true, 'error']],
        );
        await config().update('diagnostics.inlineMessage', false, vscode.ConfigurationTarget.Global);
        await poll('messages removed', () => a.inlineMessages(doc.uri.toString()).length === 0);
      });

      it('a task running `error-explainer scan` with the $error-explainer problem matcher fills the Problems panel', async () => {
        const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
        const cli = path.join(ext.extensionPath, 'dist', 'cli.js');
        const log = fixtureUri('logs/task-output.txt');
        fs.copyFileSync(fixtureUri('logs/app.log').fsPath, log.fsPath); // not a log file for the server: only the task reports it
        const folder = vscode.workspace.workspaceFolders![0]!;
        const task = new vscode.Task(
          { type: 'process' },
          folder,
          'scan',
          'error-explainer',
          // the workspace's own records too, as a tasks.json would pass them (the CLI reads only
          // what it is given); the log by its absolute path, as `${file}` gives it
          new vscode.ProcessExecution(process.execPath, [cli, 'scan', '--records', '.error-records', log.fsPath], { cwd: folder.uri.fsPath }),
          ['$error-explainer'],
        );
        const done = new Promise<number | undefined>((resolve) => {
          const sub = vscode.tasks.onDidEndTaskProcess((e) => {
            if (e.execution.task.name === 'scan') {
              sub.dispose();
              resolve(e.exitCode);
            }
          });
        });
        await vscode.tasks.executeTask(task);
        assert.equal(await done, 0, 'the scan ran');
        const problems = await poll('three problems from the task', () => {
          const d = vscode.languages.getDiagnostics(log).filter((x) => x.source === 'error-explainer scan');
          if (d.length === 3) return d;
          throw new Error(JSON.stringify(d.map((x) => x.message))); // shown when the poll times out
        });
        const doc = await vscode.workspace.openTextDocument(log);
        assert.deepEqual(
          problems.map((d) => [d.range.start.line, d.range.start.character, d.message, typeof d.code === 'object' ? d.code.value : d.code, d.severity]),
          [
            [posOf(doc, 'encode metadata').line, posOf(doc, 'encode metadata').character, 'encode metadata not ready', 'MMError', vscode.DiagnosticSeverity.Error],
            [posOf(doc, 'Inconsistent').line, posOf(doc, 'Inconsistent').character, 'Inconsistent receive_count for req_id=req-42: registered 2, got 3', 'BadRequestError', vscode.DiagnosticSeverity.Error],
            [posOf(doc, 'gateway stripe-eu').line, posOf(doc, 'gateway stripe-eu').character, 'gateway stripe-eu did not answer within 30s', 'PaymentGatewayTimeout', vscode.DiagnosticSeverity.Error],
          ],
        );
      });
    });

    describe('hot reload', () => {
      it('a record file written into .error-records/ takes effect without a restart', async () => {
        const doc = (await openFixture('logs/app.log')).document;
        const pos = posOf(doc, 'cache shard s-07', 3);
        assert.equal(await hoverText(doc.uri, pos), '', 'no record knows this line yet');
        const record = {
          id: '7e57000000000002',
          repo: 'acme/cache',
          slug: 'cache-shard-read-only',
          errorMessage: 'cache shard {shard} is read-only',
          errorClass: 'ReadOnlyShard',
          documentation: 'The shard was switched to read-only after its disk filled up.',
        };
        fs.writeFileSync(fixtureUri('.error-records/hot.json').fsPath, JSON.stringify([record], null, 2));
        const md = await poll('the new record in the hover', () => hoverText(doc.uri, pos), 60000, 250);
        assert.ok(plain(md).includes('The shard was switched to read-only after its disk filled up.'), md);
        assert.match(plain(md), /shard = `s-07`/);
        await poll('a diagnostic for the new record', () =>
          diagnosticsOf(doc.uri).some((d) => doc.lineAt(d.range.start.line).text.includes('cache shard s-07')),
        );
      });
    });
  });
}
