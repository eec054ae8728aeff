// The realistic generator's records (realgen.ts) as a file of full records, for runs of the CLI
// itself on them (the `real` section matches them in one process, without the CLI's error-block
// context):
//   npx tsx test/bench/writeRealistic.ts N FILE [templates]
// N realistic records (seed 11, as the `real` section's), or with `templates` N log templates
// (seed 3), each with the lsp section's full-record fields.
import { generateRealisticRecords, generateTemplates } from './realgen';
import { writeRecordFile } from './cliRun';

const [nArg, out, kind] = process.argv.slice(2);
const n = Number(nArg);
if (!out || !Number.isInteger(n) || n <= 0) {
  process.stderr.write('usage: writeRealistic.ts N FILE [templates]\n');
  process.exit(2);
}
writeRecordFile(out, kind === 'templates' ? generateTemplates(n, 3) : generateRealisticRecords(n, 11));
