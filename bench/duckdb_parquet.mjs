// DuckDB's side of the Parquet benchmark (bench/parquet), through @duckdb/node-api:
//   node bench/duckdb_parquet.mjs write JSONL OUT.parquet THREADS   typed read_json, COPY to Parquet
//   node bench/duckdb_parquet.mjs scan FILE.parquet THREADS         hash of every column
// Prints "SECONDS ROWS" on one line; SECONDS is the query's own time, without node's start-up.
import { DuckDBInstance } from '@duckdb/node-api';

const [mode, file, a, b] = process.argv.slice(2);
const threads = mode === 'write' ? b : a;
if (!file || !/^[0-9]+$/.test(threads ?? '')) {
  console.error('usage: node bench/duckdb_parquet.mjs write JSONL OUT THREADS | scan FILE THREADS');
  process.exit(2);
}
const instance = await DuckDBInstance.create(':memory:');
const db = await instance.connect();
await db.run(`SET threads = ${threads}`);
const quote = (p) => p.replaceAll("'", "''");

// The same schema as bench/orders_bench.ddl, in DuckDB's types.
const columns = `{
  order_id: 'BIGINT', customer_id: 'BIGINT', created_at: 'TIMESTAMP WITH TIME ZONE',
  order_date: 'DATE', status: 'VARCHAR', currency: 'VARCHAR', amount: 'DECIMAL(12,2)',
  express: 'BOOLEAN', coupon: 'VARCHAR', note: 'VARCHAR',
  shipping: 'STRUCT(method VARCHAR, city VARCHAR, postcode VARCHAR, cost DECIMAL(10,2))',
  items: 'STRUCT(sku VARCHAR, qty INTEGER, price DECIMAL(10,2))[]'
}`;
const all = 'order_id, customer_id, created_at, order_date, status, currency, amount, express, ' +
  'coupon, note, shipping, items';

const start = process.hrtime.bigint();
let rows;
if (mode === 'write') {
  const reader = await db.runAndReadAll(`
    COPY (SELECT * FROM read_json('${quote(file)}', format = 'newline_delimited',
                                  columns = ${columns}))
    TO '${quote(a)}' (FORMAT parquet, COMPRESSION snappy)`);
  rows = String(reader.getRows()[0]?.[0] ?? '?');
} else if (mode === 'scan') {
  const reader = await db.runAndReadAll(`
    SELECT count(*), count_if(hash(${all}) = 42) FROM read_parquet('${quote(file)}')`);
  rows = String(reader.getRows()[0][0]);
} else {
  throw new Error(`unknown mode ${mode}`);
}
const secs = Number(process.hrtime.bigint() - start) / 1e9;
console.log(`${secs.toFixed(3)} ${rows}`);
