// `sluice sqlgen check --dialect duckdb` run in DuckDB against `sluice validate` on the same JSON
// lines: the violated rules and their counts must agree exactly.
//
//   node tests/sqlcheck/sqlcheck_e2e.mjs --sluice BUILD/sluice --source SOURCE_DIR
//
// For each case of cases.json, the records are loaded into DuckDB as a raw relation, every
// column VARCHAR (what Auto Loader infers for JSON by default), and the generated query runs on
// it. What a relation of strings cannot show is taken out of the comparison on both sides, and
// counted:
//   - malformed lines (not a JSON object): validate quarantines them; no SQL relation holds them.
//     Their count must equal validate's `malformed`.
//   - records with a quoted value in a numeric or boolean column ("4500.00" for a double): as a
//     string it is the same as 4500.00, which Spark's JSON reader (and validate) refuse.
//   - records with a null under a key the contract lacks: the key is there (validate's
//     unknown_field), but in the relation the column is just null.
// validate then runs on the records that are left, and its report's violations map to rules:
// missing_required and null_not_allowed to not_null; type_mismatch, out_of_range,
// decimal_precision, string_too_long, invalid_date and invalid_timestamp to type; unknown_field
// to unknown_column. The rules validate has no kind for (enum, range, length, pattern, unique)
// are compared with the counts cases.json states. The query written without --schema must find
// the same, less unknown_column; the dbt-duckdb singular tests must select as many rows as the
// query counts for their rules. Exit 0 when all agree, 1 otherwise, 77
// (skipped) without @duckdb/node-api (tests/parquet/node_modules or NODE_PATH).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const KIND_RULE = {
  missing_required: 'not_null',
  null_not_allowed: 'not_null',
  type_mismatch: 'type',
  out_of_range: 'type',
  decimal_precision: 'type',
  string_too_long: 'type',
  invalid_date: 'type',
  invalid_timestamp: 'type',
  unknown_field: 'unknown_column',
};
const QUOTE_BLIND = new Set(['byte', 'short', 'integer', 'long', 'float', 'double', 'boolean']);

async function loadDuckdb() {
  for (const base of [import.meta.url, new URL('../parquet/package.json', import.meta.url)]) {
    try {
      return await import(pathToFileURL(createRequire(base).resolve('@duckdb/node-api')).href);
    } catch {
      // the next place
    }
  }
  return null;
}

function args() {
  const out = {};
  const argv = process.argv.slice(2);
  for (let i = 0; i < argv.length; i += 2) out[argv[i].replace(/^--/, '')] = argv[i + 1];
  if (!out.sluice || !out.source) {
    process.stderr.write('usage: sqlcheck_e2e.mjs --sluice BIN --source DIR\n');
    process.exit(2);
  }
  return out;
}

function sluice(bin, argv, okCodes) {
  const r = spawnSync(bin, argv, { encoding: 'utf8' });
  if (!okCodes.includes(r.status)) {
    throw new Error(`sluice ${argv.join(' ')}: exit ${r.status}\n${r.stderr}`);
  }
  return r.stdout;
}

// The contract's top-level columns and their Spark type names.
function contractTypes(bin, contract) {
  const json = JSON.parse(sluice(bin, ['schema', 'convert', contract, '--to', 'spark-json', '-q'], [0]));
  return new Map(json.fields.map((f) => [f.name, typeof f.type === 'string' ? f.type : f.type.type]));
}

function splitRecords(text, types) {
  const kept = [];
  let malformed = 0;
  let blind = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let rec;
    try {
      rec = JSON.parse(line);
    } catch {
      malformed++;
      continue;
    }
    if (rec === null || typeof rec !== 'object' || Array.isArray(rec)) {
      malformed++;
      continue;
    }
    const hidden = Object.entries(rec).some(([k, v]) =>
      (QUOTE_BLIND.has(types.get(k)) && typeof v === 'string') || (!types.has(k) && v === null));
    if (hidden) {
      blind++;
      continue;
    }
    kept.push({ line, rec });
  }
  return { kept, malformed, blind };
}

function key(rule, column) {
  return `${rule} ${column}`;
}

