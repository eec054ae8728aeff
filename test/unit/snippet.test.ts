import * as assert from 'node:assert/strict';
import type { ErrorRecord } from '../../server/src/core/record';
import { languageById } from '../../server/src/core/languages';
import { type SnippetTarget, escapeSnippet, formatSnippet, planSnippet, snippetHeader, snippetLanguage, snippetToText, surroundWithTry } from '../../server/src/core/snippet';
import bundled from '../../records/sgl-project/sglang.json';

const seeds = bundled as unknown as ErrorRecord[];
const sent = structuredClone(seeds[0]!); // no-staged-embedding..., try/except MMError
const meta = structuredClone(seeds[1]!); // encode-metadata-not-ready, retry loop around try
const HEADER = '# error-explainer: no-staged-embedding-for-send-req-id-req';

const py = (over: Partial<SnippetTarget> = {}): SnippetTarget => ({
  languageId: 'python',
  indent: '',
  insertSpaces: true,
  tabSize: 4,
  eol: '\n',
  ...over,
});

describe('snippet', () => {
  describe('snippetLanguage (the one rule: which language a snippet is written in)', () => {
    const rec = (filePath: string | null): ErrorRecord => ({ ...sent, filePath });
    it('the document language when known (aliases too), else its path, else the id given with the record comments, else the record, else plaintext', () => {
      assert.deepEqual(snippetLanguage(rec('a/x.py'), 'typescript', '/w/x.py'), languageById('typescript'));
      assert.equal(snippetLanguage(rec('a/x.py'), 'ts', null).id, 'typescript');
      assert.deepEqual(snippetLanguage(rec('a/x.py'), 'plaintext', '/w/x.go'), languageById('go'));
      assert.deepEqual(snippetLanguage(rec('a/x.ts'), 'haxe', '/w/x.hx'), { ...languageById('typescript')!, id: 'haxe' });
      assert.deepEqual(snippetLanguage(rec('a/x.ts'), undefined, 'untitled:Untitled-1'), languageById('typescript'));
      assert.deepEqual(snippetLanguage(rec(null), undefined, null), { id: 'plaintext', lineComment: '#' });
      assert.deepEqual(snippetLanguage(rec(null), 'haxe'), { id: 'haxe', lineComment: '#' });
    });
  });

  describe('snippetHeader', () => {
    it('names the record by its slug (cut at a hyphen to 40 characters) in the language comment syntax', () => {
      assert.ok(HEADER.length <= 60, 'one short line');
      assert.equal(snippetHeader(sent, languageById('python')!), HEADER);
      assert.equal(snippetHeader(sent, languageById('typescript')!), HEADER.replace(/^#/, '//'));
      assert.equal(
        snippetHeader(sent, languageById('html')!),
        '<!-- ' + HEADER.slice(2) + ' -->',
      );
    });
    it('stays one line for hostile slugs and records without a file', () => {
      const r = { ...sent, slug: 'a\nb\r\nc\u001b[31m', filePath: null, lineNumber: null };
      assert.equal(snippetHeader(r, languageById('python')!), '# error-explainer: a b c[31m');
    });
  });

  describe('formatSnippet', () => {
    it('seed validationCode at a nested Python line, 4 spaces', () => {
      const out = formatSnippet(sent.validationCode!, sent, py({ indent: '        ' }));
      assert.equal(
        out,
        '        ' + HEADER + '\n' +
          '        if encoder_client.already_sent(req_id):\n' +
          '            skip_send(req_id)  # idempotency check before /send\n',
      );
    });

    it('converts indentation units: 2 spaces, tabs, CRLF', () => {
      const code = sent.tryCatchPattern!;
      assert.equal(
        formatSnippet(code, sent, py({ indent: '  ', tabSize: 2 })),
        '  ' + HEADER + '\n' +
          '  try:\n' +
          '    await encoder.send(req_id)\n' +
          '  except MMError as e:\n' +
          "    if 'already released' in str(e):\n" +
          '      treat_as_duplicate(req_id); return  # not fatal for this rank\n' +
          '    raise\n',
      );
      assert.equal(
        formatSnippet(code, sent, py({ indent: '\t', insertSpaces: false, eol: '\r\n' })),
        '\t' + HEADER + '\r\n' +
          '\ttry:\r\n' +
          '\t\tawait encoder.send(req_id)\r\n' +
          '\texcept MMError as e:\r\n' +
          "\t\tif 'already released' in str(e):\r\n" +
          '\t\t\ttreat_as_duplicate(req_id); return  # not fatal for this rank\r\n' +
          '\t\traise\r\n',
      );
    });

    it('strips common indentation, keeps blank lines empty, accepts tab-indented and CRLF snippets', () => {
      const code = '\n    if x:\r\n\r\n\ty()\n        z()\n\n';
      assert.equal(
        formatSnippet(code, sent, py({ indent: '  ', tabSize: 2 })),
        '  ' + HEADER + '\n' + '  if x:\n' + '\n' + '  y()\n' + '    z()\n',
      );
    });

    it('header comment follows the target language, falling back to the record language', () => {
      const ts = formatSnippet('a();', sent, py({ languageId: 'typescript' }));
      assert.equal(ts, HEADER.replace(/^#/, '//') + '\na();\n');
      const plain = formatSnippet('a()', sent, py({ languageId: 'plaintext' }));
      assert.equal(plain, HEADER + '\na()\n');
    });
  });

  describe('surroundWithTry', () => {
    it('seed tryCatchPattern: the selection becomes the try body (Python, 4 spaces)', () => {
      const selected = '        sent = await enc.send(req_id=req_id)\n        if sent:\n            log(sent)\n';
      const out = surroundWithTry(sent.tryCatchPattern!, selected, sent, py({ indent: '        ' }));
      assert.equal(
        out,
        '        ' + HEADER + '\n' +
          '        try:\n' +
          '            sent = await enc.send(req_id=req_id)\n' +
          '            if sent:\n' +
          '                log(sent)\n' +
          '        except MMError as e:\n' +
          "            if 'already released' in str(e):\n" +
          '                treat_as_duplicate(req_id); return  # not fatal for this rank\n' +
          '            raise\n',
      );
    });

    it('tabs, CRLF, no trailing line break in the selection', () => {
      const seed2 = structuredClone(seeds[2]!);
      const out = surroundWithTry(seed2.tryCatchPattern!, '\tawait register(a)\r\n\tlog()', seed2, py({ indent: '\t', insertSpaces: false, eol: '\r\n' }));
      assert.equal(
        out,
        '\t# error-explainer: inconsistent-receive-count-for-req-id\r\n' +
          '\ttry:\r\n' +
          '\t\tawait register(a)\r\n' +
          '\t\tlog()\r\n' +
          '\texcept BadRequestError:\r\n' +
          '\t\tregenerate_req_id_and_replay_request()  # topology changed mid-flight',
      );
    });

    it('a retry loop around the try is not surroundable (the caller inserts above)', () => {
      assert.equal(surroundWithTry(meta.tryCatchPattern!, 'x()\n', meta, py()), undefined);
    });

    it('brace languages: try { ... } catch', () => {
      const r = { ...sent, filePath: 'src/client.ts', lineNumber: 10 };
      const pattern = 'try {\n  await client.send(id);\n} catch (e) {\n  if (!(e instanceof MMError)) throw e;\n}';
      const out = surroundWithTry(pattern, '    const a = 1;\n    use(a);\n', r, { languageId: 'typescript', indent: '    ', insertSpaces: true, tabSize: 2, eol: '\n' });
      assert.equal(
        out,
        '    // error-explainer: no-staged-embedding-for-send-req-id-req\n' +
          '    try {\n' +
          '      const a = 1;\n' +
          '      use(a);\n' +
          '    } catch (e) {\n' +
          '      if (!(e instanceof MMError)) throw e;\n' +
          '    }\n',
      );
    });

    it('Go and Rust have no try; snippets without a try shape give undefined', () => {
      const go = { ...sent, filePath: 'main.go' };
      assert.equal(surroundWithTry('if err != nil {\n\treturn err\n}', 'x()', go, { ...py(), languageId: 'go' }), undefined);
      assert.equal(surroundWithTry(sent.tryCatchPattern!, 'x()', sent, { ...py(), languageId: 'rust' }), undefined);
      assert.equal(surroundWithTry('print(1)', 'x()', sent, py()), undefined);
      assert.equal(surroundWithTry('try:\n    a()\nprint(2)', 'x()', sent, py()), undefined);
      assert.equal(surroundWithTry(sent.tryCatchPattern!, '   \n', sent, py()), undefined);
    });
  });
});

describe('snippet planning (tab stops, the statement at the cursor)', () => {
  const fmt = { insertSpaces: true, tabSize: 4, eol: '\n' as const };
  const gatewayPy = [
    'class PaymentGatewayTimeout(Exception):',
    '    pass',
    '',
    '',
    'def charge(order, gateway):',
    '    response = gateway.post(order)',
    '    if response is None:',
    '        raise PaymentGatewayTimeout("late")',
    '    return response',
    '',
  ];
  const gw = {
    ...sent,
    slug: 'payment-gateway-timeout',
    errorClass: 'PaymentGatewayTimeout',
    filePath: 'payments/gateway.py',
    tryCatchPattern: 'try:\n    charge(order, gateway)\nexcept PaymentGatewayTimeout:\n    retry_with_same_idempotency_key(order)',
  } as ErrorRecord;

  it('a try/catch without a selection surrounds the statement at the cursor; unknown names become tab stops', () => {
    const p = planSnippet('tryCatch', gw.tryCatchPattern!, gw, { lines: gatewayPy, languageId: 'python' }, { line: 5 }, fmt);
    assert.deepEqual([p.start, p.end, p.replace, p.surrounds], [5, 5, true, true]);
    assert.equal(
      p.text,
      '    # error-explainer: payment-gateway-timeout\n    try:\n        response = gateway.post(order)\n    except PaymentGatewayTimeout:\n        retry_with_same_idempotency_key(order)',
    );
    // `order` and the class are known to the document; the retry helper is not
    assert.equal(p.snippet, p.text.replace('retry_with_same_idempotency_key', '${1:retry_with_same_idempotency_key}'));
    assert.equal(snippetToText(p.snippet), p.text);
  });

  it('a compound statement comes with its block; a clause line or a definition cannot be surrounded alone', () => {
    const p = planSnippet('tryCatch', gw.tryCatchPattern!, gw, { lines: gatewayPy, languageId: 'python' }, { line: 6 }, fmt);
    assert.deepEqual([p.start, p.end, p.replace], [6, 7, true]);
    const def = planSnippet('tryCatch', gw.tryCatchPattern!, gw, { lines: gatewayPy, languageId: 'python' }, { line: 4 }, fmt);
    assert.deepEqual([def.start, def.replace, def.surrounds], [4, false, false], 'inserted above a def');
    // a blank line: inserted with the indentation of the code below it
    const blank = planSnippet('validation', 'if not gateway.healthy():\n    raise PaymentGatewayTimeout(gateway.name)', gw, { lines: ['def f(gateway):', '', '    gateway.post()'], languageId: 'python' }, { line: 1 }, fmt);
    assert.equal(blank.text, '    # error-explainer: payment-gateway-timeout\n    if not gateway.healthy():\n        raise PaymentGatewayTimeout(gateway.name)\n');
  });

  it('a selection wins over the statement; the user code is never turned into tab stops', () => {
    const lines = ['x = compute($HOME)', 'y = other(x)'];
    const p = planSnippet('tryCatch', gw.tryCatchPattern!, gw, { lines, languageId: 'python' }, { line: 0, selection: { start: 0, end: 1 } }, fmt);
    assert.deepEqual([p.start, p.end], [0, 1]);
    assert.ok(p.snippet.includes('    x = compute(\\$HOME)\n    y = other(x)'), p.snippet);
  });

  it('TypeScript: a declaration stays outside the try (let), method chains and objects are one statement', () => {
    const ts = ['async function pay(order: Order) {', '  const res: Res = await client', "    .post('/pay', {", '      id: order.id,', '    });', '  return res;', '}'];
    const code = 'try {\n  await pay(order);\n} catch (e) {\n  if (e instanceof GatewayTimeout) scheduleRetry(order);\n  else throw e;\n}';
    const r = { ...gw, errorClass: 'GatewayTimeout', filePath: 'src/pay.ts' } as ErrorRecord;
    const p = planSnippet('tryCatch', code, r, { lines: ts, languageId: 'typescript' }, { line: 3 }, { ...fmt, tabSize: 2 });
    assert.deepEqual([p.start, p.end], [1, 4]);
    assert.equal(
      p.text,
      [
        '  // error-explainer: payment-gateway-timeout',
        '  let res: Res;',
        '  try {',
        '    res = await client',
        "      .post('/pay', {",
        '        id: order.id,',
        '      });',
        '  } catch (e) {',
        '    if (e instanceof GatewayTimeout) scheduleRetry(order);',
        '    else throw e;',
        '  }',
      ].join('\n'),
    );
    assert.ok(p.snippet.includes('${1:scheduleRetry}(order)'), p.snippet);
    assert.ok(p.snippet.includes('  \\} catch (e) {'), 'braces escaped in snippet syntax');
  });

  it('escapes and unescapes snippet syntax', () => {
    assert.equal(escapeSnippet('a $b } \\c'), 'a \\$b \\} \\\\c');
    assert.equal(snippetToText('${1:x} \\$y \\} $2 ${3:z}'), 'x $y }  z');
  });
});
