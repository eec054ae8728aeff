// Extraction coverage on the real corpora (not ranking): for each real traceback / stack, is there a
// record from the raising file whose pattern matches the exception line?
//
//   node dist/cli.js extract /usr/lib/python3.11 --repo python/cpython --out /tmp/py.json
//   node dist/cli.js extract node_modules --repo npm/node_modules --out /tmp/nm.json
//   npx tsx scripts/real-corpora/extract_coverage.ts /tmp/py.json /tmp/nm.json
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Catalog } from '../../server/src/core/catalog';
import { stripAnsi } from '../../server/src/core/text';

const REAL = path.join(__dirname, '..', '..', 'test', 'fixtures', 'real');
const [pyRecords, nmRecords] = process.argv.slice(2);

function check(corpus: string, recordsFile: string, fileOf: (b: Record<string, any>) => string | null | undefined): void {
  const cat = new Catalog(JSON.parse(fs.readFileSync(recordsFile, 'utf8')));
  const truth = JSON.parse(fs.readFileSync(path.join(REAL, `${corpus}.truth.json`), 'utf8'));
  const lines = fs.readFileSync(path.join(REAL, `${corpus}.log`), 'utf8').split('\n');
  let withFile = 0;
  let hit = 0;
  const miss: string[] = [];
  for (const b of truth.blocks) {
    const file = fileOf(b);
    if (!file) continue;
    withFile++;
    const line = lines[b.exceptionLine - 1]!;
    if (cat.matchLine(line).some((m) => m.record.filePath === file)) hit++;
    else miss.push(`  miss ${b.id}: ${file}: ${stripAnsi(line).slice(0, 100)}`);
  }
  console.log(`${corpus}: ${hit} of ${withFile} exception lines matched by a record from the raising file`);
  for (const m of miss) console.log(m);
}

if (pyRecords) check('python-tracebacks', pyRecords, (b) => b.raise?.file);
if (nmRecords) check('node-stacks', nmRecords, (b) => b.throwFrame?.packageFile);
