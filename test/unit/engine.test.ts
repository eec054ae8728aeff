import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MatchEngine, type EngineEntry, type LineMatch } from '../../server/src/core/engine';
import { ChainMatcher } from '../../server/src/core/engine/matchers';
import { captureNames, derivePattern, parseSimplePattern } from '../../server/src/core/pattern';
import { rng } from '../bench/gen';

interface SeedRecord {
  id: string;
  errorMessage: string;
  messagePattern: string;
  errorCode: string | null;
}
const seeds: SeedRecord[] = JSON.parse(fs.readFileSync(path.join(__dirname, '../../records/sgl-project/sglang.json'), 'utf8'));
const seedEntries: EngineEntry[] = seeds.map((r) => ({ id: r.id, pattern: r.messagePattern, captureNames: captureNames(r.errorMessage, r.messagePattern), errorCode: r.errorCode }));
const seedEngine = MatchEngine.build(seedEntries);
const seedIndex = (needle: string) => seeds.findIndex((r) => r.messagePattern.includes(needle));
const RECEIVE = seedIndex('receive_count');
const STAGED = seedIndex('no staged embedding');
const METADATA = seedIndex('encode metadata');

function entry(id: string, message: string, errorCode: string | null = null): EngineEntry {
  const pattern = derivePattern(message);
  return { id, pattern, captureNames: captureNames(message, pattern), errorCode };
}
function regexEntry(id: string, pattern: string, errorCode: string | null = null): EngineEntry {
  return { id, pattern, captureNames: captureNames('', pattern), errorCode };
}

/** Captures as name -> [value, original text at the reported offsets]. */
function caps(line: string, m: LineMatch): Record<string, [string, string]> {
  const out: Record<string, [string, string]> = {};
  for (const c of m.captures) out[c.name] = [c.value, line.slice(c.start, c.end)];
  return out;
}

function only(matches: LineMatch[], entryIndex: number): LineMatch {
  const m = matches.filter((x) => x.entry === entryIndex);
  assert.equal(m.length, 1, `expected one match of entry ${entryIndex}, got ${m.length}`);
  return m[0]!;
}

describe('engine: seed records', () => {
  it('matches the three real records with named captures and original offsets', () => {
    const line = 'ERROR 2025-01-01 Inconsistent receive_count for req_id=abc-1: registered 3, got 10';
    const m = only(seedEngine.matchLine(line), RECEIVE);
    assert.equal(m.start, line.indexOf('Inconsistent'));
    assert.equal(m.end, line.length);
    assert.equal(m.text, line.slice(m.start));
    assert.deepEqual(caps(line, m), {
      req_id: ['abc-1', 'abc-1'],
      registered_count: ['3', '3'],
      expected_destination_count: ['10', '10'],
    });

    const l2 = '[w3] no staged embedding for /send req_id=42 (already released) - dropping';
    const m2 = only(seedEngine.matchLine(l2), STAGED);
    assert.equal(m2.text, 'no staged embedding for /send req_id=42 (already released)');
    assert.deepEqual(caps(l2, m2), { req_id: ['42', '42'] });

    const l3 = 'RuntimeError: encode metadata not ready';
    const m3 = only(seedEngine.matchLine(l3), METADATA);
    assert.equal(m3.start, l3.indexOf('encode'));
    assert.deepEqual(m3.captures, []);
  });

  it('reports nothing for near misses', () => {
    assert.deepEqual(seedEngine.matchLine('Inconsistent receive_count for req_id=1: got 10, registered 3'), []);
    assert.deepEqual(seedEngine.matchLine('encode metadata is not ready'), []);
    assert.deepEqual(seedEngine.matchLine(''), []);
    assert.deepEqual(seedEngine.candidates('nothing relevant in this line at all'), [], 'no candidates');
    assert.ok(seedEngine.candidates('x encode metadata not ready').length > 0);
  });
});

