// The bundled data: every record file under records/ loads in strict mode without errors, every
// pattern is safe, and records/schema.json agrees with record.ts and accepts every bundled record.

import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadRecordsFromPath } from '../../server/src/core/load';
import { ERROR_TYPES, HANDLING_STRATEGIES, SEVERITIES } from '../../server/src/core/record';
import { RECORD_FIELDS, messagePatternProblem } from '../../server/src/core/load/validate';
import { BUNDLED_RECORDS, REPO } from '../shared/paths';

const SEEDS = '/work/shared/seed-records';

type Schema = Record<string, unknown>;
const schema: Schema = JSON.parse(fs.readFileSync(path.join(BUNDLED_RECORDS, 'schema.json'), 'utf8'));
const defs = schema.definitions as Record<string, Schema>;
const recordSchema = defs.record!;
const props = recordSchema.properties as Record<string, Schema>;

function recordFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...recordFiles(full));
    else if (/\.(json|jsonl|ndjson)(\.gz)?$/.test(e.name) && full !== path.join(BUNDLED_RECORDS, 'schema.json')) out.push(full);
  }
  return out.sort();
}

/** A small draft-07 subset validator: enough for the keywords records/schema.json uses. Returns errors. */
function check(value: unknown, s: Schema, at = '$'): string[] {
  if (typeof s.$ref === 'string') {
    const name = s.$ref.replace('#/definitions/', '');
    const target = defs[name];
    if (!target) return [`${at}: unresolved $ref ${s.$ref}`];
    return check(value, target, at);
  }
  const errs: string[] = [];
  const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v);
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string];
    const t = typeOf(value);
    if (!types.includes(t) && !(t === 'integer' && types.includes('number'))) errs.push(`${at}: type ${t} not in ${types.join('|')}`);
  }
  if (s.enum && !(s.enum as unknown[]).includes(value)) errs.push(`${at}: ${JSON.stringify(value)} not in enum`);
  if ('const' in s && s.const !== value) errs.push(`${at}: not const ${JSON.stringify(s.const)}`);
  if (typeof value === 'string') {
    if (typeof s.pattern === 'string' && !new RegExp(s.pattern, 'u').test(value)) errs.push(`${at}: does not match ${s.pattern}`);
    if (typeof s.minLength === 'number' && value.length < s.minLength) errs.push(`${at}: shorter than ${s.minLength}`);
    if (typeof s.maxLength === 'number' && value.length > s.maxLength) errs.push(`${at}: longer than ${s.maxLength}`);
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) errs.push(`${at}: below ${s.minimum}`);
    if (typeof s.maximum === 'number' && value > s.maximum) errs.push(`${at}: above ${s.maximum}`);
  }
  if (Array.isArray(value) && s.items) value.forEach((v, i) => errs.push(...check(v, s.items as Schema, `${at}[${i}]`)));
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const obj = value as Record<string, unknown>;
    for (const k of (s.required as string[] | undefined) ?? []) if (!(k in obj)) errs.push(`${at}: missing ${k}`);
    const p = (s.properties as Record<string, Schema> | undefined) ?? {};
    for (const [k, v] of Object.entries(obj)) {
      if (p[k]) errs.push(...check(v, p[k]!, `${at}.${k}`));
      else if (s.additionalProperties === false) errs.push(`${at}: additional property ${k}`);
    }
  }
  if (s.anyOf && !(s.anyOf as Schema[]).some((sub) => check(value, sub, at).length === 0)) errs.push(`${at}: matches no anyOf branch`);
  if (s.oneOf) {
    const n = (s.oneOf as Schema[]).filter((sub) => check(value, sub, at).length === 0).length;
    if (n !== 1) errs.push(`${at}: matches ${n} oneOf branches`);
  }
  return errs;
}