async function runCase(duck, conn, bin, source, c, dir) {
  const contract = join(source, c.contract);
  const data = join(source, c.data);
  const problems = [];
  const types = contractTypes(bin, contract);

  const full = JSON.parse(sluice(bin, ['validate', '--contract', contract, data, '--format', 'json', '-q',
    '--quarantine', '/dev/null'], [0, 1]));
  const { kept, malformed, blind } = splitRecords(readFileSync(data, 'utf8'), types);
  if (full.malformed !== malformed) {
    problems.push(`malformed: validate ${full.malformed}, this test ${malformed}`);
  }
  const file = join(dir, `${c.relation}.jsonl`);
  writeFileSync(file, kept.map((k) => k.line).join('\n') + '\n');

  // validate on the records a relation can show, mapped to rules.
  const report = JSON.parse(sluice(bin, ['validate', '--contract', contract, file, '--format', 'json', '-q',
    '--quarantine', '/dev/null'], [0, 1]));
  const expected = new Map(Object.entries(c.expected_extra));
  for (const v of report.violations) {
    const rule = KIND_RULE[v.kind];
    if (rule === undefined) {
      if (v.kind !== 'new_column') problems.push(`validate kind ${v.kind} (${v.path}) has no rule`);
      continue;
    }
    expected.set(key(rule, v.path), (expected.get(key(rule, v.path)) ?? 0) + v.count);
  }

  // The raw relation: every key of the records as a VARCHAR column.
  const columns = [];
  for (const { rec } of kept) for (const k of Object.keys(rec)) if (!columns.includes(k)) columns.push(k);
  const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;
  const spec = columns.map((k) => `${sqlString(k)}: 'VARCHAR'`).join(', ');
  await conn.run(`CREATE OR REPLACE VIEW ${c.relation} AS SELECT * FROM read_json(${sqlString(file)}, ` +
    `format = 'newline_delimited', columns = {${spec}})`);
  const ddl = join(dir, `${c.relation}.ddl`);
  writeFileSync(ddl, columns.map((k) => `\`${k.replaceAll('`', '``')}\` STRING`).join(', ') + '\n');

  const query = join(dir, `${c.relation}.sql`);
  sluice(bin, ['sqlgen', 'check', '--contract', contract, '--relation', c.relation, '--dialect', 'duckdb',
    '--schema', ddl, '-o', query, '-q'], [0, 1]);
  const result = await conn.runAndReadAll(
    `SELECT rule, column_path, CAST(violations AS VARCHAR), to_json(sample_values)::VARCHAR FROM (` +
    `${readFileSync(query, 'utf8').replace(/;\s*$/, '')})`);
  const actual = new Map();
  const values = new Map();  // column -> the texts its records hold
  for (const { rec } of kept) {
    for (const [k, v] of Object.entries(rec)) {
      if (!values.has(k)) values.set(k, new Set());
      if (v !== null) values.get(k).add(typeof v === 'string' ? v : JSON.stringify(v));
    }
  }
  for (const [rule, column, count, samples] of result.getRows().map((r) => r.map(String))) {
    actual.set(key(rule, column), Number(count));
    const list = JSON.parse(samples);
    if (list.length > 5) problems.push(`${rule} ${column}: ${list.length} samples, at most 5`);
    if (rule !== 'not_null' && rule !== 'unique' && list.length !== Math.min(5, Number(count))) {
      // Samples are distinct; a rule broken by one repeated value has fewer samples than rows.
      const distinct = list.length > 0 && list.length <= Number(count);
      if (!distinct) problems.push(`${rule} ${column}: samples ${samples} for ${count} violations`);
    }
    for (const s of list) {
      if (rule !== 'not_null' && !values.get(column)?.has(s)) {
        // DuckDB writes a number read into VARCHAR as its own text; compare numerically too.
        const numeric = [...(values.get(column) ?? [])].some((t) => Number(t) === Number(s) && s !== '');
        if (!numeric) problems.push(`${rule} ${column}: sample ${JSON.stringify(s)} is no value of the column`);
      }
    }
  }
  for (const k of new Set([...expected.keys(), ...actual.keys()])) {
    const want = expected.get(k) ?? 0;
    const got = actual.get(k) ?? 0;
    if (want !== got) problems.push(`${k}: expected ${want}, the SQL says ${got}`);
  }
  // Without --schema the relation is taken as strings holding every contract column: the same
  // rows, less unknown_column, which needs the relation's columns.
  const bare = join(dir, `${c.relation}-bare.sql`);
  sluice(bin, ['sqlgen', 'check', '--contract', contract, '--relation', c.relation, '--dialect', 'duckdb',
    '-o', bare, '-q'], [0]);
  const bareRows = (await conn.runAndReadAll(readFileSync(bare, 'utf8'))).getRows().map((r) => r.map(String));
  const withSchema = [...actual].filter(([k]) => !k.startsWith('unknown_column ')).map(([k, n]) => `${k}=${n}`);
  const withoutSchema = bareRows.map(([rule, column, count]) => `${rule} ${column}=${count}`);
  if (JSON.stringify(withSchema) !== JSON.stringify(withoutSchema)) {
    problems.push(`without --schema: ${withoutSchema.join(', ')}; with: ${withSchema.join(', ')}`);
  }
  problems.push(...await checkDbt(conn, bin, contract, c, ddl, dir, actual));
  const summary = [...actual].map(([k, n]) => `${k}=${n}`).join(', ');
  return { problems, note: `${kept.length} records compared, ${malformed} malformed and ${blind} ` +
    `a string relation cannot show left out; ${summary}` };
}

// The dbt-duckdb tests of the same case: each singular test, its ref() pointed at the view, must
// select as many rows as the query counts for its rule, and schema.yml must carry the generic
// tests of the rules the query found broken.
async function checkDbt(conn, bin, contract, c, ddl, dir, actual) {
  const problems = [];
  const out = mkdtempSync(join(dir, `dbt-${c.relation}-`));
  sluice(bin, ['sqlgen', 'check', '--contract', contract, '--relation', c.relation, '--dialect',
    'dbt-duckdb', '--schema', ddl, '-o', out, '-q'], [0, 1]);
  const yml = readFileSync(join(out, 'models/schema.yml'), 'utf8');
  const generic = { not_null: '- not_null', unique: '- unique', enum: '- accepted_values:' };
  for (const [k] of actual) {
    const [rule, ...rest] = k.split(' ');
    const column = rest.join(' ');
    if (generic[rule] === undefined) continue;
    const entry = yml.split('      - name: ').find((e) => e.startsWith(JSON.stringify(column)));
    if (entry === undefined || !entry.includes(generic[rule])) {
      problems.push(`dbt: schema.yml has no ${rule} test on ${column}`);
    }
  }
  const tests = readdirSync(join(out, 'tests'));
  for (const t of tests) {
    const sql = readFileSync(join(out, 'tests', t), 'utf8');
    const m = /^-- (\w+) of (.+), from the data contract/.exec(sql);
    if (m === null) {
      problems.push(`dbt: ${t} has no header`);
      continue;
    }
    const runnable = sql.replace(/\{\{ ref\('([^']+)'\) \}\}/g, '$1');
    const rows = (await conn.runAndReadAll(runnable)).getRows().length;
    const want = actual.get(key(m[1], m[2])) ?? 0;
    if (rows !== want) problems.push(`dbt: ${t} selects ${rows} rows, the query counts ${want}`);
  }
  return problems;
}

async function main() {
  const { sluice: bin, source } = args();
  const duck = await loadDuckdb();
  if (duck === null) {
    process.stdout.write('sqlcheck_e2e: @duckdb/node-api not found (npm ci in tests/parquet); skipped\n');
    process.exit(77);
  }
  const cases = JSON.parse(readFileSync(join(source, 'tests/sqlcheck/cases.json'), 'utf8')).cases;
  const conn = await (await duck.DuckDBInstance.create(':memory:')).connect();
  const dir = mkdtempSync(join(tmpdir(), 'sqlcheck-'));
  let failed = 0;
  try {
    for (const c of cases) {
      const { problems, note } = await runCase(duck, conn, bin, source, c, dir);
      const name = `${c.contract} on ${c.data}`;
      if (problems.length === 0) {
        process.stdout.write(`ok   ${name}: ${note}\n`);
      } else {
        failed++;
        process.stdout.write(`FAIL ${name}:\n  ${problems.join('\n  ')}\n`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  process.stdout.write(`${cases.length - failed} of ${cases.length} cases agree\n`);
  process.exit(failed === 0 ? 0 : 1);
}

main().catch((e) => {
  process.stderr.write(`sqlcheck_e2e: ${e.stack ?? e}\n`);
  process.exit(1);
});