describe('engine: trailing values', () => {
  it('extends a trailing (.+?) to the end of a plain line, without trailing whitespace or CR', () => {
    for (const tail of ['', '   ', '\t', '\r', ' \r']) {
      const line = `Inconsistent receive_count for req_id=7: registered 3, got 10${tail}`;
      const m = only(seedEngine.matchLine(line), RECEIVE);
      assert.deepEqual(caps(line, m).expected_destination_count, ['10', '10'], JSON.stringify(tail));
      assert.equal(m.end, line.indexOf('10') + 2);
    }
    // plain JS regex semantics would give one character
    assert.equal(new RegExp(seeds[RECEIVE]!.messagePattern).exec('… registered 3, got 10'), null);
    const re = new RegExp(seeds[RECEIVE]!.messagePattern).exec('Inconsistent receive_count for req_id=7: registered 3, got 10');
    assert.equal(re?.[3], '1');
  });

  it('extends to the closing quote of the JSON string it sits in', () => {
    const line = '{"level":"error","msg":"Inconsistent receive_count for req_id=7: registered 3, got 10","pid":12}';
    const m = only(seedEngine.matchLine(line), RECEIVE);
    assert.deepEqual(caps(line, m).expected_destination_count, ['10', '10']);
    assert.equal(m.end, line.indexOf('","pid"'));
    assert.equal(m.start, line.indexOf('Inconsistent'));
  });

  it('extends a trailing group of a hand-written regex too', () => {
    const e = MatchEngine.build([regexEntry('a', 'worker (\\d+) died: (.+?)')]);
    const line = 'worker 12 died: out of memory  ';
    const m = only(e.matchLine(line), 0);
    assert.deepEqual(caps(line, m), { '1': ['12', '12'], '2': ['out of memory', 'out of memory'] });
  });
});

describe('engine: dressed-up lines', () => {
  it('matches inside JSON strings with escaped quotes and \\uXXXX, offsets in the original line', () => {
    const line = '{"ts":1,"msg":"Inconsistent receive_count for req_id=\\"r\\u00e9q\\": registered 3, got \\u00bd\\ud83d\\ude00"}';
    const m = only(seedEngine.matchLine(line), RECEIVE);
    const c = caps(line, m);
    assert.deepEqual(c.req_id, ['"réq"', '\\"r\\u00e9q\\"']);
    assert.deepEqual(c.expected_destination_count, ['½😀', '\\u00bd\\ud83d\\ude00']);
    assert.equal(m.start, line.indexOf('Inconsistent'));
    assert.equal(m.end, line.lastIndexOf('"}'));
  });

  it('matches a JSON line without escapes once, preferring the string value', () => {
    const line = '{"msg": "encode metadata not ready", "other": "encode metadata not ready"}';
    const ms = seedEngine.matchLine(line);
    assert.equal(ms.length, 1);
    assert.equal(ms[0]!.start, line.indexOf('encode'));
  });

  it('matches patterns spanning JSON structure in the raw line', () => {
    const e = MatchEngine.build([entry('a', '"code": {code}, "msg"')]);
    const line = '{"code": 17, "msg": "x"}';
    const m = only(e.matchLine(line), 0);
    assert.deepEqual(caps(line, m), { code: ['17', '17'] });
  });

  it('strips ANSI colours and OSC 633 marks, mapping offsets back', () => {
    const line = '\x1b]633;C\x07\x1b[31mInconsistent receive_count\x1b[0m for req_id=\x1b[1m9\x1b[0m: registered 3, got 4\x1b]633;D;1\x07';
    const m = only(seedEngine.matchLine(line), RECEIVE);
    assert.equal(m.start, line.indexOf('Inconsistent'));
    assert.deepEqual(caps(line, m).req_id, ['9', '9']);
    assert.deepEqual(caps(line, m).expected_destination_count, ['4', '4']);
    assert.equal(m.end, line.indexOf('\x1b]633;D'));
  });

  it('accepts CRLF', () => {
    const line = 'x no staged embedding for /send req_id=5 (already released)\r';
    const m = only(seedEngine.matchLine(line), STAGED);
    assert.equal(m.end, line.indexOf('\r'));
  });

  it('reports UTF-16 offsets after astral characters', () => {
    const line = '🔥🔥 [ℹ] encode metadata not ready 🚀';
    const m = only(seedEngine.matchLine(line), METADATA);
    assert.equal(m.start, line.indexOf('encode'));
    assert.equal(m.end, line.indexOf(' 🚀'));
    const l2 = '😀 Inconsistent receive_count for req_id=🚀: registered 😀, got 𝄞x';
    const m2 = only(seedEngine.matchLine(l2), RECEIVE);
    assert.deepEqual(caps(l2, m2), { req_id: ['🚀', '🚀'], registered_count: ['😀', '😀'], expected_destination_count: ['𝄞x', '𝄞x'] });
  });

  it('does not let holes span line terminators inside a line', () => {
    const e = MatchEngine.build([entry('a', 'alpha {x} omega')]);
    assert.deepEqual(e.matchLine('alpha 1\rmore omega'), []);
    const line = 'alpha 1\ralpha 2 omega';
    const m = only(e.matchLine(line), 0);
    assert.equal(m.start, line.lastIndexOf('alpha'));
  });
});

