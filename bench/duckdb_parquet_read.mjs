// DuckDB's side of the Parquet read benchmark (bench/parquet-read), through @duckdb/node-api:
//   node bench/duckdb_parquet_read.mjs write flat|nested FILE ROWS   write a benchmark file (snappy)
//   node bench/duckdb_parquet_read.mjs scan FILE THREADS             hash() over every column
//   node bench/duckdb_parquet_read.mjs json FILE THREADS             COPY ... TO '/dev/null' (JSON lines)
// scan and json print "SECONDS ROWS" on one line: SECONDS is the query's own time, without
// node's start-up.
import { DuckDBInstance } from '@duckdb/node-api';

const [mode, file, arg] = process.argv.slice(2);
// The count: ROWS for write, THREADS for scan and json.
const count = mode === 'write' ? process.argv[5] : arg;
if (!file || !/^[0-9]+$/.test(count ?? '')) {
  console.error('usage: node bench/duckdb_parquet_read.mjs write flat|nested FILE ROWS | scan|json FILE THREADS');
  process.exit(2);
}
const instance = await DuckDBInstance.create(':memory:');
const db = await instance.connect();
const path = file.replaceAll("'", "''");

if (mode === 'write') {
  const [, , , shape, out, rows] = process.argv;
  await db.run('SET threads = 2');
  const flat = `SELECT i AS id, (i * 7919) % 100000 AS small,
      CASE WHEN i % 10 = 0 THEN NULL ELSE i * 1.5 END AS amount,
      'customer_' || (i % 50000)::VARCHAR AS name, md5(i::VARCHAR) AS hash,
      TIMESTAMP '2020-01-01' + INTERVAL (i) SECOND AS ts, DATE '2000-01-01' + (i % 10000)::INTEGER AS day,
      (i % 3 = 0) AS flag, ((i % 100000)::DECIMAL(12,2) / 7)::DECIMAL(12,2) AS price
    FROM range(${Number(rows)}) t(i)`;
  const nested = `SELECT i AS id,
      {'city': 'city_' || (i % 1000)::VARCHAR, 'zip': (i % 99999)::INTEGER, 'geo': {'lat': i / 1e6, 'lon': -i / 1e6}} AS address,
      CASE WHEN i % 7 = 0 THEN NULL ELSE [i, i + 1, i + 2][1:(i % 4)] END AS tags,
      [{'sku': 'sku_' || ((i + k) % 5000)::VARCHAR, 'qty': (k + 1)::INTEGER} FOR k IN range(i % 3)] AS items,
      MAP {'a': i, 'b': i * 2} AS attrs
    FROM range(${Number(rows)}) t(i)`;
  await db.run(`COPY (${shape === 'nested' ? nested : flat}) TO '${out.replaceAll("'", "''")}'
                (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 1000000)`);
  process.exit(0);
}

await db.run(`SET threads = ${Number(arg)}`);
const start = process.hrtime.bigint();
let rows;
if (mode === 'scan') {
  // hash() over every column of every row: nothing skipped by projection pushdown, every value
  // decoded.
  const cols = (await db.runAndReadAll(`DESCRIBE SELECT * FROM '${path}'`)).getRows().map((r) => `"${r[0]}"`);
  const reader = await db.runAndReadAll(
    `SELECT count(*), count_if(hash(${cols.join(', ')}) = 42) FROM '${path}'`);
  rows = String(reader.getRows()[0][0]);
} else if (mode === 'json') {
  const reader = await db.runAndReadAll(`COPY (SELECT * FROM '${path}') TO '/dev/null' (FORMAT json)`);
  rows = String(reader.getRows()[0]?.[0] ?? '?');
} else {
  throw new Error(`unknown mode ${mode}`);
}
const secs = Number(process.hrtime.bigint() - start) / 1e9;
console.log(`${secs.toFixed(3)} ${rows}`);
