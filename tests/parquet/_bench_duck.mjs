import { DuckDBInstance } from '@duckdb/node-api';
const [file, threads, mode] = process.argv.slice(2);
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run(`SET threads=${threads}`);
const t0 = performance.now();
if (mode === 'json') {
  await con.run(`COPY (SELECT * FROM '${file}') TO '/dev/null' (FORMAT json)`);
} else if (mode === 'csv') {
  await con.run(`COPY (SELECT * FROM '${file}') TO '/dev/null' (FORMAT csv)`);
} else {
  const r = await con.runAndReadAll(`SELECT count(id), count(small), count(amount), count(name), count(hash), count(ts), count(day), count(flag), count(price), max(length(name)), max(length(hash)) FROM '${file}'`);
  console.log(JSON.stringify(r.getRows().map(r => r.map(String))));
}
console.log(mode, 'threads', threads, ((performance.now() - t0) / 1000).toFixed(2), 's');