describe('engine: ranking', () => {
  const entries = [
    entry('0000000000000005', 'connection refused by {host}'),
    entry('0000000000000004', 'connection refused by {host} on port {port}'),
    entry('0000000000000003', 'refused by {host}', 'ECONNREFUSED'),
    entry('0000000000000002', 'connection refused by {host}'),
  ];
  const e = MatchEngine.build(entries);

  it('puts the record whose errorCode is in the line first, then more literal characters, then longer span, then id', () => {
    const line = 'ECONNREFUSED: connection refused by db1 on port 5432';
    const ranked = e.matchLine(line).map((m) => entries[m.entry]!.id);
    assert.deepEqual(ranked, ['0000000000000003', '0000000000000004', '0000000000000002', '0000000000000005']);
    const first = e.matchLine(line)[0]!;
    assert.equal(first.codeInLine, true);
  });

  it('needs the errorCode as a token, not inside a word', () => {
    const line = 'XECONNREFUSEDX: connection refused by db1 on port 5432';
    const ms = e.matchLine(line);
    assert.equal(ms.every((m) => !m.codeInLine), true);
    assert.equal(entries[ms[0]!.entry]!.id, '0000000000000004');
  });

  it('prefers the longer span when literal lengths tie', () => {
    const ents = [regexEntry('b', 'timeout after \\d+'), regexEntry('a', 'timeout after \\d'), regexEntry('c', 'timeout after \\d{2}')];
    const eng = MatchEngine.build(ents);
    const ms = eng.matchLine('timeout after 1234 ms');
    assert.deepEqual(
      ms.map((m) => ents[m.entry]!.id),
      ['b', 'c', 'a'],
    );
  });
});

