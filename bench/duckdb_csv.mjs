// DuckDB's side of the CSV benchmark (bench/csv), through @duckdb/node-api:
//   node bench/duckdb_csv.mjs FILE THREADS SCHEMA
// read_csv with a header and the typed columns of SCHEMA (bench_gen_wide --duckdb), every column
// consumed (hash() over all of them). Prints "SECONDS ROWS": the query's own time.
import { readFileSync } from 'node:fs';

import { DuckDBInstance } from '@duckdb/node-api';

const [file, threads, schemaFile] = process.argv.slice(2);
if (!file || !schemaFile || !/^[0-9]+$/.test(threads ?? '')) {
  console.error('usage: node bench/duckdb_csv.mjs FILE THREADS SCHEMA');
  process.exit(2);
}
const schema = JSON.parse(readFileSync(schemaFile, 'utf8'));
const instance = await DuckDBInstance.create(':memory:');
const db = await instance.connect();
await db.run(`SET threads = ${threads}`);
const path = file.replaceAll("'", "''");
const start = process.hrtime.bigint();
const reader = await db.runAndReadAll(`
  SELECT count(*), count_if(hash(${schema.names.join(', ')}) = 42)
  FROM read_csv('${path}', header = true, columns = ${schema.columns})`);
const secs = Number(process.hrtime.bigint() - start) / 1e9;
console.log(`${secs.toFixed(3)} ${String(reader.getRows()[0][0])}`);
