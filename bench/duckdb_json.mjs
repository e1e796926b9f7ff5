// DuckDB's side of the data-plane benchmark (bench/data-plane), through @duckdb/node-api:
//   node bench/duckdb_json.mjs typed FILE THREADS [SCHEMA]   typed read_json, every column consumed
//   node bench/duckdb_json.mjs infer FILE THREADS            read_json with sample_size=-1 (whole file)
// SCHEMA: a JSON file {"columns": "{name: 'TYPE', ...}", "names": [...]} (bench_gen_wide --duckdb);
// without it, the orders' columns.
// Prints "SECONDS ROWS" for typed, "SECONDS COLUMN:TYPE,..." for infer, on one line. SECONDS is
// the query's own time, without node's start-up.
import { readFileSync } from 'node:fs';

import { DuckDBInstance } from '@duckdb/node-api';

const [mode, file, threads, schemaFile] = process.argv.slice(2);
if (!file || !/^[0-9]+$/.test(threads ?? '')) {
  console.error('usage: node bench/duckdb_json.mjs typed|infer FILE THREADS [SCHEMA]');
  process.exit(2);
}
const instance = await DuckDBInstance.create(':memory:');
const db = await instance.connect();
await db.run(`SET threads = ${threads}`);
const path = file.replaceAll("'", "''");

// The same schema as bench/orders_bench.ddl, in DuckDB's types, unless SCHEMA names another.
let columns = `{
  order_id: 'BIGINT', customer_id: 'BIGINT', created_at: 'TIMESTAMP', order_date: 'DATE',
  status: 'VARCHAR', currency: 'VARCHAR', amount: 'DECIMAL(12,2)', express: 'BOOLEAN',
  coupon: 'VARCHAR', note: 'VARCHAR',
  shipping: 'STRUCT(method VARCHAR, city VARCHAR, postcode VARCHAR, cost DECIMAL(10,2))',
  items: 'STRUCT(sku VARCHAR, qty INTEGER, price DECIMAL(10,2))[]'
}`;

let names = ['order_id', 'customer_id', 'created_at', 'order_date', 'status', 'currency',
  'amount', 'express', 'coupon', 'note', 'shipping', 'items'];
if (schemaFile) {
  const schema = JSON.parse(readFileSync(schemaFile, 'utf8'));
  columns = schema.columns;
  names = schema.names;
}

const start = process.hrtime.bigint();
let out;
if (mode === 'typed') {
  // hash() over every column: no column can be skipped by projection pushdown, and every value
  // is converted to its type (a value that does not convert fails the query).
  const reader = await db.runAndReadAll(`
    SELECT count(*), count_if(hash(${names.join(', ')}) = 42)
    FROM read_json('${path}', format = 'newline_delimited', columns = ${columns})`);
  out = String(reader.getRows()[0][0]);
} else if (mode === 'infer') {
  const reader = await db.runAndReadAll(`
    DESCRIBE SELECT * FROM read_json('${path}', format = 'newline_delimited', sample_size = -1)`);
  out = reader.getRows().map((r) => `${r[0]}:${r[1]}`).join(',');
} else {
  throw new Error(`unknown mode ${mode}`);
}
const secs = Number(process.hrtime.bigint() - start) / 1e9;
console.log(`${secs.toFixed(3)} ${out}`);