describe('engine: recall', () => {
  it('returns every matching record among many overlapping patterns (equal to brute force)', () => {
    const r = rng(42);
    const words = ['connect', 'connection', 'refused', 'reset', 'timeout', 'worker', 'shard', 'failed', 'to', 'for', 'host', 'port', 'req_id=', ':', 'got'];
    const pick = () => words[Math.floor(r() * words.length)]!;
    const entries: EngineEntry[] = [];
    for (let i = 0; i < 400; i++) {
      let msg = '';
      const n = 2 + Math.floor(r() * 4);
      for (let k = 0; k < n; k++) msg += (k ? ' ' : '') + (r() < 0.3 ? '{v' + k + '}' : pick());
      if (r() < 0.3) msg = 'connection ' + msg;
      entries.push(entry(`r${String(i).padStart(4, '0')}`, msg));
    }
    const e = MatchEngine.build(entries);
    const res = entries.map((x) => new RegExp(x.pattern));
    const rejected = new Set(e.rejected.map((x) => x.entry));
    let total = 0;
    for (let i = 0; i < 400; i++) {
      let line = '';
      const n = 3 + Math.floor(r() * 12);
      for (let k = 0; k < n; k++) line += (k ? ' ' : '') + (r() < 0.2 ? String(Math.floor(r() * 100)) : pick());
      const got = e.matchLine(line);
      const gotSet = new Set(got.map((m) => m.entry));
      assert.equal(gotSet.size, got.length, 'one match per record');
      for (let k = 0; k < entries.length; k++) {
        if (rejected.has(k)) {
          assert.ok(!gotSet.has(k));
          continue;
        }
        const m = res[k]!.exec(line);
        assert.equal(gotSet.has(k), m !== null, `record ${k} /${entries[k]!.pattern}/ on ${JSON.stringify(line)}`);
        if (m) {
          const g = got.find((x) => x.entry === k)!;
          assert.equal(g.start, m.index, 'leftmost match');
          total++;
        }
      }
    }
    assert.ok(total > 200, `the test exercises matches (${total})`);
  });

  it('finds records whose longest literal is short (small tiers) and hand-written regexes', () => {
    const entries = [entry('a', 'ab {x} cd {y} ef'), entry('b', 'xyz: {v}, q.w'), regexEntry('c', 'code=\\d{3} abc'), regexEntry('d', '(?:fail|error)ed hard')];
    const e = MatchEngine.build(entries);
    assert.deepEqual(e.rejected, []);
    const line = 'ab 1 cd 2 ef / xyz: 7, q.w / code=404 abc / errored hard';
    assert.deepEqual(
      e.matchLine(line).map((m) => m.entry).sort(),
      [0, 1, 2, 3],
    );
  });
});

describe('engine: chain matcher equals RegExp on simple patterns', () => {
  it('agrees with new RegExp(pattern).exec on random patterns and lines (seed 7)', () => {
    const r = rng(7);
    const alphabet = ['a', 'b', 'ab', 'ba', ' ', 'x', '\r', '\n', '\u2028'];
    const pieceOf = () => alphabet[Math.floor(r() * alphabet.length)]!;
    let compared = 0;
    for (let iter = 0; iter < 3000; iter++) {
      // pattern: [hole] lit (hole lit)* [hole], literals over a tiny alphabet so they collide often
      let src = '';
      const lead = r() < 0.3;
      const trail = r() < 0.3;
      if (lead) src += '(.+?)';
      const k = 1 + Math.floor(r() * 3);
      for (let i = 0; i < k; i++) {
        if (i) src += r() < 0.1 ? '(.+?)(.+?)' : '(.+?)';
        src += ['a', 'b', 'ab', 'ba', 'aa', 'x'][Math.floor(r() * 6)];
      }
      if (trail) src += '(.+?)';
      const simple = parseSimplePattern(src)!;
      const chain = new ChainMatcher(simple.literals, simple.leadingHole, simple.trailingHole);
      let text = '';
      const len = Math.floor(r() * 14);
      for (let i = 0; i < len; i++) text += pieceOf();
      const terms: number[] = [];
      for (let i = 0; i < text.length; i++) if ('\r\n\u2028\u2029'.includes(text[i]!)) terms.push(i);
      const got = chain.match(text, terms.length ? terms : null);
      const want = new RegExp(src, 'd').exec(text);
      assert.equal(got === null, want === null, `/${src}/ on ${JSON.stringify(text)}`);
      if (!got || !want) continue;
      compared++;
      assert.equal(got.start, want.index, `start /${src}/ on ${JSON.stringify(text)}`);
      const groups = want.length - 1;
      for (let g = 0; g < groups; g++) {
        const span: [number, number] = want.indices![g + 1]!;
        const ws = span[0];
        const we = span[1];
        assert.equal(got.caps[g * 2], ws, `group ${g + 1} start /${src}/ on ${JSON.stringify(text)}`);
        if (trail && g === groups - 1) {
          // the trailing hole is extended to the end of its segment (trailing spaces trimmed)
          let end = text.length;
          for (const p of terms) if (p >= we) { end = p; break; }
          while (end > we && text[end - 1] === ' ') end--;
          assert.equal(got.caps[g * 2 + 1], end, `trailing end /${src}/ on ${JSON.stringify(text)}`);
          assert.equal(got.end, end);
        } else assert.equal(got.caps[g * 2 + 1], we, `group ${g + 1} end /${src}/ on ${JSON.stringify(text)}`);
      }
      if (!trail) assert.equal(got.end, want.index + want[0].length);
    }
    assert.ok(compared > 500, `compared ${compared} matches`);
  });
});