describe('records data', () => {
  const files = recordFiles(BUNDLED_RECORDS);

  it('has bundled record files', () => {
    assert.ok(files.length >= 1);
    assert.ok(files.includes(path.join(BUNDLED_RECORDS, 'sgl-project/sglang.json')));
  });

  for (const file of files) {
    const rel = path.relative(REPO, file);
    describe(rel, () => {
      it('loads in strict mode with zero errors and zero warnings', async () => {
        const r = await loadRecordsFromPath(file, { strict: true });
        assert.deepEqual(
          r.problems.filter((p) => p.severity !== 'info'),
          [],
        );
        assert.ok(r.records.length > 0);
      });

      it('lives at records/<owner>/<name>.json and holds only that repository', async () => {
        const m = /records\/([^/]+)\/([^/]+)\.json$/.exec(file);
        assert.ok(m, rel);
        const r = await loadRecordsFromPath(file, { strict: true });
        for (const rec of r.records) assert.equal(rec.repo, `${m[1]}/${m[2]}`);
      });

      it('every pattern compiles, is safe, and matches its own message text', async () => {
        const r = await loadRecordsFromPath(file, { strict: true });
        for (const rec of r.records) {
          assert.doesNotThrow(() => new RegExp(rec.messagePattern), rec.id);
          assert.equal(messagePatternProblem(rec.messagePattern), undefined, rec.id);
          assert.ok(new RegExp(rec.messagePattern).test(rec.errorMessage), `${rec.id}: pattern does not match its own message`);
        }
      });

      it('every record validates against records/schema.json', () => {
        const data: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
        assert.deepEqual(check(data, schema), []);
        for (const rec of data as unknown[]) assert.deepEqual(check(rec, recordSchema), []);
      });
    });
  }

  it('the seed envelopes validate against records/schema.json', () => {
    const seeds = [path.join(REPO, 'test/fixtures/records/envelope.json')];
    if (fs.existsSync(SEEDS)) seeds.push(...fs.readdirSync(SEEDS).map((f) => path.join(SEEDS, f)));
    for (const f of seeds) {
      const data: unknown = JSON.parse(fs.readFileSync(f, 'utf8'));
      assert.ok(data && typeof data === 'object' && 'record' in data, f);
      assert.deepEqual(check(data, schema), [], f);
    }
  });
});

describe('records/schema.json', () => {
  it('is draft-07 and accepts one record, an envelope or an array', () => {
    assert.equal(schema.$schema, 'http://json-schema.org/draft-07/schema#');
    const minimal = { errorMessage: 'Connection refused by {host}' };
    assert.deepEqual(check(minimal, schema), []);
    assert.deepEqual(check({ messagePattern: 'refused by (.+?)' }, schema), []);
    assert.deepEqual(check({ record: minimal, datasetVersion: '2026-08-28T06:17:29.519Z' }, schema), []);
    assert.deepEqual(check([minimal, { record: minimal }], schema), []);
  });

  it('requires messagePattern or errorMessage (anyOf), nothing else', () => {
    assert.notDeepEqual(check({ severity: 'error' }, schema), []);
    assert.notDeepEqual(check([{ severity: 'error' }], schema), []);
    assert.deepEqual(recordSchema.required, undefined);
    assert.deepEqual(recordSchema.anyOf, [{ required: ['messagePattern'] }, { required: ['errorMessage'] }]);
  });

  it('describes exactly the fields of record.ts (plus $schema), each with a description', () => {
    assert.deepEqual(Object.keys(props).filter((k) => k !== '$schema').sort(), [...RECORD_FIELDS].sort());
    for (const [k, p] of Object.entries(props)) assert.ok(typeof p.description === 'string' && p.description.length > 10, k);
    for (const d of Object.values(defs)) for (const [k, p] of Object.entries(d.properties as Record<string, Schema>)) assert.ok(typeof p.description === 'string', k);
  });

  it('uses the enum values of record.ts', () => {
    assert.deepEqual(props.errorType!.enum, [...ERROR_TYPES]);
    assert.deepEqual(props.severity!.enum, [...SEVERITIES]);
    assert.deepEqual(props.handlingStrategy!.enum, [...HANDLING_STRATEGIES, null]);
    assert.equal(props.schemaVersion!.const, 2);
  });

  it('rejects values the strict validator rejects', () => {
    const bad: Record<string, unknown>[] = [
      { errorMessage: 'x', httpStatus: 600 },
      { errorMessage: 'x', severity: 'fatal' },
      { errorMessage: 'x', tags: ['Not Kebab'] },
      { errorMessage: 'x', id: 'XYZ' },
      { errorMessage: 'x', schemaVersion: 1 },
      { errorMessage: 'x', analyzedAt: '2026-08-28 05:10' },
      { errorMessage: 'x', typo: 1 },
    ];
    for (const b of bad) assert.notDeepEqual(check(b, schema), [], JSON.stringify(b));
  });
});
