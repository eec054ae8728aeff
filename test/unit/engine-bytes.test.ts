// MatchEngine.matchBytes (the byte-level block scan used for files) must give exactly what
// matchLine gives on every decoded line: same lines, same records, spans and captures.
import * as assert from 'node:assert/strict';
import { MatchEngine, type EngineEntry, type LineMatch } from '../../server/src/core/engine';
import { FUSED_MIN, buildByteIndex } from '../../server/src/core/engine/bytes';
import { soleMembers } from '../../server/src/core/engine/blocks';
import { wasmScanner } from '../../server/src/core/engine/wasmScan';
import { LINE_CANDIDATES, LINE_MATCHED } from '../../server/src/core/engine/lineStatus';
import { LineBlocks } from '../../server/src/core/lineBlocks';
import { Readable } from 'node:stream';
import { type ByteSource, forEachLine, forEachMatchingLine } from '../../server/src/core/lineScan';
import { captureNames, derivePattern } from '../../server/src/core/pattern';
import { generateLog, generateRecords, rng, toEntries } from '../bench/gen';
import { generateTemplateLog, generateTemplates } from '../bench/realgen';

function entry(id: string, message: string, errorCode: string | null = null): EngineEntry {
  const pattern = derivePattern(message);
  return { id, pattern, captureNames: captureNames(message, pattern), errorCode };
}

type Got = [number, LineMatch[], string][];

/** FUSED_MIN literals of 20-odd bytes without a space or '_' (no anchored key): with them T12 takes
 * its records and the strided pass runs (fewer such records are keyed in T4 instead). */
function wideFill(): string[][] {
  return Array.from({ length: FUSED_MIN }, (_, i) => [`zq${i.toString(36)}/kvx-${(i * 7919).toString(36)}/wpfm-jrt`]);
}

/** matchLine on every \n-separated line of text (a final line without \n counts). */
/** matchLine on each line as editors count lines (\n, \r\n and a lone \r end one). */
function reference(e: MatchEngine, text: string): { lines: number; got: Got } {
  const split = text.split(/\r\n|\n|\r/);
  if (/[\r\n]$/.test(text) || text === '') split.pop();
  const got: Got = [];
  split.forEach((l, i) => {
    const ms = e.matchLine(l);
    if (ms.length) got.push([i, ms, l]);
  });
  return { lines: split.length, got };
}

/** matchBytes over the UTF-8 of text, placed at byte offset `shift` of a fresh buffer with `pad` spare bytes. */
function viaBytes(e: MatchEngine, text: string, shift = 0, pad = 32): { lines: number; got: Got } {
  const enc = Buffer.from(text, 'utf8');
  const backing = new Uint8Array(shift + enc.length + pad);
  backing.fill(0xaa); // garbage around the block: the scan must not read it as text
  backing.set(enc, shift);
  const view = backing.subarray(shift, shift + enc.length + pad);
  const got: Got = [];
  const lines = e.matchBytes(view, enc.length, (i, ms, line) => got.push([i, ms, line]));
  return { lines, got };
}