describe('engine: linear time on hostile input', () => {
  // Bounds are generous: linear work here takes well under a second; the quadratic or
  // exponential behaviour these inputs provoke in a backtracking regex would take hours.
  const BOUND_MS = 15000;

  it('a 10 MB line against the seed records and a 30-hole pattern', () => {
    const holes = Array.from({ length: 30 }, (_, i) => `{h${i}}`).join(' sep ');
    const e = MatchEngine.build([...seedEntries, entry('holes', 'start ' + holes + ' finish')]);
    const line = 'start 1 sep '.repeat(900_000).slice(0, 10_000_000);
    const t0 = Date.now();
    assert.deepEqual(e.matchLine(line), []);
    assert.ok(Date.now() - t0 < BOUND_MS, `${Date.now() - t0} ms`);
    // and it still finds the match when the line ends right
    const hit = line + ' finish';
    const t1 = Date.now();
    const ms = e.matchLine(hit);
    assert.ok(Date.now() - t1 < BOUND_MS, `${Date.now() - t1} ms`);
    assert.equal(ms.length, 1);
    assert.equal(ms[0]!.captures.length, 30);
  });

  it("a line repeating a pattern's literals in every wrong order", () => {
    const e = MatchEngine.build(seedEntries);
    const lits = [': registered ', ', got ', 'Inconsistent receive_count for req_id='];
    const orders = [
      [0, 1, 2],
      [1, 0, 2],
      [1, 2, 0],
      [2, 1, 0],
      [0, 2, 1],
    ];
    let line = '';
    while (line.length < 5_000_000) for (const o of orders) line += o.map((i) => lits[i]).join('x');
    // the only correct order (2,0,1) never occurs without the literal 2 being followed by 1 first...
    const want = new RegExp(seedEntries[RECEIVE]!.pattern).exec(line.slice(0, 2000));
    const t0 = Date.now();
    const ms = e.matchLine(line);
    assert.ok(Date.now() - t0 < BOUND_MS, `${Date.now() - t0} ms`);
    // same verdict as the regex on a prefix that contains every order
    assert.equal(ms.some((m) => m.entry === RECEIVE), want !== null);
  });

  it('a hand-written regex on a 10 MB line runs in bounded windows', () => {
    const e = MatchEngine.build([regexEntry('re', 'took (\\d+)ms in ([^ ]+) for ([a-z]+) end')]);
    assert.deepEqual(e.rejected, []);
    const line = 'took 1ms in a '.repeat(750_000);
    const t0 = Date.now();
    assert.deepEqual(e.matchLine(line), []);
    assert.ok(Date.now() - t0 < BOUND_MS, `${Date.now() - t0} ms`);
    const hit = line + 'took 5ms in load for user end';
    const t1 = Date.now();
    const m = only(e.matchLine(hit), 0);
    assert.ok(Date.now() - t1 < BOUND_MS, `${Date.now() - t1} ms`);
    // found in the windows around the last key occurrences
    assert.equal(m.start, hit.lastIndexOf('took 5ms'));
    assert.equal(m.end, hit.length);
    assert.deepEqual(caps(hit, m), { '1': ['5', '5'], '2': ['load', 'load'], '3': ['user', 'user'] });
  });
});

