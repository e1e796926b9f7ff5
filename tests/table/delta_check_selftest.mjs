#!/usr/bin/env node
// Proves delta_check.mjs can fail: copies Delta golden tables into a temporary directory, breaks
// each copy in one way (a missing version, a torn last line, a wrong size, a second metaData, ...)
// and asserts the checker exits 1 naming the rule that breaks; the unbroken copies must pass.
//
//   node tests/table/delta_check_selftest.mjs GOLDEN_DIR
//
// GOLDEN_DIR holds the golden tables (basic-decimal-table, checkpoint, type-widening, ...).
// Prints one line a case and `selftest: N passed, N failed`; exit 0 when every case holds, 1
// otherwise, 2 for usage.

import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, unlinkSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const checker = join(here, 'delta_check.mjs');
const golden = process.argv[2];
if (!golden || !existsSync(join(golden, 'type-widening'))) {
  process.stderr.write('usage: delta_check_selftest.mjs GOLDEN_DIR (the directory of the Delta golden tables)\n');
  process.exit(2);
}
const work = mkdtempSync(join(tmpdir(), 'delta-check-selftest-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));

let n = 0;
function copy(table) {
  const dir = join(work, `${n++}-${table}`);
  cpSync(join(golden, table), dir, { recursive: true });
  return dir;
}
const logFile = (dir, v) => join(dir, '_delta_log', `${String(v).padStart(20, '0')}.json`);
const editText = (file, fn) => writeFileSync(file, fn(readFileSync(file, 'utf8')));
// Edits a commit's actions as objects, one per line.
function editActions(dir, v, fn) {
  editText(logFile(dir, v), (text) => {
    const actions = text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    return fn(actions).map((a) => JSON.stringify(a)).join('\n') + '\n';
  });
}
const firstAdd = (actions) => actions.find((a) => a.add).add;
const dataFile = (dir, add) => join(dir, decodeURIComponent(add.path));

function run(dir, args = []) {
  const r = spawnSync(process.execPath, [checker, ...args, dir], { encoding: 'utf8' });
  let out = null;
  try {
    out = JSON.parse(r.stdout);
  } catch {
    // reported below
  }
  return { code: r.status, out, stderr: r.stderr };
}

let passed = 0, failed = 0;
function report(ok, name, detail) {
  if (ok) passed++;
  else failed++;
  process.stdout.write(`${ok ? 'ok  ' : 'FAIL'}  ${name}${ok ? '' : `\n      ${detail}`}\n`);
}
function expectPass(name, dir, args = []) {
  const r = run(dir, args);
  report(r.code === 0 && r.out && r.out.findings.length === 0, name, `exit ${r.code}: ${r.stderr.trim()}`);
  return r;
}
// The checker must exit 1 and report `rule` (with `text` in its message, when given).
function expectRule(name, dir, rule, { args = [], text = null } = {}) {
  const r = run(dir, args);
  const hit = r.out?.findings.some((x) => x.rule === rule && (text === null || x.message.includes(text)));
  report(r.code === 1 && hit, name, `wanted ${rule}${text ? ` (${text})` : ''}, got exit ${r.code}: ${r.stderr.trim() || '(no findings)'}`);
}

async function duckdb() {
  for (const base of [import.meta.url, new URL('../parquet/package.json', import.meta.url)]) {
    try {
      return await import(pathToFileURL(createRequire(base).resolve('@duckdb/node-api')).href);
    } catch {
      // try the next place
    }
  }
  throw new Error('@duckdb/node-api not found');
}
const sql = (s) => `'${s.replaceAll("'", "''")}'`;

async function main() {
  const duck = await duckdb();
  const conn = await (await duck.DuckDBInstance.create(':memory:')).connect();

  // Unbroken copies pass, and the summary counts what the tables hold.
  let r = expectPass('clean type-widening', copy('type-widening'));
  report(r.out?.version === 2 && r.out?.rows === 2 && r.out?.live_files === 2, 'type-widening summary: version 2, 2 files, 2 rows', JSON.stringify(r.out));
  r = expectPass('clean basic-decimal-table', copy('basic-decimal-table'));
  report(r.out?.rows === 4 && r.out?.live_files === 4, 'basic-decimal-table summary: 4 files, 4 rows', JSON.stringify(r.out));
  expectPass('clean table-with-columnmapping-mode-name', copy('table-with-columnmapping-mode-name'));
  r = expectPass('clean checkpoint (--log-only)', copy('checkpoint'), ['--log-only', '--files']);
  report(r.out?.start === 10 && JSON.stringify(r.out?.files) === '["15"]', 'checkpoint: replay from checkpoint 10 leaves file 15', JSON.stringify(r.out));
  r = expectPass('checkpoint --version 4', copy('checkpoint'), ['--log-only', '--files', '--version', '4']);
  report(r.out?.start === 0 && JSON.stringify(r.out?.files) === '["5"]', 'checkpoint at version 4 leaves file 5', JSON.stringify(r.out));

  // The log's files.
  let d = copy('type-widening');
  unlinkSync(logFile(d, 1));
  expectRule('missing version file (1 of 0..2)', d, 'missing_version', { text: 'version 1' });
  d = copy('time-travel-schema-changes-b');
  unlinkSync(logFile(d, 0));
  expectRule('missing version 0', d, 'missing_version', { text: 'version 0' });
  d = copy('type-widening');
  editText(logFile(d, 2), (t) => t.slice(0, t.length - 40));
  expectRule('torn last line', d, 'bad_json', { text: 'torn' });
  d = copy('type-widening');
  editText(logFile(d, 0), (t) => t.replace('\n', '\n\n'));
  expectRule('empty line inside a commit', d, 'empty_line');
  d = copy('type-widening');
  editActions(d, 2, (a) => [{ ...a[0], txn: { appId: 'x', version: 1 } }, ...a.slice(1)]);
  expectRule('two actions on one line', d, 'not_one_action');
  d = copy('type-widening');
  editActions(d, 2, (a) => [...a, { fileAction: {} }]);
  expectRule('unknown action', d, 'unknown_action');
  d = copy('type-widening');
  editActions(d, 0, (a) => [...a, a.find((x) => x.metaData)]);
  expectRule('duplicate metaData in one commit', d, 'duplicate_metadata');
  d = copy('type-widening');
  editActions(d, 1, (a) => [...a, { protocol: { minReaderVersion: 1, minWriterVersion: 2 } }]);
  expectRule('duplicate protocol in one commit', d, 'duplicate_protocol');
  d = copy('time-travel-schema-changes-b');
  editActions(d, 0, (a) => a.filter((x) => !x.protocol));
  expectRule('version 0 without protocol', d, 'first_commit_incomplete');

  // protocol and metaData.
  d = copy('type-widening');
  editActions(d, 1, (a) => a.map((x) => (x.protocol ? { protocol: { ...x.protocol, minReaderVersion: 2 } } : x)));
  expectRule('readerFeatures with minReaderVersion 2', d, 'protocol', { text: 'readerFeatures with minReaderVersion 2' });
  d = copy('type-widening');
  editActions(d, 1, (a) => a.map((x) => (x.protocol ? { protocol: { ...x.protocol, writerFeatures: ['appendOnly'] } } : x)));
  expectRule('reader feature missing from writerFeatures', d, 'protocol', { text: 'not also a writer feature' });
  d = copy('type-widening');
  editActions(d, 1, (a) => a.map((x) => (x.protocol ? { protocol: { ...x.protocol, readerFeatures: ['typeWidening-preview'] } } : x)));
  expectRule('timestamp_ntz column without the timestampNtz feature', d, 'feature_missing', { text: 'timestampNtz' });
  d = copy('basic-decimal-table');
  editActions(d, 0, (a) => a.map((x) => (x.metaData ? { metaData: { ...x.metaData, format: { provider: 'orc' } } } : x)));
  expectRule('format.provider not parquet', d, 'metadata', { text: 'provider' });
  d = copy('basic-decimal-table');
  editActions(d, 0, (a) => a.map((x) => (x.metaData ? { metaData: { ...x.metaData, schemaString: '{"type":"struct","fields":[{"name":"part","type":"decimal(40,5)","nullable":true}]}' } } : x)));
  expectRule('schemaString with an invalid decimal', d, 'schema', { text: 'decimal' });
  d = copy('basic-decimal-table');
  editActions(d, 0, (a) => a.map((x) => (x.metaData ? { metaData: { ...x.metaData, partitionColumns: ['nope'] } } : x)));
  expectRule('partition column not a top-level column', d, 'partition_columns');
  d = copy('basic-decimal-table');
  editActions(d, 0, (a) => a.map((x) => (x.metaData ? { metaData: { ...x.metaData, configuration: { 'delta.appendOnly': true } } } : x)));
  expectRule('configuration value not a string', d, 'configuration');
  d = copy('table-with-columnmapping-mode-name');
  editActions(d, 0, (a) => a.map((x) => (x.metaData ? { metaData: { ...x.metaData, schemaString: x.metaData.schemaString.replace(',"delta.columnMapping.physicalName":"col-33314a5e-7dc1-438a-8f4d-df8c417071d6"', '') } } : x)));
  expectRule('column mapping field without a physical name', d, 'column_mapping', { text: 'ByteType' });

  // add, remove, commitInfo.
  d = copy('basic-decimal-table');
  editActions(d, 0, (a) => a.map((x) => (x.add ? { add: { ...x.add, partitionValues: {} } } : x)));
  expectRule('partitionValues without the partition column', d, 'partition_values', { text: 'no part' });
  d = copy('basic-decimal-table');
  editActions(d, 0, (a) => [...a, a.find((x) => x.add)]);
  expectRule('the same file added twice in a commit', d, 'duplicate_add');
  d = copy('basic-decimal-table');
  editActions(d, 0, (a) => a.map((x) => (x.add ? { add: { ...x.add, stats: '{"minValues":{}}' } } : x)));
  expectRule('stats without numRecords', d, 'stats', { text: 'numRecords' });
  d = copy('type-widening');
  editActions(d, 2, (a) => a.map((x) => (x.commitInfo ? { commitInfo: { timestamp: x.commitInfo.timestamp } } : x)));
  expectRule('commitInfo without operation', d, 'commit_info', { text: 'operation' });
  d = copy('checkpoint');
  editActions(d, 12, (a) => a.map((x) => (x.remove ? { remove: { path: x.remove.path } } : x)));
  expectRule('remove without dataChange', d, 'remove', { args: ['--log-only'], text: 'dataChange' });

  // Data files against the log.
  d = copy('basic-decimal-table');
  editActions(d, 0, (a) => a.map((x) => (x.add ? { add: { ...x.add, size: x.add.size + 1 } } : x)));
  expectRule('wrong size in the log', d, 'size_mismatch');
  d = copy('basic-decimal-table');
  editActions(d, 0, (a) => a.map((x) => (x.add ? { add: { ...x.add, stats: x.add.stats.replace('"numRecords":1', '"numRecords":2') } } : x)));
  expectRule('numRecords that is not the file\'s row count', d, 'row_count');
  d = copy('basic-decimal-table');
  unlinkSync(dataFile(d, firstAdd(JSON.parse(`[${readFileSync(logFile(d, 0), 'utf8').trim().split('\n').join(',')}]`))));
  expectRule('live file missing', d, 'missing_file');
  d = copy('type-widening');
  {
    const actions = readFileSync(logFile(d, 0), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const file = dataFile(d, firstAdd(actions));
    const bytes = readFileSync(file);
    bytes.fill(0, bytes.length - 8); // footer length and magic gone, size kept
    writeFileSync(file, bytes);
  }
  expectRule('a live file that is not Parquet', d, 'read_failed');
  d = copy('table-with-columnmapping-mode-name');
  {
    // A file written with the logical names instead of the physical ones.
    let add;
    editActions(d, 0, (a) => a.map((x) => {
      if (x.add && !add) {
        add = x.add;
        return { add: { ...x.add, stats: '{"numRecords":1}' } };
      }
      return x;
    }));
    const file = dataFile(d, add);
    unlinkSync(file);
    await conn.run(`COPY (SELECT 1::TINYINT AS "ByteType", 2::SMALLINT AS "ShortType") TO ${sql(file)} (FORMAT parquet)`);
    const size = statSync(file).size;
    editActions(d, 0, (a) => a.map((x) => (x.add && x.add.path === add.path ? { add: { ...x.add, size } } : x)));
  }
  expectRule('column mapping file with logical names', d, 'logical_name_in_file', { text: 'ByteType' });
  d = copy('time-travel-schema-changes-b');
  {
    const actions = readFileSync(logFile(d, 0), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const add = firstAdd(actions);
    const file = dataFile(d, add);
    unlinkSync(file);
    await conn.run(`COPY (SELECT 1::BIGINT AS id, 'x' AS bogus) TO ${sql(file)} (FORMAT parquet)`);
    const size = statSync(file).size;
    editActions(d, 0, (a) => a.map((x) => (x.add && x.add.path === add.path ? { add: { ...x.add, size } } : x)));
  }
  expectRule('a file column the schema does not have', d, 'unknown_column', { text: 'bogus' });

  // Checkpoints.
  d = copy('checkpoint');
  unlinkSync(logFile(d, 11));
  expectRule('missing version after the checkpoint', d, 'missing_version', { args: ['--log-only'], text: 'version 11' });
  d = copy('checkpoint');
  unlinkSync(logFile(d, 4));
  expectRule('gap before the checkpoint', d, 'missing_version', { args: ['--log-only'], text: 'version 4' });
  d = copy('checkpoint');
  unlinkSync(join(d, '_delta_log', '00000000000000000010.checkpoint.parquet'));
  expectRule('the checkpoint _last_checkpoint names is missing', d, 'missing_checkpoint', { args: ['--log-only'] });
  d = copy('checkpoint');
  editText(join(d, '_delta_log', '_last_checkpoint'), (t) => t.replace('"size":13', '"size":12'));
  expectRule('_last_checkpoint size wrong', d, 'last_checkpoint', { args: ['--log-only'], text: 'size 12' });
  d = copy('checkpoint');
  editText(join(d, '_delta_log', '_last_checkpoint'), (t) => t.slice(0, 20));
  expectRule('_last_checkpoint torn', d, 'last_checkpoint', { args: ['--log-only'] });
  d = copy('checkpoint');
  {
    // A checkpoint whose live file is not the one the commits leave.
    const cp = join(d, '_delta_log', '00000000000000000010.checkpoint.parquet');
    const tmp = join(d, 'cp.parquet');
    await conn.run(`COPY (SELECT * REPLACE (CASE WHEN add IS NULL THEN NULL ELSE struct_update(add, path := '99') END AS add) FROM read_parquet(${sql(cp)})) TO ${sql(tmp)} (FORMAT parquet)`);
    unlinkSync(cp);
    cpSync(tmp, cp);
    unlinkSync(tmp);
  }
  expectRule('checkpoint differs from the commits before it', d, 'checkpoint_mismatch', { args: ['--log-only'], text: '99' });

  // Usage.
  const u = spawnSync(process.execPath, [checker], { encoding: 'utf8' });
  report(u.status === 2, 'no TABLE: exit 2', `exit ${u.status}`);
  const w = spawnSync(process.execPath, [checker, join(work, 'nothing-here')], { encoding: 'utf8' });
  report(w.status === 2, 'TABLE not a directory: exit 2', `exit ${w.status}`);
  const e = spawnSync(process.execPath, [checker, work], { encoding: 'utf8' });
  report(e.status === 1 && e.stdout.includes('no_log'), 'a directory without _delta_log: no_log', `exit ${e.status}`);

  process.stdout.write(`selftest: ${passed} passed, ${failed} failed\n`);
  return failed ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`selftest: ${err.stack}\n`);
    process.exitCode = 2;
  },
);