describe('engine: matchBytes (byte-level block scan)', () => {
  it('equals matchLine on a generated log of ErrLookup-shaped records (JSON, ANSI, CRLF lines, near misses)', () => {
    const records = generateRecords(3000, 5);
    const e = MatchEngine.build(toEntries(records));
    let text = '';
    generateLog({ records, bytes: 400_000, matchFraction: 0.2, nearMissFraction: 0.2, seed: 3 }, (c) => (text += c), () => undefined);
    const want = reference(e, text);
    assert.ok(want.got.length > 200, `expected many matching lines, got ${want.got.length}`);
    const got = viaBytes(e, text);
    assert.equal(got.lines, want.lines);
    assert.deepEqual(got.got, want.got);
    assert.equal(e.byteIndex().stats.native, true, 'scans with WebAssembly by default');
    const js = MatchEngine.build(toEntries(records));
    assert.equal(js.byteIndex({ wasm: false }).stats.native, false);
    assert.deepEqual(viaBytes(js, text).got, want.got, 'the JS scanner (reference and fallback)');
  });

  for (const many of [false, true])
  it(`finds records in every tier: anchored 16 and 8 bytes, >= 19, 15..18, 7..14 byte literals, short ones (${many ? 'many: T4s at stride 2, T2; T4 keeps its 7-byte keys' : 'few: pair keys'}) and unkeyed ones`, () => {
    const entries = [
      entry('long', 'connection to the upstream broker was refused after {n} attempts'), // A16
      entry('k16', 'quota zqxjkvbw: {a} over budget'), // 'zqxjkvbw: ' after a space, a rare word: A8
      entry('path', '/var/lib/postgresql/data.lock {x}'), // no inner anchor, 30 bytes: T12
      entry('k17', 'ERR-CONN-REFUSED!{x}'), // no anchor, 17 bytes: T8
      entry('k8', 'nope {a} zzz {b} qqqq'), // literals 'nope ', ' zzz ', ' qqqq' (< 7: T4s at stride 2)
      entry('k7', 'E_NOENT:{x}'), // 6 bytes after '_', 8 in all: T4 (stride 4, also with many short ones)
      entry('k2', '{a}::{b}=>{c}..{d}'), // literals '::', '=>', '..': T2
      entry('k1', '{a}/{b}:{c}={d}.{e},{f}-{g}'), // only 1-byte literals: T2, as its rarest byte
      entry('k0', '{a}\t\t\t\t\t\t{b}'), // only control characters (never in keys): unkeyed
      entry('uni', 'échec de la connexion à {hôte} refusée'), // non-ASCII literal bytes
      entry('ja', 'ファイルが見つかりません: {path}'),
    ];
    // many records with only short literals go to the short tiers, few are searched as pair keys
    if (many) for (let i = 0; i < 20; i++) entries.push(entry(`short${i}`, `zz{a}q${String.fromCharCode(97 + i)}x{b}wv`));
    // (enough records without an anchored key for T12 and T8 to take theirs)
    wideFill().forEach(([l], i) => entries.push(entry(`wide${i}`, l!)));
    const e = MatchEngine.build(entries);
    const stats = e.byteIndex().stats;
    const tiers = stats.a16 >= 1 && stats.a8 >= 1 && stats.t12 >= 2 && stats.t8 >= 1 && stats.t4 >= 1 && stats.unkeyed === 1;
    const short = many ? stats.t4s >= 1 && stats.t4sstride === 2 && stats.t2 >= 20 && stats.t2stride === 1 && stats.pairs === 0 : stats.pairs === 3 && stats.t4s === 0 && stats.t2 === 0;
    assert.ok(tiers && short, JSON.stringify(stats));
    const lines = [
      'ERROR connection to the upstream broker was refused after 5 attempts',
      'quota zqxjkvbw: 12 over budget',
      'open /var/lib/postgresql/data.lock failed',
      'x ERR-CONN-REFUSED!7',
      'nope 1 zzz 2 qqqq',
      'E_NOENT:file.txt',
      'x::1=>2..3',
      'a/b:c=d.e,f-g',
      'tabs: x\t\t\t\t\t\ty',
      'WARN échec de la connexion à db-1 refusée',
      'ファイルが見つかりません: /tmp/x',
      'nothing to see here',
    ];
    if (many) lines.push('zz1qcx2wv', 'zzqbxwv');
    const text = lines.join('\n');
    const want = reference(e, text);
    assert.equal(want.got.length, many ? 12 : 11);
    // both scanners: WebAssembly and the JS reference
    const js = MatchEngine.build(entries);
    js.byteIndex({ wasm: false });
    for (const eng of [e, js])
      for (const shift of [0, 1, 2, 3]) {
        for (const pad of [0, 5, 32]) {
          const got = viaBytes(eng, text, shift, pad);
          assert.equal(got.lines, lines.length);
          assert.deepEqual(got.got, want.got, `shift ${shift} pad ${pad}`);
        }
      }
  });

  it('many records with 4-6 byte literals (T4s) beside few with 1-3 byte ones: those few are pair keys, not a T2 pass (same matches)', () => {
    const entries = [
      entry('long', 'connection to the upstream broker was refused after {n} attempts'),
      entry('k2', '{a}::{b}=>{c}..{d}'), // literals of 2 bytes
      entry('k1', '{a}/{b}:{c}={d}.{e},{f}-{g}'), // only 1-byte literals
      ...Array.from({ length: 20 }, (_, i) => entry(`s${i}`, `ab${String.fromCharCode(97 + i)}de {x} qw`)), // 5-byte literals
    ];
    const e = MatchEngine.build(entries);
    const stats = e.byteIndex().stats;
    assert.ok(stats.t4s === 20 && stats.t2 === 0 && stats.pairs === 2, JSON.stringify(stats));
    const lines = ['x::1=>2..3', 'a/b:c=d.e,f-g', 'abcde 7 qw', 'abtde x qw', 'abzde 1 qw', 'connection to the upstream broker was refused after 2 attempts', 'nothing', '::', 'a/b'];
    const text = lines.join('\n') + '\n';
    const want = reference(e, text);
    assert.equal(want.got.length, 5);
    const js = MatchEngine.build(entries);
    js.byteIndex({ wasm: false });
    for (const eng of [e, js]) for (const shift of [0, 1, 3]) assert.deepEqual(viaBytes(eng, text, shift), want, `shift ${shift}`);
  });

  it('one 4-byte literal beside many of 5-6 bytes is a pair key: the others are probed every second byte, not every byte (same matches)', () => {
    const entries = [
      entry('row', 'Row {x} one'), // literals 'Row ' and ' one': 4 bytes
      ...Array.from({ length: 30 }, (_, i) => entry(`s${i}`, `ab${String.fromCharCode(97 + (i % 26))}d${i < 26 ? '' : 'e'} {x} qw`)), // literals of 5-6 bytes ('abcd ', 'abcde ') and ' qw'
    ];
    const e = MatchEngine.build(entries);
    const stats = e.byteIndex().stats;
    assert.ok(stats.t4s === 30 && stats.t4sstride === 2 && stats.pairs === 1 && stats.t2 === 0, JSON.stringify(stats));
    const lines = ['Row 7 one', 'abcd 7 qw', 'abcde 1 qw', 'a Row of one', 'Row one', 'nothing'];
    const text = lines.join('\n') + '\n';
    const want = reference(e, text);
    assert.deepEqual(want.got.map((g) => g[0]), [0, 1, 2, 3]);
    const js = MatchEngine.build(entries);
    js.byteIndex({ wasm: false });
    for (const eng of [e, js]) for (const shift of [0, 1, 3]) assert.deepEqual(viaBytes(eng, text, shift), want, `shift ${shift}`);
  });

  it('a short key of a longer literal is a hit only where the whole literal is (LongerKeys): no hits from its windows elsewhere, the same matches', () => {
    const entries = [
      entry('abc', 'abc {x} qwe'), // 4-byte literals: T4s probes every byte, its keys are 4 bytes
      // (more than PAIR_MAX records of 4 bytes, so they are not pair keys)
      ...Array.from({ length: 16 }, (_, i) => entry(`f${i}`, `zy${String.fromCharCode(97 + i)} {x} qw`)),
      ...Array.from({ length: 20 }, (_, i) => entry(`s${i}`, `st${String.fromCharCode(97 + i)}tic`)), // 6-byte literals
      entry('cfg', '{name} configured'), // an 8-byte anchored key of a 10-byte literal
    ];
    // every window of `stbtic` (and `configur` of `configured`), never the literal
    const decoys = ['stbtu tbtio btica', 'x configure', 'set configur done'];
    const real = ['stbtic', 'x configured', 'a stctic b', 'abc 1 qwe'];
    const text = [...decoys, ...real].join('\n') + '\n';
    const want = reference(MatchEngine.build(entries), text);
    assert.deepEqual(want.got.map((g) => g[0]), [3, 4, 5, 6]);
    const decoyBytes = Buffer.byteLength(decoys.join('\n') + '\n');
    for (const wasm of [true, false]) {
      const e = MatchEngine.build(entries);
      const idx = e.byteIndex({ wasm });
      assert.equal(idx.stats.native, wasm);
      assert.equal(idx.stats.t4s, 37, JSON.stringify(idx.stats));
      assert.equal(idx.stats.t4sstride, 1, JSON.stringify(idx.stats));
      assert.equal(idx.stats.a8, 1, JSON.stringify(idx.stats));
      const enc = Buffer.from(text);
      const buf = new Uint8Array(enc.length + 32);
      buf.set(enc);
      const hits = idx.scan(buf, enc.length);
      const at = Array.from(hits.pos.subarray(0, hits.count));
      assert.deepEqual(at.filter((p) => p < decoyBytes), [], `no hit on the decoy lines (${wasm ? 'WebAssembly' : 'JS'})`);
      assert.equal(at.length, 4, `one hit per real occurrence (${wasm ? 'WebAssembly' : 'JS'})`);
      for (const shift of [0, 1, 3]) assert.deepEqual(viaBytes(e, text, shift), want, `shift ${shift}`);
    }
  });

  it('many 7-byte keys (10k log templates) are indexed as 6-byte windows at stride 2 (WIDE_T4): the same matches as matchLine, in JS and WebAssembly, at three alignments', () => {
    const templates = generateTemplates(10_000, 3);
    const entries = templates.map((t) => ({ id: t.id, pattern: t.pattern, captureNames: [], errorCode: t.errorCode }));
    let text = '';
    generateTemplateLog(templates, 150_000, 9, (c) => (text += c), () => undefined);
    const e = MatchEngine.build(entries);
    const t4 = e.byteIndex().tiers.t4;
    assert.ok(t4.records >= 512 && t4.span === 6 && t4.stride === 2 && t4.keyLen === 7, `${t4.records} records, span ${t4.span}, stride ${t4.stride}`);
    const want = reference(e, text);
    assert.ok(want.got.length > 1000, `${want.got.length} matched lines`);
    const js = MatchEngine.build(entries);
    js.byteIndex({ wasm: false });
    for (const eng of [e, js]) for (const shift of [0, 1, 3]) assert.deepEqual(viaBytes(eng, text, shift), want, `shift ${shift}`);
    // the few records of a small set keep 4-byte windows at stride 4 (fused into the strided pass)
    const few = MatchEngine.build(entries.slice(0, 1500)).byteIndex().tiers.t4;
    assert.ok(few.records < 512 && few.span === 4 && few.stride === 4, `${few.records} records, span ${few.span}`);
  });

  const SEED = Number(process.env['BYTES_SEED'] ?? 21);
  it(`same results at every byte alignment of a line and across many random blocks (seed ${SEED})`, () => {
    const records = generateRecords(500, 9);
    const extra = [entry('s1', 'disk {d} is full'), entry('s2', 'token {t} revoked by admin'), entry('s3', 'Inconsistent receive_count for req_id={r}: registered {a}, got {b}')];
    const e = MatchEngine.build([...toEntries(records), ...extra]);
    const r = rng(SEED);
    const pieces = [
      'disk sda is full',
      'token x revoked by admin',
      'Inconsistent receive_count for req_id=7f3a: registered 2, got 10',
      '{"msg":"Inconsistent receive_count for req_id=\\"q\\": registered 1, got 2"}',
      '\x1b[31mdisk\x1b[0m sdb is full',
      'disk sdc is full\r',
      '😀 é',
      '',
      'noise words only',
    ];
    for (let iter = 0; iter < 150; iter++) {
      const lines: string[] = [];
      const count = Math.floor(r() * 10);
      for (let i = 0; i < count; i++) {
        let l = ' '.repeat(Math.floor(r() * 5)); // shift every alignment
        const parts = 1 + Math.floor(r() * 3);
        for (let k = 0; k < parts; k++) l += (k ? ' ' : '') + (r() < 0.3 ? records[Math.floor(r() * records.length)]!.message.replace(/\{[^}]*\}/g, 'v') : pieces[Math.floor(r() * pieces.length)]);
        lines.push(l);
      }
      const text = lines.join('\n') + (r() < 0.5 ? '\n' : '');
      const want = reference(e, text);
      const got = viaBytes(e, text, Math.floor(r() * 4), r() < 0.5 ? 32 : 0);
      assert.equal(got.lines, want.lines, JSON.stringify(text));
      assert.deepEqual(got.got, want.got, JSON.stringify(text));
    }
  });

  it('a key at the very end of a block (no newline, no padding) is found', () => {
    const e = MatchEngine.build([entry('end', 'the replica set lost its primary node {n}')]);
    for (let k = 0; k < 8; k++) {
      const text = 'x'.repeat(k) + 'the replica set lost its primary node n1';
      const got = viaBytes(e, text, 0, 0);
      assert.equal(got.got.length, 1, `prefix ${k}`);
      assert.equal(got.got[0]![1][0]!.captures[0]!.value, 'n1');
    }
  });

  it('an empty block has no lines; a block of newlines counts them', () => {
    const e = MatchEngine.build([entry('a', 'the replica set lost its primary node {n}')]);
    assert.equal(viaBytes(e, '').lines, 0);
    assert.equal(viaBytes(e, '\n\n\n').lines, 3);
    assert.equal(viaBytes(e, 'a\nb').lines, 2);
  });

  it('the WebAssembly scanner returns exactly the JS scanner\'s hits (every tier, random blocks, planted keys)', () => {
    const r = rng(SEED + 1);
    const words = 'replica primary broker refused quota exceeded token revoked shard mismatch checkpoint écrit ファイル'.split(' ');
    // words joined by spaces and '_' (anchored keys: A16, A8) or only by '-' and '/' (no anchor:
    // the strided tiers T12, T8, T4 by length)
    const lit = (len: number, anchored = r() < 0.5): string => {
      let s = '';
      while (s.length < len) s += words[Math.floor(r() * words.length)] + (anchored ? (r() < 0.5 ? ' ' : '_') : r() < 0.5 ? '-' : '/');
      return s.slice(0, len);
    };
    // literals of every tier and length, and duplicates (shared keys); then the same with short
    // literals added: many go to T4s at a stride from the shortest (5-6 bytes: 2-3; 4 bytes: 1) and T2 (2-3 bytes,
    // when more than 16 of them; else pair keys), a few (and a one-byte one) are pair keys: up to 3 searched key by key, more at once by nibble
    // tables (over 8: two keys share a table bit)
    for (const [shortest, shorts] of [
      [7, 0],
      [5, 30],
      [2, 30],
      [2, 120],
      [3, 2],
      [1, 6],
      [1, 14],
    ] as const) {
      const literals: (string[] | null)[] = [];
      for (let i = 0; i < 400; i++) literals.push([lit(7 + Math.floor(r() * 40))]);
      for (let i = 0; i < 20; i++) literals.push(literals[i]!);
      for (let i = 0; i < shorts; i++) literals.push([lit(shortest + Math.floor(r() * (7 - shortest)), false)]);
      literals.push(...wideFill());
      literals.push(null);
      const idx = buildByteIndex(literals);
      const native = wasmScanner(idx);
      assert.ok(native, 'WebAssembly is available in Node');
      const s = idx.stats;
      assert.ok(s.a16 > 0 && s.a8 > 0 && s.t12 > 0 && s.t8 > 0 && s.t4 > 0, JSON.stringify(s));
      // (5-6 bytes: the 5-byte ones are pair keys when they are few, then T4s probes every third byte)
      if (shortest === 5) assert.ok(s.t4s > 0 && s.t2 === 0 && s.t4sstride === (s.pairs > 0 ? 3 : 2), JSON.stringify(s));
      // (of 30: the shortest few, 2-4 or 2-5 bytes, pair keys beside T4s at stride 2 or 3; of
      // 120: too many, T2 and T4s at stride 1)
      if (shortest === 2) assert.ok(s.t4s > 0 && (shorts > 30 ? s.t2 > 0 && s.pairs === 0 && s.t4sstride === 1 : s.t2 === 0 && s.pairs > 0 && s.t4sstride >= 2), JSON.stringify(s));
      if (shortest === 1) assert.ok(s.pairs > (shorts > 8 ? 8 : 3) && s.t4s === 0 && s.t2 === 0, JSON.stringify(s)); // (non-ASCII ones may be longer in bytes)
      if (shortest === 3) assert.ok(s.pairs >= 1 && s.pairs <= 3 && s.t4s === 0 && s.t2 === 0, JSON.stringify(s));
      let planted = 0;
      for (let iter = 0; iter < 80; iter++) {
        let text = '';
        const parts = Math.floor(r() * 200);
        for (let k = 0; k < parts; k++) text += r() < 0.4 ? literals[Math.floor(r() * (literals.length - 1))]![0]! : lit(Math.floor(r() * 30)) + (r() < 0.2 ? '\n' : '');
        const bytes = Buffer.from(text, 'utf8');
        const shift = 4 * Math.floor(r() * 3);
        const buf = new Uint8Array(shift + bytes.length + 32).subarray(shift);
        buf.set(bytes);
        // the same (position, record) hits; in position order, ties (several records keyed at one
        // position) in either order
        const pairs = (h: { pos: Int32Array; rec: Int32Array; count: number }): string[] => {
          const out: string[] = [];
          for (let i = 0; i < h.count; i++) {
            if (i > 0) assert.ok(h.pos[i]! >= h.pos[i - 1]!, 'position order');
            out.push(`${h.pos[i]}:${h.rec[i]}`);
          }
          return out.sort();
        };
        const want = pairs(idx.scanJs(buf, bytes.length));
        idx.native = native;
        const got = pairs(idx.scan(buf, bytes.length));
        idx.native = undefined;
        assert.deepEqual(got, want, `iteration ${iter}`);
        if (want.length > 0) planted++;
      }
      assert.ok(planted > 40, `most blocks hold keys (${planted})`);
    }
  });

  it('keys that share a window (records of the same words) have one table slot per window hash, their windows in a group: every record is still found, in JS and WebAssembly, as matchLine finds it', () => {
    // strided keys (no anchor: T12 from 19 bytes, T8 15-18, T4 7-14) whose windows lie in a part
    // every record has, and anchored keys that many records share whole (A16, A8)
    const entries: EngineEntry[] = [];
    const messages: string[] = [];
    const add = (m: string) => {
      messages.push(m);
      entries.push(entry(`r${entries.length}`, m));
    };
    for (let i = 0; i < 300; i++) add(`zq-replica/primary-lost/${i.toString(36)}`);
    for (let i = 0; i < 300; i++) add(`kx-quota/exceed${i.toString(36)}`);
    for (let i = 0; i < 300; i++) add(`vw-tok/${i.toString(36)}`);
    for (let i = 0; i < 40; i++) add('the broker refused the checkpoint {n}');
    for (let i = 0; i < 40; i++) add('shard mismatch {n}');
    const e = MatchEngine.build(entries);
    const tiers = e.byteIndex().tiers;
    let groups = 0;
    for (const [name, t] of Object.entries(tiers)) {
      const seen = new Set<number>();
      for (let b = 0; b < t.buckets; b++) {
        const used = t.table[b * 16 + 15]! & 0xff;
        for (let k = 0; k < used; k++) {
          const h = t.table[b * 16 + k]!;
          assert.ok(!seen.has(h), `${name}: hash ${h} has one slot`);
          seen.add(h);
          if (t.table[b * 16 + 10 + k]! < 0) groups++;
        }
      }
    }
    assert.ok(groups >= 5, `shared windows are grouped (${groups} groups)`);
    const s = e.byteIndex().stats;
    assert.ok(s.t12 > 0 && s.t8 > 0 && s.t4 > 0 && s.a16 + s.a8 > 0, JSON.stringify(s));
    const r = rng(SEED + 3);
    const lines: string[] = [];
    for (let k = 0; k < 3000; k++) {
      const m = messages[Math.floor(r() * messages.length)]!.replace('{n}', String(k));
      // a record's line, a near miss (the shared part with another ending) or noise
      const x = r();
      lines.push(x < 0.5 ? `ERROR ${m} at ${k}` : x < 0.8 ? `WARN ${m.slice(0, -2)}~~ ${k}` : `INFO ${k} nothing`);
    }
    const text = lines.join('\n') + '\n';
    const want = reference(e, text);
    assert.ok(want.got.length > 1000, `${want.got.length} matched lines`);
    const js = MatchEngine.build(entries);
    js.byteIndex({ wasm: false });
    for (const eng of [e, js]) for (const shift of [0, 1, 3]) assert.deepEqual(viaBytes(eng, text, shift), want, `shift ${shift}`);
  });

  it('soleMembers: a slot\'s record where it has one, -1 where it has several or none', () => {
    // slots 0: [4], 1: [0, 2], 2: [], 3: [1]
    assert.deepEqual(Array.from(soleMembers(Int32Array.from([4, 0, 2, 1]), Int32Array.from([0, 1, 3, 3, 4]))), [4, -1, -1, 1]);
    assert.deepEqual(Array.from(soleMembers(new Int32Array(0), Int32Array.from([0]))), []);
  });

  it('a block with more hits than the WebAssembly output holds falls back to the JS scan (same hits)', () => {
    // 300 records share one key: every occurrence is 300 hits, far more than n / 4 + 1024
    const key = 'the replica set lost its primary node';
    const idx = buildByteIndex(Array.from({ length: 300 }, () => [key]));
    const native = wasmScanner(idx)!;
    const text = (key + '\n').repeat(40);
    const bytes = Buffer.from(text);
    const buf = new Uint8Array(bytes.length + 32);
    buf.set(bytes);
    assert.equal(native.scan(buf, bytes.length), undefined, 'the module reports the overflow');
    const js = idx.scanJs(buf, bytes.length);
    assert.equal(js.count, 40 * 300);
    const want = Array.from(js.rec.subarray(0, js.count));
    idx.native = native;
    const got = idx.scan(buf, bytes.length);
    assert.deepEqual(Array.from(got.rec.subarray(0, got.count)), want);
  });

  it('an overflow in the fused T4 step is never a shorter hit list (its two probes: the second one reset the overflow; 500k realistic records lost hits so)', () => {
    // 7-byte literals are T4 keys (stride 4), fused into the T8/T12 pass (long literals without an
    // anchor make it run): in "abcdefgh" repeated, every 8-byte step's first probe finds 'abcdefg'
    // (r records) and its second 'efghabc' (r records). The module's first room (n / 4 + 1024, a
    // multiple of 4) runs out in a first probe.
    const index = (r: number) => buildByteIndex([...Array.from({ length: r }, () => ['abcdefg']), ...Array.from({ length: r }, () => ['efghabc']), ...wideFill()]);
    const n = 64 * 1024;
    const buf = new Uint8Array(n + 32);
    buf.set(Buffer.from('abcdefgh'.repeat(n / 8)));
    const hitsOf = (h: { pos: Int32Array; rec: Int32Array; count: number }) => Array.from({ length: h.count }, (_, i) => `${h.pos[i]}:${h.rec[i]}`);
    // two records each: 1/2 hit per byte, over the first room: the module scans again with room for
    // one per byte and has every hit
    const two = index(2);
    assert.ok(two.stats.t4 === 4 && two.stats.t12 + two.stats.t8 === FUSED_MIN, JSON.stringify(two.stats));
    const js = two.scanJs(buf, n);
    assert.ok(js.count > (n >>> 2) + 1024, 'more hits than the first room');
    const want = hitsOf(js);
    const got = wasmScanner(two)!.scan(buf, n);
    assert.ok(got, 'the second room holds them');
    assert.deepEqual(hitsOf(got), want);
    // ten each: 2.5 hits per byte, over both: the overflow is reported (the JS scan takes the block)
    const ten = index(10);
    assert.ok(ten.scanJs(buf, n).count > n + 1024);
    assert.equal(wasmScanner(ten)!.scan(buf, n), undefined, 'the module reports the overflow');
  });

  it('a block with more listed lines than the WebAssembly line walk holds falls back to the JS walk', () => {
    const e = MatchEngine.build([entry('a', 'the replica set lost its primary node {n}')]);
    // 20,000 two-byte lines holding an ESC (each listed: its stripped text may differ) and one match
    const text = '\x1b\n'.repeat(10_000) + 'the replica set lost its primary node n7\n' + '\x1b\n'.repeat(10_000);
    const bytes = Buffer.from(text);
    const block = new Uint8Array(bytes.length + 32);
    block.set(bytes);
    assert.equal(e.byteIndex().native!.scanLines(block, bytes.length), undefined, 'the module gives up on this block');
    const want = reference(e, text);
    assert.equal(want.lines, 20_001);
    const got = viaBytes(e, text);
    assert.equal(got.lines, want.lines);
    assert.deepEqual(got.got, want.got);
    assert.equal(got.got[0]![0], 10_000);
  });

  it('a record whose message has several lines keeps a plain line it shares a key with in the module, and still matches an escaped JSON value', () => {
    // ErrLookup has messages of several lines ("…: {x}\nerror: {y}"): they can match only a view
    // that holds a line break (a JSON value with \n escapes), never a plain line
    const entries = [entry('multi', 'replica 5: {x}\nerror: {y}'), entry('one', 'replica 5: bytes is not a 16-char string'), entry('regex', 'replica 5: (.+?) is not a [0-9]+-char string')];
    entries[2]!.pattern = 'replica 5: (.+?) is not a [0-9]+-char string';
    const plain = 'INFO replica 5: bytes is not a 16-char string';
    const lines = [plain, '{"msg":"replica 5: disk\\nerror: full"}', `${plain}\r`, 'replica 5: plain text'];
    const text = lines.join('\n') + '\n';
    for (const withRegex of [false, true]) {
      const set = withRegex ? entries : entries.slice(0, 2);
      const e = MatchEngine.build(set);
      const want = reference(e, text);
      assert.deepEqual(
        want.got.map(([i, ms]) => [i, ms.map((m) => set[m.entry]!.id).sort()]),
        [[0, withRegex ? ['one', 'regex'] : ['one']], [1, ['multi']], [2, withRegex ? ['one', 'regex'] : ['one']]],
      );
      for (const wasm of [true, false]) {
        const eng = MatchEngine.build(set);
        eng.byteIndex({ wasm });
        for (const shift of [0, 1, 3]) assert.deepEqual(viaBytes(eng, text, shift), want, `wasm ${wasm} shift ${shift}`);
      }
      // the plain line is verified in the module (LINE_MATCHED): the multi-line record does not send
      // it to JS; a general regex among its candidates still does (LINE_CANDIDATES)
      const bytes = Buffer.from(plain + '\n');
      const block = new Uint8Array(bytes.length + 32);
      block.set(bytes);
      const listed = e.byteIndex().native!.scanLines(block, bytes.length)!;
      assert.equal(listed.lines, 1);
      assert.equal(listed.entries[5], withRegex ? LINE_CANDIDATES : LINE_MATCHED, 'status of the plain line');
    }
  });

  it('JSON-structured lines: values are matched as views (a value beats the line at the same start), keys are not', () => {
    const e = MatchEngine.build([entry('a', 'the replica set lost its primary node {n}'), entry('b', 'disk {d} is full')]);
    const lines = [
      '{"msg":"the replica set lost its primary node n1","pid":7}', // value view: n = n1
      '{"the replica set lost its primary node k": 1, "v": "ok"}', // in a key: only the line matches
      'prefix {"a":"disk sda is full" , "b":"x"}  ', // value followed by spaces before the comma
      '{"a":"x"} the replica set lost its primary node tail }', // not a value: the line's match
      '{"msg":"the replica set lost its primary node n2"}\r',
      '{"unterminated":"the replica set lost its primary node n3}',
    ];
    const text = lines.join('\n');
    const want = reference(e, text);
    assert.equal(want.got.length, 6);
    const n1 = want.got[0]![1][0]!.captures[0]!.value;
    assert.equal(n1, 'n1');
    assert.equal(want.got[1]![1][0]!.captures[0]!.value, 'k": 1, "v": "ok"}');
    const js = MatchEngine.build([entry('a', 'the replica set lost its primary node {n}'), entry('b', 'disk {d} is full')]);
    js.byteIndex({ wasm: false });
    for (const eng of [e, js]) assert.deepEqual(viaBytes(eng, text).got, want.got);
  });

  it('records without anchored keys only (no anchored pass): the strided tiers and the plain line walk', () => {
    const entries = [entry('path', '/var/lib/postgresql/data.lock {x}'), entry('k17', 'ERR-CONN-REFUSED!{x}'), entry('k7', 'E_NOENT:{x}')];
    const lines = [
      'open /var/lib/postgresql/data.lock failed',
      '\x1b[31mERR-CONN-REFUSED!7\x1b[0m',
      '{"m":"E_NOENT:a\\"b"}',
      'x ERR-CONN-REFUSED!8\r',
      'E_NOENT:z',
      'nothing',
    ];
    const text = lines.join('\n') + '\n';
    for (const wasm of [true, false]) {
      const e = MatchEngine.build(entries);
      const s = e.byteIndex({ wasm }).stats;
      assert.equal(s.a16 + s.a8, 0, JSON.stringify(s));
      const want = reference(e, text);
      assert.equal(want.got.length, 5);
      for (const shift of [0, 1, 3]) assert.deepEqual(viaBytes(e, text, shift), want, `wasm ${wasm} shift ${shift}`);
    }
  });

  it('a block of coloured lines (every escape kind, keys split by escapes, JSON values, other scripts) matches as matchLine does, line by line', () => {
    // the module lists every line with ESC; their stripped texts are byte-scanned together
    const entries = [entry('a', 'connection to the upstream broker was refused after {n} attempts'), entry('b', 'ERR-CONN-REFUSED!{x}'), entry('c', 'échec de la connexion à {hôte}'), entry('d', 'disk {d} is full')];
    const r = rng(SEED + 7);
    const escapes = ['\x1b[31m', '\x1b[0m', '\x1b[1;38;5;208m', '\x1b]8;;https://x.test\x07', '\x1b]0;title\x1b\\', '\x1b(B', '\x1b7', '\x1bM', '\x1b[?25l', '\x1b'];
    const pieces = ['connection to the upstream ', 'broker was refused after 3 attempts', 'ERR-CONN', '-REFUSED!9', 'échec de la connexion à db', 'disk sda is full', ' x ', 'ファイル', '{"msg":"disk \\u0073db is full"}', '"', '\\'];
    const lines: string[] = [];
    for (let i = 0; i < 3000; i++) {
      let l = '';
      const k = 1 + Math.floor(r() * 6);
      for (let j = 0; j < k; j++) l += r() < 0.4 ? escapes[Math.floor(r() * escapes.length)] : pieces[Math.floor(r() * pieces.length)];
      // an OSC string left open runs to the line end (never into the next line)
      if (r() < 0.02) l += '\x1b]8;;open';
      // a coloured JSON line whose value holds the key only once decoded (its other view)
      if (i % 50 === 0) l = `\x1b[32mINFO\x1b[0m {"msg":"\\u0064isk sd${i} \\u0069s full"}`;
      lines.push(l);
    }
    const text = lines.join('\n') + '\n';
    const e = MatchEngine.build(entries);
    const want = reference(e, text);
    assert.ok(want.got.length > 500, `${want.got.length} matched lines`);
    for (const wasm of [true, false]) {
      const eng = MatchEngine.build(entries);
      eng.byteIndex({ wasm });
      for (const shift of [0, 3]) assert.deepEqual(viaBytes(eng, text, shift), want, `wasm ${wasm} shift ${shift}`);
    }
  });

  it('lines matched in JS (coloured, non-ASCII) make no LineMatch until asked: their entries, starts and ends are those of matches(), which equal matchLine\'s', () => {
    const e = MatchEngine.build([entry('a', 'encode metadata not ready for {req}'), entry('b', 'encode metadata not ready for {req}'), entry('c', 'disk quota exceeded on {vol}'), entry('d', 'naïve café {x} closed')]);
    const lines: string[] = [];
    for (let k = 0; k < 200; k++) {
      if (k % 4 === 0) lines.push(`\x1b[31mERROR\x1b[0m encode \x1b[1mmetadata\x1b[0m not ready for r${k}`);
      else if (k % 4 === 1) lines.push(`WARN disk quota exceeded on /v${k} — retry`);
      else if (k % 4 === 2) lines.push(`naïve café ${k} closed`);
      else lines.push(`INFO ${k}`);
    }
    const text = lines.join('\n') + '\n';
    const bytes = Buffer.from(text, 'utf8');
    const buf = new Uint8Array(bytes.length + 32);
    buf.set(bytes);
    const proto = Object.getPrototypeOf(e) as { toLineMatch: (...a: unknown[]) => unknown };
    const orig = proto.toLineMatch;
    let made = 0;
    proto.toLineMatch = function (this: unknown, ...a: unknown[]) {
      made++;
      return orig.apply(this, a);
    };
    try {
      let seen = 0;
      e.scanBytes(buf, bytes.length, (_i, hits) => {
        seen += hits.count;
        for (let k = 0; k < hits.count; k++) assert.ok(hits.entry(k) >= 0 && hits.end(k) > hits.start(k));
      });
      assert.ok(seen >= 200, `${seen} matches`);
      assert.equal(made, 0, 'no LineMatch made for a scan that reads entries and spans only');
      const want = reference(e, text).got;
      const got: Got = [];
      e.scanBytes(buf, bytes.length, (i, hits) => {
        const ms = hits.matches();
        const spans = (xs: [number, number, number][]) => xs.map((x) => x.join(':')).sort();
        assert.deepEqual(spans(Array.from({ length: hits.count }, (_, k) => [hits.entry(k), hits.start(k), hits.end(k)])), spans(ms.map((m) => [m.entry, m.start, m.end])));
        // the matches kept by a filter: made alone, in the ranked order
        assert.deepEqual(hits.matchesWhere((k) => hits.entry(k) % 2 === 0), ms.filter((m) => m.entry % 2 === 0));
        got.push([i, ms, hits.text()]);
      });
      assert.ok(made > 0);
      assert.deepEqual(got, want);
    } finally {
      proto.toLineMatch = orig;
    }
  });

  it('ANSI-coloured lines: keys split by an escape sequence are found in the stripped text', () => {
    const entries = [entry('a', 'connection to the upstream broker was refused after {n} attempts'), entry('b', 'ERR-CONN-REFUSED!{x}')];
    const lines = [
      'conn\x1b[1mection to the upstream \x1b[0mbroker was refused after 3 attempts',
      '\x1b[31mERROR\x1b[0m connection to the upstream broker was refused after 4 attempts\r',
      'ERR-CONN\x1b[33m-REFUSED!9\x1b[0m',
      '\x1b]633;A\x07{"msg":"connection to the upstream broker was refused after 5 attempts"}',
    ];
    const text = lines.join('\n');
    for (const wasm of [true, false]) {
      const e = MatchEngine.build(entries);
      e.byteIndex({ wasm });
      const want = reference(e, text);
      assert.equal(want.got.length, 4);
      assert.deepEqual(viaBytes(e, text), want, `wasm ${wasm}`);
    }
  });

  it('a block over 4 MiB (one very long line) is scanned in JS, with the same results', () => {
    const e = MatchEngine.build([entry('a', 'the replica set lost its primary node {n}')]);
    const text = 'x'.repeat(5 << 20) + ' the replica set lost its primary node n9\nthe replica set lost its primary node n10\n';
    const bytes = Buffer.from(text);
    const block = new Uint8Array(bytes.length + 32);
    block.set(bytes);
    assert.equal(e.byteIndex().native!.scanLines(block, bytes.length), undefined);
    const got: [number, string][] = [];
    const lines = e.matchBytes(block, bytes.length, (i, ms) => got.push([i, ms[0]!.captures[0]!.value]));
    assert.equal(lines, 2);
    assert.deepEqual(got, [
      [0, 'n9'],
      [1, 'n10'],
    ]);
  });

  it('a few records without an anchored key do not make the strided pass run: they take T4 windows, the others anchored keys, and all are found', () => {
    const entries = [
      entry('path', '/var/lib/postgresql/data.lock {x}'), // no anchor, 30 bytes: T12's with FUSED_MIN like it
      entry('k17', 'ERR-CONN-REFUSED!{x}'), // no anchor, 17 bytes: T8's so
      entry('mixed', 'broker/replica-mismatch/checkpoint-overrun refused after {n} retries'), // a long unanchored run, and anchors
      entry('long', 'connection to the upstream broker was refused after {n} attempts'),
    ];
    const text = ['open /var/lib/postgresql/data.lock failed', 'x ERR-CONN-REFUSED!7', 'broker/replica-mismatch/checkpoint-overrun refused after 3 retries', 'ERROR connection to the upstream broker was refused after 5 attempts', 'noise /var/lib/postgres ERR-CONN'].join('\n') + '\n';
    const few = MatchEngine.build(entries);
    const s = few.byteIndex().stats;
    assert.ok(s.t12 === 0 && s.t8 === 0 && s.t4 === 2 && s.a16 + s.a8 === 2, JSON.stringify(s));
    const want = reference(few, text);
    assert.equal(want.got.length, 4);
    assert.deepEqual(viaBytes(few, text).got, want.got);
    // FUSED_MIN more without an anchored key: T12 and T8 take theirs
    const many = MatchEngine.build([...entries, ...wideFill().map(([l], i) => entry(`wide${i}`, l!))]);
    const m = many.byteIndex().stats;
    assert.ok(m.t12 + m.t8 >= FUSED_MIN + 2 && m.t4 === 0, JSON.stringify(m));
    assert.deepEqual(viaBytes(many, text).got, reference(many, text).got);
  });

  it('keys never hold control characters: a literal split by a tab still gets a key from its parts', () => {
    const idx = buildByteIndex([['abcdefghijklmnopqrstuvwxyz\tABCDEFGHIJKLMNOPQRSTUVWXYZ'], ['\t\t\t'], null, ...wideFill()]);
    const s = idx.stats;
    assert.equal(s.t12 + s.t8, 1 + FUSED_MIN); // a 26-byte part, not the 53-byte literal (and the fill)
    assert.deepEqual(idx.unkeyed, [1]);
  });
});

