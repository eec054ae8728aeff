// Experiment for issue 11's cold scan (not part of the product): is a records file parsed faster
// on two threads? One thread parses a JSON Lines file whole; then a worker parses its second half
// while this thread parses the first, and posts back each record's lite fields (what a scan reads).
//   node scripts/parallel-load-experiment.js RECORDS.jsonl
// Prints the one-thread time, and for two threads: the total, this thread's half, the worker's
// work (its read of the file and its half) and the transfer of its rows (post to receipt).
const { Worker, isMainThread, parentPort, workerData } = require('worker_threads');
const fs = require('fs');

const LITE = ['id', 'repo', 'slug', 'errorCode', 'errorMessage', 'messagePattern', 'errorType', 'errorClass', 'httpStatus', 'severity', 'filePath', 'lineNumber', 'githubUrl', 'tags', 'analyzedSha', 'schemaVersion'];
const now = () => performance.timeOrigin + performance.now();

/** The lite rows of the JSON lines in buf[a, b). */
function parseRange(buf, a, b) {
  const out = [];
  const text = buf.toString('utf8', a, b);
  for (let i = 0; ; ) {
    const j = text.indexOf('\n', i);
    const line = text.slice(i, j < 0 ? text.length : j);
    if (line.length) {
      const r = JSON.parse(line);
      const row = new Array(LITE.length);
      for (let k = 0; k < LITE.length; k++) row[k] = r[LITE[k]];
      out.push(row);
    }
    if (j < 0) break;
    i = j + 1;
  }
  return out;
}

if (!isMainThread) {
  const { file, a, b } = workerData;
  const began = now();
  const rows = parseRange(fs.readFileSync(file), a, b);
  parentPort.postMessage({ rows, began, posted: now() });
} else {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node scripts/parallel-load-experiment.js RECORDS.jsonl');
  const buf = fs.readFileSync(file);
  let t = now();
  const one = parseRange(buf, 0, buf.length);
  console.log(`one thread: ${(now() - t).toFixed(0)} ms, ${one.length} rows`);
  const mid = buf.indexOf(10, buf.length >> 1) + 1;
  t = now();
  const w = new Worker(__filename, { workerData: { file, a: mid, b: buf.length } });
  const first = parseRange(buf, 0, mid);
  const half = now() - t;
  w.once('message', (m) => {
    const received = now();
    console.log(
      `two threads: ${(received - t).toFixed(0)} ms in all; this thread's half ${half.toFixed(0)} ms; ` +
        `the worker's read and half ${(m.posted - m.began).toFixed(0)} ms (began ${(m.began - t).toFixed(0)} ms after it was made); ` +
        `its rows' transfer ${(received - m.posted).toFixed(0)} ms; ${first.length + m.rows.length} rows`,
    );
    void w.terminate();
  });
}
