// Print a Parquet file's rows in the canonical JSON form (canonical.mjs), one per line, as a
// reader we did not write decodes them.
//
//   node tests/parquet/read.mjs --reader duckdb|arrow|hyparquet FILE
//
// Exit 0 with the rows on standard output; 1 when the reader fails on the file (its message on
// standard error); 2 for usage. Each reader decides the form from its own view of the types:
// see readers.mjs for the quirks of each and the one known gap (DuckDB reads UTC-adjusted
// nanosecond timestamps as microseconds; compare.mjs --reader duckdb tolerates exactly that).
import { READERS } from './readers.mjs';
import { toJson } from './canonical.mjs';

const usage = `usage: node read.mjs --reader duckdb|arrow|hyparquet FILE
  duckdb     DuckDB's Node API; gap: a UTC-adjusted TIMESTAMP(NANOS) column reads as microseconds
  arrow      arrow-rs (parquet-wasm) into Arrow JS; FixedSizeBinary(16) prints as a uuid
  hyparquet  hyparquet, with its lossy decimal/timestamp/map conversions bypassed (exact)`;

const args = process.argv.slice(2);
let reader;
let file;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--reader') reader = args[++i];
  else if (args[i] === '-h' || args[i] === '--help') {
    console.log(usage);
    process.exit(0);
  } else if (file === undefined) file = args[i];
  else {
    console.error(usage);
    process.exit(2);
  }
}
if (!READERS[reader] || !file) {
  console.error(usage);
  process.exit(2);
}

try {
  const { rows } = await READERS[reader](file);
  let buf = [];
  let size = 0;
  for await (const row of rows) {
    const line = toJson(row);
    buf.push(line);
    size += line.length;
    if (size > 1 << 20) {
      process.stdout.write(buf.join('\n') + '\n');
      buf = [];
      size = 0;
    }
  }
  if (buf.length) process.stdout.write(buf.join('\n') + '\n');
} catch (e) {
  console.error(`read.mjs --reader ${reader} ${file}: ${e.message}`);
  process.exit(1);
}