describe('LineBlocks + forEachMatchingLine (the CLI scan reader)', () => {
  it('matchBytes leaves the bytes after the block as they were (the reader keeps the next partial line there)', () => {
    const e = MatchEngine.build([entry('a', 'the replica set lost its primary node {n}')]);
    const buf = new Uint8Array(64 + 32);
    const text = Buffer.from('the replica set lost its primary node n1\n');
    buf.set(text);
    const tail = Buffer.from('partial next line bytes .........');
    buf.set(tail.subarray(0, buf.length - text.length), text.length);
    const before = Buffer.from(buf).toString('latin1');
    let hits = 0;
    e.matchBytes(buf, text.length, () => hits++);
    assert.equal(hits, 1);
    assert.equal(Buffer.from(buf).toString('latin1'), before);
  });

  it('same line numbers and matches as the text line splitter for random bytes, CR/LF/CRLF and chunkings (seed 5)', async () => {
    const e = MatchEngine.build([entry('a', 'disk {d} is full'), entry('b', 'the replica set lost its primary node {n}')]);
    const r = rng(5);
    const pieces = ['disk sda is full', 'the replica set lost its primary node n1', '\r', '\n', '\r\n', 'é', '\xf0', 'abc '];
    for (let iter = 0; iter < 300; iter++) {
      const parts: Buffer[] = [];
      const count = Math.floor(r() * 12);
      for (let i = 0; i < count; i++) {
        const p = pieces[Math.floor(r() * pieces.length)]!;
        parts.push(p === '\xf0' ? Buffer.from([0xf0]) : Buffer.from(p, 'utf8'));
      }
      const all = Buffer.concat(parts);
      const cuts = [0, Math.floor(r() * all.length), Math.floor(r() * all.length), all.length].sort((a, b) => a - b);
      const chunks = () => Readable.from(cuts.slice(1).map((c, i) => all.subarray(cuts[i]!, c)).filter((c) => c.length > 0));
      const want: [number, string][] = [];
      const a = await forEachLine(chunks(), (line, n) => {
        for (const m of e.matchLine(line)) want.push([n, m.text]);
      });
      const got: [number, string][] = [];
      const b = await forEachMatchingLine(chunks(), e, (n, hits) => {
        for (const m of hits.matches()) got.push([n, m.text]);
      });
      assert.equal(b.lines, a.lines, JSON.stringify(all.toString('latin1')));
      assert.deepEqual(got, want, JSON.stringify(all.toString('latin1')));
    }
  });

  it('with keep k, each block handed out stays as it was until k more blocks were handed out (random chunkings, CR/LF, a cut line)', () => {
    const r = rng(9);
    for (const keep of [1, 3]) {
      for (let iter = 0; iter < 40; iter++) {
        const lb = new LineBlocks(300, 64, undefined, { keep });
        const seen: { buf: Uint8Array; n: number; copy: Buffer }[] = [];
        const out: Buffer[] = [];
        const take = (b: Uint8Array, n: number) => {
          // the last `keep` blocks are still intact when the next one is handed out
          for (const old of seen.slice(-keep)) assert.ok(Buffer.from(old.buf.subarray(0, old.n)).equals(old.copy), `keep ${keep}: a block changed before ${keep} more were handed out`);
          const copy = Buffer.from(b.subarray(0, n));
          seen.push({ buf: b, n, copy });
          out.push(copy);
        };
        const parts: string[] = [];
        for (let i = 0; i < 60; i++) parts.push(['a line of text', 'x'.repeat(Math.floor(r() * 90)), '\n', '\r\n', '\r', 'é', 'y'.repeat(Math.floor(r() * 400))][Math.floor(r() * 7)]!);
        const input = Buffer.from(parts.join(''), 'utf8');
        const steps: number[] = [];
        for (let i = 0; i < input.length; i += steps[steps.length - 1]!) steps.push(1 + Math.floor(r() * 120));
        const feed = (into: LineBlocks, onBlock: (b: Uint8Array, n: number) => void) => {
          let i = 0;
          for (const step of steps) {
            into.push(input.subarray(i, i + step), onBlock);
            i += step;
          }
          into.end(onBlock);
        };
        feed(lb, take);
        // and the same blocks as without keep, read in the same chunks (a line over 300 bytes cut)
        const plain = new LineBlocks(300, 64);
        const want: Buffer[] = [];
        feed(plain, (b, n) => want.push(Buffer.from(b.subarray(0, n))));
        assert.deepEqual(out.map((b) => b.toString('latin1')), want.map((b) => b.toString('latin1')));
        assert.equal(lb.truncatedLines, plain.truncatedLines);
      }
    }
  });

  it('fill (a file read right into the buffers) gives the lines of the input, as push does: random read sizes, keep, CR/LF, lines over maxLine to the sink', async () => {
    const r = rng(17);
    /** The input's lines (ends: \n, \r\n, a lone \r), as latin1 text. */
    const linesOf = (b: Buffer) => {
      const out = b.toString('latin1').split(/\r\n|\n|\r/);
      if (/[\r\n]$/.test(b.toString('latin1'))) out.pop();
      return out;
    };
    for (let iter = 0; iter < 80; iter++) {
      const parts: string[] = [];
      for (let i = 0; i < 50; i++) parts.push(['a line of text', 'x'.repeat(Math.floor(r() * 90)), '\n', '\r\n', '\r', 'é', 'y'.repeat(Math.floor(r() * 700))][Math.floor(r() * 7)]!);
      const input = Buffer.from(parts.join(''), 'utf8');
      const keep = iter % 3;
      /** The lines handed out (a block's, and a long line's segments joined), each block checked
       * intact until `keep` more were handed out. */
      // (fill with readAhead: the next read starts before a block is handed out, into a buffer of its own)
      const readAhead = iter % 2 === 1;
      const run = async (feed: (lb: LineBlocks, onBlock: (b: Uint8Array, n: number) => void) => Promise<void> | void, ahead = false) => {
        const lines: string[] = [];
        let long: string | undefined;
        const sink = {
          segment: (b: Uint8Array) => (long = (long ?? '') + Buffer.from(b).toString('latin1')),
          end: () => {
            lines.push(long ?? '');
            long = undefined;
          },
        };
        const lb = new LineBlocks(300, 64, sink, { keep, readAhead: ahead });
        const seen: { buf: Uint8Array; n: number; copy: string }[] = [];
        await feed(lb, (b, n) => {
          for (const old of seen.slice(-keep)) assert.equal(Buffer.from(old.buf.subarray(0, old.n)).toString('latin1'), old.copy, 'a block changed too soon');
          const copy = Buffer.from(b.subarray(0, n));
          if (keep) seen.push({ buf: b, n, copy: copy.toString('latin1') });
          assert.equal(long, undefined, 'a block inside a long line');
          lines.push(...linesOf(copy));
        });
        return { lines, truncated: lb.truncatedLines };
      };
      let reads = 0;
      let inFlight = 0;
      const got = await run(async (lb, on) => {
        let pos = 0;
        // (a read gives at most what was asked, often less; it resolves later)
        const read = async (buf: Uint8Array, at: number, n: number) => {
          assert.equal(inFlight++, 0, 'one read at a time');
          await new Promise((resolve) => setImmediate(resolve));
          const k = Math.min(n, input.length - pos, 1 + Math.floor(r() * 150));
          buf.set(input.subarray(pos, pos + k), at);
          pos += k;
          reads++;
          inFlight--;
          return k;
        };
        while (await lb.fill(read, 1 + Math.floor(r() * 200), on)) assert.ok(reads < 100_000);
        await lb.idle();
        lb.end(on);
      }, readAhead);
      const pushed = await run((lb, on) => {
        for (let i = 0; i < input.length; i += 97) lb.push(input.subarray(i, i + 97), on);
        lb.end(on);
      });
      const truth = linesOf(input);
      const k = got.lines.findIndex((l, i) => l !== truth[i]);
      if (k >= 0) assert.fail(`line ${k}: ${JSON.stringify(got.lines[k])} (${got.lines[k]?.length}) vs ${JSON.stringify(truth[k])} (${truth[k]?.length}); next ${JSON.stringify(got.lines[k + 1]?.slice(0, 40))} vs ${JSON.stringify(truth[k + 1]?.slice(0, 40))}`);
      assert.deepEqual(got, { lines: truth, truncated: 0 }, `keep ${keep}${readAhead ? ', readAhead' : ''}`);
      assert.deepEqual(pushed, got);
      assert.ok(got.lines.some((l) => l.length > 300), 'some line went to the sink');
    }
  });

  it('forEachMatchingLine over a ByteSource (a file read into its buffers): the same lines and matches as over a stream of the bytes', async () => {
    const e = MatchEngine.build([entry('a', 'disk {d} is full'), entry('b', 'the replica set lost its primary node {n}')]);
    const r = rng(23);
    const pieces = ['disk sda is full', 'the replica set lost its primary node n1', '\r', '\n', '\r\n', 'é', 'noise words here ', 'x'.repeat(5000)];
    for (let iter = 0; iter < 40; iter++) {
      let all = '';
      for (let i = 0; i < 400; i++) all += pieces[Math.floor(r() * pieces.length)]!;
      const bytes = Buffer.from(all, 'utf8');
      const seen = async (input: Readable | ByteSource) => {
        const out: [number, string][] = [];
        const stats = await forEachMatchingLine(input, e, (n, hits) => {
          for (const m of hits.matches()) out.push([n, m.text]);
        }, undefined, { ahead: true });
        return { lines: stats.lines, out };
      };
      const want = await seen(Readable.from([bytes]));
      let pos = 0;
      const got = await seen({
        readInto: async (buf, at, n) => {
          const k = Math.min(n, bytes.length - pos, 1 + Math.floor(r() * 40000));
          buf.set(bytes.subarray(pos, pos + k), at);
          pos += k;
          return k;
        },
      });
      assert.deepEqual(got, want);
      assert.ok(want.out.length > 0);
    }
  });

  it('a line longer than maxLine is cut at a character boundary, the rest skipped, and counted', () => {
    const lb = new LineBlocks(100, 16);
    const out: string[] = [];
    const take = (b: Uint8Array, n: number) => out.push(Buffer.from(b.subarray(0, n)).toString('utf8'));
    const long = 'é'.repeat(80) + ' end'; // 164 bytes
    const input = Buffer.from(`short\n${long}\nafter\n`);
    for (let i = 0; i < input.length; i += 7) lb.push(input.subarray(i, i + 7), take);
    lb.end(take);
    const lines = out.join('').split('\n');
    assert.deepEqual(lines, ['short', 'é'.repeat(50), 'after', '']);
    assert.equal(lb.truncatedLines, 1);
  });
});