describe('engine: rejected patterns', () => {
  it('rejects unsafe patterns with reasons and never matches them', () => {
    const entries = [
      regexEntry('long', 'x'.repeat(501)),
      regexEntry('backref', '(abcdef) again \\1'),
      regexEntry('lookahead', 'aaaa suffix(?= text)'),
      regexEntry('nocompile', 'bad (group text'),
      regexEntry('short', '(.+?): (.+?)'),
      regexEntry('ok', 'fine pattern here'),
    ];
    const e = MatchEngine.build(entries);
    const reasons = new Map(e.rejected.map((r) => [entries[r.entry]!.id, r.reason]));
    assert.match(reasons.get('long')!, /longer than 500/);
    assert.match(reasons.get('backref')!, /backreference/);
    assert.match(reasons.get('lookahead')!, /lookahead/);
    assert.match(reasons.get('nocompile')!, /does not compile/);
    assert.match(reasons.get('short')!, /literal characters/);
    assert.equal(reasons.has('ok'), false);
    assert.equal(e.size, entries.length);
    const line = 'x'.repeat(501) + ' (abcdef) again abcdef aaaa suffix text a: b fine pattern here';
    assert.deepEqual(
      e.matchLine(line).map((m) => entries[m.entry]!.id),
      ['ok'],
    );
  });
});

describe('engine: matchBytes (file scan) on random blocks', () => {
  it('gives the same results as matchLine on every line (JSON escapes, ANSI, CR, CRLF, emoji; seed 11)', () => {
    const r = rng(11);
    const entries = [
      ...seedEntries,
      entry('a', 'disk {d} is full'),
      entry('b', 'ab {x} cd'), // short literals: direct keys
      regexEntry('c', 'code=\\d{3} found'),
    ];
    const e = MatchEngine.build(entries);
    const pieces = [
      'Inconsistent receive_count for req_id=1: registered 2, got 3',
      'encode metadata not ready',
      'disk sda is full',
      'ab 1 cd',
      'code=404 found',
      '{"msg":"encode metadata \\u006eot ready"}',
      '\x1b[31mdisk\x1b[0m sdb is full',
      'noise noise noise',
      'disk is full',
      '',
      '\r',
      '😀',
    ];
    for (let iter = 0; iter < 200; iter++) {
      const lines: string[] = [];
      const count = Math.floor(r() * 12);
      for (let i = 0; i < count; i++) {
        let l = '';
        const parts = Math.floor(r() * 3);
        for (let k = 0; k < parts; k++) l += (k ? ' ' : '') + pieces[Math.floor(r() * pieces.length)];
        lines.push(l);
      }
      const text = lines.join('\n') + (r() < 0.5 ? '\n' : '');
      const want: [number, LineMatch[]][] = [];
      // lines as editors count them: \n, \r\n, and a lone \r end a line
      const split = text.split(/\r\n|\n|\r(?!\n)/);
      if (/(\r\n|\n|\r)$/.test(text)) split.pop();
      split.forEach((l, i) => {
        const ms = e.matchLine(l);
        if (ms.length) want.push([i, ms]);
      });
      const got: [number, LineMatch[]][] = [];
      const buf = Buffer.from(text, 'utf8');
      const n = e.matchBytes(buf, buf.length, (i, ms) => got.push([i, ms]));
      assert.equal(n, text === '' ? 0 : split.length, JSON.stringify(text));
      assert.deepEqual(got, want, JSON.stringify(text));
    }
  });
});

describe('engine: strided tiers', () => {
  it('finds records whose literals have no space/underscore anchor (strided q-gram tier)', () => {
    const entries: EngineEntry[] = [];
    for (let i = 0; i < 300; i++) entries.push(entry(`s${i}`, `ERRCODE${i.toString(36).padStart(4, '0')}FAILED:{v}`));
    const e = MatchEngine.build(entries);
    for (let i = 0; i < 300; i += 7) {
      const line = `prefix-ERRCODE${i.toString(36).padStart(4, '0')}FAILED:${i}`;
      const ms = e.matchLine(line);
      assert.deepEqual(
        ms.map((m) => m.entry),
        [i],
        line,
      );
      assert.deepEqual(ms[0]!.captures.map((c) => c.value), [String(i)]);
    }
    assert.deepEqual(e.matchLine('prefix-ERRCODE0000FAILED'), []);
    // (the string prefilter is built on the first matchLine)
    assert.ok(
      e.stats.tiers.some((t) => t.stride > 1),
      JSON.stringify(e.stats.tiers),
    );
  });
});