describe('forEachMatchingLine: lines longer than a block (matched to their end in bytes)', () => {
  it('a 10 MB line: matches anywhere (a literal across a window edge, the end), exact UTF-16 columns, as matchLine finds them', async () => {
    const e = MatchEngine.build([
      entry('start', 'the replica set lost its primary node {n}!'),
      entry('edge', 'quota exceeded for tenant {t} after retries'),
      entry('end', 'final marker reached: {rest}'),
      entry('short', 'zzz{a}qqq'),
      entry('never', 'this message is not in the line {x}'),
    ]);
    // multibyte text (2-, 3- and 4-byte characters) so bytes and UTF-16 columns differ
    const filler = (n: number): string => 'é文😀 lorem ipsum '.repeat(Math.ceil(n / 16)).slice(0, n);
    const edgeAt = 4 * 1024 * 1024 - 10; // bytes: the literal starts just before the first window's end
    let line = 'x the replica set lost its primary node n7! ' + filler(1000);
    while (Buffer.byteLength(line) < edgeAt - 200_000) line += filler(100000);
    line += '.'.repeat(edgeAt - 1 - Buffer.byteLength(line));
    assert.equal(Buffer.byteLength(line) + 1, edgeAt); // 'quota' starts 10 bytes before the window's end
    line += ' quota exceeded for tenant acme after retries zzz1qqq ' + filler(6 * 1024 * 1024) + ' final marker reached: ' + 'v'.repeat(10000) + '  ';
    const want = e.matchLine(line);
    assert.equal(want.length, 4, JSON.stringify(want.map((m) => m.entry)));
    const bytes = Buffer.from(`first line\n${line}\nlast line zzz9qqq\n`, 'utf8');
    const got: [number, LineMatch[], string][] = [];
    const chunks = async function* () {
      for (let a = 0; a < bytes.length; a += 1 << 20) yield bytes.subarray(a, a + (1 << 20));
    };
    const stats = await forEachMatchingLine(Readable.from(chunks()), e, (n, hits) => got.push([n, hits.matches(), hits.text()]));
    assert.equal(stats.lines, 3);
    assert.deepEqual(
      got.map(([n]) => n),
      [2, 3],
    );
    const ms = got[0]![1];
    assert.deepEqual(
      ms.map((m) => [m.entry, m.start, m.end, m.captures.map((c) => [c.name, c.start, c.end])]),
      want.map((m) => [m.entry, m.start, m.end, m.captures.map((c) => [c.name, c.start, c.end])]),
    );
    // texts are cut at 4096 bytes with '…'; shorter ones are whole
    for (const [m, w] of ms.map((m, i) => [m, want[i]!] as const)) {
      if (Buffer.byteLength(w.text) <= 4096) assert.equal(m.text, w.text);
      else assert.ok(m.text.endsWith('…') && w.text.startsWith(m.text.slice(0, -1)));
    }
    assert.equal(got[0]![2].length <= 64 * 1024, true, 'the line text handed over is its first 64 KiB');
    assert.equal(got[1]![1][0]!.text, 'zzz9qqq');
  });
});

describe('engine: snapshot and restore (the index cache stores the snapshot)', () => {
  it('an engine restored from a snapshot (passed through v8 serialization) scans exactly as the one built', () => {
    const v8 = require('node:v8') as typeof import('node:v8');
    const records = generateRecords(2000, 9);
    const entries = [...toEntries(records), entry('short', 'ab {x} cd'), entry('word', 'failed')];
    const built = MatchEngine.build(entries);
    let text = '';
    generateLog({ records, bytes: 300_000, matchFraction: 0.2, nearMissFraction: 0.2, seed: 5 }, (c) => (text += c), () => undefined);
    text += 'x ab 1 cd\nit failed\n';
    const want = viaBytes(built, text);
    assert.ok(want.got.length > 100);
    const snap = v8.deserialize(v8.serialize(built.snapshot()));
    const restored = MatchEngine.restore(entries, snap);
    assert.deepEqual(viaBytes(restored, text), want);
    assert.equal(restored.byteIndex().stats.native, true);
    assert.deepEqual(restored.matchLine('x ab 1 cd'), built.matchLine('x ab 1 cd'), 'the per-line path too');
    assert.throws(() => MatchEngine.restore(entries.slice(1), snap), /entries differ/);
  });

  it('an engine whose string prefilter was built (the language server) keeps it in the snapshot: restored, it has the same keys and candidates without planning them again', async () => {
    const v8 = require('node:v8') as typeof import('node:v8');
    const records = generateRecords(3000, 6);
    // (anchored keys with partners, strided tiers, keys searched with indexOf, short literals)
    const entries = [
      ...toEntries(records),
      // 8-char anchored keys (probed with the 16-char tier: partners), keys without an anchor (a strided tier)
      ...Array.from({ length: 60 }, (_, i) => entry(`a8-${i}`, `err retrynode${i}x {x}`)),
      ...Array.from({ length: 60 }, (_, i) => entry(`s-${i}`, `{x}/strided${i}pathpart/{y}`)),
      entry('short', 'ab {x} cd'),
      entry('word', 'failed'),
      entry('two', 'q {x} z'),
    ];
    const served = (await MatchEngine.buildAsync(entries))!;
    const snap = v8.deserialize(v8.serialize(served.snapshot())) as ReturnType<MatchEngine['snapshot']>;
    assert.ok(snap.strings, 'the built string prefilter is stored');
    assert.ok(snap.strings.tiers.some((t) => t.partner), 'an anchored tier probed with its partner');
    assert.ok(snap.strings.tiers.some((t) => !t.tier.anchored), 'a strided tier');
    const restored = MatchEngine.restore(entries, snap);
    assert.ok((restored as unknown as { strings?: unknown }).strings, 'restored with its string prefilter: the first line does not plan it');
    let text = '';
    generateLog({ records, bytes: 200_000, matchFraction: 0.3, nearMissFraction: 0.2, seed: 12 }, (c) => (text += c), () => undefined);
    const lines = [...text.split('\n'), 'x ab 1 cd', 'it failed', 'q 1 z', 'err retrynode7x now', 'at /srv/strided3pathpart/x.js', 'err retrynode7 no'];
    let matched = 0;
    for (const line of lines) {
      assert.deepEqual(restored.candidates(line).sort((a, b) => a - b), served.candidates(line).sort((a, b) => a - b), line);
      const ms = restored.matchLine(line);
      assert.deepEqual(ms, served.matchLine(line), line);
      if (ms.length) matched++;
    }
    assert.ok(matched > 300, `${matched} matched lines`);
    assert.deepEqual(restored.stats, served.stats);
    // a snapshot whose tables do not fit each other is refused (the cache reads it as a miss)
    const bad = v8.deserialize(v8.serialize(served.snapshot())) as ReturnType<MatchEngine['snapshot']>;
    bad.strings!.tiers[0]!.tier.ent = bad.strings!.tiers[0]!.tier.ent.subarray(2);
    assert.throws(() => MatchEngine.restore(entries, bad), /do not fit/);
    const other = v8.deserialize(v8.serialize(served.snapshot())) as ReturnType<MatchEngine['snapshot']>;
    other.strings!.size++;
    other.strings!.keys.push('');
    assert.throws(() => MatchEngine.restore(entries, other), /of other patterns/);
  });

  it('an engine whose byte index was never built (the language server) snapshots without one; restored, it builds it on first use and scans the same', () => {
    const v8 = require('node:v8') as typeof import('node:v8');
    const records = generateRecords(500, 4);
    const entries = [...toEntries(records), entry('word', 'failed')];
    const lineOnly = MatchEngine.build(entries);
    assert.deepEqual(lineOnly.matchLine('it failed'), MatchEngine.build(entries).matchLine('it failed'));
    const snap = v8.deserialize(v8.serialize(lineOnly.snapshot())) as ReturnType<MatchEngine['snapshot']>;
    assert.equal(snap.bytes, undefined, 'no byte index was built, none is stored');
    assert.equal(snap.chains, undefined);
    let text = '';
    generateLog({ records, bytes: 100_000, matchFraction: 0.2, nearMissFraction: 0.2, seed: 8 }, (c) => (text += c), () => undefined);
    text += 'it failed\n';
    const restored = MatchEngine.restore(entries, snap);
    assert.deepEqual(viaBytes(restored, text), viaBytes(MatchEngine.build(entries), text));
    assert.equal(restored.byteIndex().stats.native, true);
  });
});
