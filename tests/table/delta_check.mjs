#!/usr/bin/env node
// An independent checker of a Delta Lake table: its log against the rules of the Delta protocol
// (PROTOCOL.md of delta-io/delta), and its live data files against the log, read by DuckDB. It
// knows nothing of sluice, so a table sluice writes can be held against it. The rules of the log's
// actions and their replay are in delta_log.mjs; this file lists the log, reads checkpoints and data
// files with DuckDB and prints the summary.
//
//   node tests/table/delta_check.mjs [--log-only] [--version N] [--files] TABLE
//
// Prints one JSON object on standard output:
//   {"table", "version", "start", "commits", "live_files", "rows", "physical_rows",
//    "protocol", "files" (with --files), "notes": [...], "findings": [{"rule", "where", "message"}]}
// and each finding on standard error. Exit 0 when nothing was found, 1 with findings, 2 for usage
// errors (bad arguments, TABLE is not a directory, DuckDB not installed when it is needed).
//
// What is checked (the rule names appear in findings):
//   log           version files contiguous from 0, or from the checkpoint _last_checkpoint names
//                 (missing_version); commits are UTF-8, one JSON object per line with exactly one
//                 known action (bad_json, empty_line, not_one_action, unknown_action, empty_commit);
//                 at most one metaData and one protocol a commit (duplicate_metadata,
//                 duplicate_protocol); version 0 holds both (first_commit_incomplete).
//   protocol      minReaderVersion 1..3, minWriterVersion 1..7; readerFeatures present iff reader 3,
//                 writerFeatures iff writer 7; reader 3 needs writer 7; every reader feature is a
//                 writer feature (protocol).
//   metaData      id, format.provider "parquet", schemaString a Spark StructType JSON (field names
//                 unique regardless of case at each level), partitionColumns top-level columns,
//                 configuration values strings (metadata, schema, partition_columns,
//                 configuration); column mapping name/id: every field has a physical name and a
//                 unique id no larger than delta.columnMapping.maxColumnId (column_mapping).
//   features      column mapping, timestamp_ntz columns, delta.typeChanges and deletion vectors
//                 need their table feature (or legacy protocol versions) (feature_missing).
//   add           path unique per commit (with its deletion vector), partitionValues keyed by
//                 exactly the partition columns (physical names under column mapping), size > 0,
//                 modificationTime, dataChange, stats a JSON string with numRecords, deletion
//                 vector fields (add, duplicate_add, partition_values, stats).
//   remove, txn, commitInfo (timestamp, operation; first with inCommitTimestamp when in-commit
//                 timestamps are on), cdc, domainMetadata: their required fields.
//   checkpoint    _last_checkpoint parses and names an existing classic checkpoint whose actions
//                 (read by DuckDB) pass the same rules, hold one protocol and one metaData, and
//                 count `size` actions and `numOfAddFiles` adds; when the commits before it are
//                 present, replaying them gives the same protocol, metaData and live files
//                 (last_checkpoint, missing_checkpoint, checkpoint, checkpoint_mismatch).
//   replay        last protocol and metaData win; adds and removes keyed by path and deletion
//                 vector id; the table has a protocol and a metaData (no_protocol, no_metadata).
//   data files    (not with --log-only) each live file exists (missing_file), has the logged
//                 size (size_mismatch), is read whole by DuckDB's read_parquet (read_failed) with
//                 stats.numRecords rows (row_count); its columns are schema columns
//                 (unknown_column), and under column mapping physical names, not logical ones
//                 (logical_name_in_file, no_physical_columns).
// "rows" is the live row count: the sum of numRecords (DuckDB's count where stats are absent)
// less deletion-vector cardinalities. Deletion-vector files, V2 checkpoints and sidecars are not
// read; a note says so when the table has them.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import {
  ACTIONS, Findings, MULTI_CP_RE, State, applyVersion, compareStates, isInt, isObj, listLog,
  physicalName, readCommit,
} from './delta_log.mjs';

const USAGE = 'usage: delta_check.mjs [--log-only] [--version N] [--files] TABLE';

// ---- DuckDB -------------------------------------------------------------------------------------

async function loadDuckdb() {
  // NODE_PATH first (CommonJS resolution honours it), then tests/parquet's node_modules.
  for (const base of [import.meta.url, new URL('../parquet/package.json', import.meta.url)]) {
    try {
      const resolved = createRequire(base).resolve('@duckdb/node-api');
      return await import(pathToFileURL(resolved).href);
    } catch {
      // try the next place
    }
  }
  return null;
}

const sqlString = (s) => `'${s.replaceAll("'", "''")}'`;

// DuckDB treats these as glob characters in read_parquet's path.
const GLOB_CHARS = /[*?[\]{}]/;

// Reads a whole Parquet file; returns {rows, columns, types}.
async function duckRead(conn, path) {
  const result = await conn.stream(`SELECT * FROM read_parquet(${sqlString(path)}, hive_partitioning = false)`);
  const columns = result.columnNames();
  const types = result.columnTypes();
  let rows = 0;
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    rows += chunk.rowCount;
  }
  return { rows, columns, types };
}

// Drops nulls the way the JSON form omits absent fields; partitionValues keeps its null values.
function stripNulls(v, keepNulls = false) {
  if (Array.isArray(v)) return v.map((x) => stripNulls(x));
  if (!isObj(v)) return v;
  const o = {};
  for (const [k, x] of Object.entries(v)) {
    if (x === null && !keepNulls) continue;
    o[k] = stripNulls(x, k === 'partitionValues');
  }
  return o;
}

// A classic checkpoint's actions, through DuckDB's to_json (maps become objects).
async function readCheckpoint(conn, files) {
  const list = `[${files.map(sqlString).join(', ')}]`;
  const reader = await conn.runAndReadAll(`SELECT to_json(COLUMNS(*)) FROM read_parquet(${list}, hive_partitioning = false, union_by_name = true)`);
  const names = reader.columnNames();
  const actions = [];
  reader.getRows().forEach((row, i) => {
    const present = [];
    row.forEach((cell, j) => {
      if (cell !== null && cell !== undefined && cell !== 'null') present.push([names[j], cell]);
    });
    actions.push({ row: i + 1, present });
  });
  return actions;
}

// ---- data files ---------------------------------------------------------------------------------

function resolveDataPath(root, p, f, where) {
  let decoded;
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(p)) {
    let url;
    try {
      url = new URL(p);
    } catch (e) {
      f.add('add', where, `path ${p} is not a URI: ${e.message}`);
      return null;
    }
    if (url.protocol !== 'file:') return { unsupported: url.protocol };
    return { path: fileURLToPath(url) };
  }
  try {
    decoded = decodeURIComponent(p);
  } catch (e) {
    f.add('add', where, `path ${p} is not URI-encoded: ${e.message}`);
    return null;
  }
  return { path: isAbsolute(decoded) ? decoded : join(root, decoded) };
}

// The file's struct layout against the schema: names physical under column mapping.
function checkColumns(typeId, fileNames, fileTypes, schemaStruct, cm, path, f, where) {
  const fields = (schemaStruct?.fields || []).filter(isObj);
  const byPhysical = new Map(fields.map((x) => [physicalName(x, cm), x]));
  const logicalOnly = new Set(fields.filter((x) => physicalName(x, cm) !== x.name).map((x) => x.name));
  let matched = 0;
  fileNames.forEach((name, i) => {
    const field = byPhysical.get(name);
    const p = path ? `${path}.${name}` : name;
    if (!field) {
      if (logicalOnly.has(name)) f.add('logical_name_in_file', where, `column ${p} is a logical name; under column mapping the file holds physical names`);
      else if (!cm) f.add('unknown_column', where, `column ${p} is not in the table's schema`);
      return;
    }
    matched++;
    descend(typeId, fileTypes[i], field.type, cm, p, f, where);
  });
  if (cm && fileNames.length > 0 && fields.length > 0 && matched === 0 && path === '') {
    f.add('no_physical_columns', where, 'none of the file\'s columns is a physical name of the schema');
  }
}

function descend(typeId, fileType, schemaType, cm, path, f, where) {
  if (!fileType || !isObj(schemaType)) return;
  if (fileType.typeId === typeId.STRUCT && schemaType.type === 'struct') {
    checkColumns(typeId, fileType.entryNames, fileType.entryTypes, schemaType, cm, path, f, where);
  } else if (fileType.typeId === typeId.LIST && schemaType.type === 'array') {
    descend(typeId, fileType.valueType, schemaType.elementType, cm, `${path}[]`, f, where);
  } else if (fileType.typeId === typeId.MAP && schemaType.type === 'map') {
    descend(typeId, fileType.keyType, schemaType.keyType, cm, `${path}.key`, f, where);
    descend(typeId, fileType.valueType, schemaType.valueType, cm, `${path}.value`, f, where);
  }
}

// ---- main ---------------------------------------------------------------------------------------

function parseArgs(argv) {
  const o = { logOnly: false, version: null, files: false, table: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--log-only') o.logOnly = true;
    else if (a === '--files') o.files = true;
    else if (a === '--version') {
      const v = argv[++i];
      if (v === undefined || !/^\d+$/.test(v)) throw new Error('--version takes a non-negative integer');
      o.version = Number(v);
    } else if (a === '-h' || a === '--help') {
      o.help = true;
    } else if (a.startsWith('-')) throw new Error(`unknown option ${a}`);
    else if (o.table === null) o.table = a;
    else throw new Error(`one TABLE only, got ${o.table} and ${a}`);
  }
  if (!o.help && o.table === null) throw new Error('TABLE is required');
  return o;
}

// The checkpoint the replay starts from ({version, files} or null) and the version checked.
function chooseStart(log, logDir, opts, f, notes) {
  const versions = [...log.commits.keys()].sort((x, y) => x - y);
  let latest = versions.length ? versions[versions.length - 1] : -1;
  let lastCp = null;
  const lastCpPath = join(logDir, '_last_checkpoint');
  if (existsSync(lastCpPath)) {
    try {
      lastCp = JSON.parse(readFileSync(lastCpPath, 'utf8'));
      if (!isObj(lastCp) || !isInt(lastCp.version) || lastCp.version < 0) throw new Error('no non-negative integer version');
      if (!isInt(lastCp.size)) throw new Error('no integer size');
    } catch (e) {
      f.add('last_checkpoint', '_last_checkpoint', `not a valid _last_checkpoint: ${e.message}`);
      lastCp = null;
    }
  }
  // A checkpoint's files: the classic one, or a complete multi-part set.
  const cpFiles = (v) => {
    if (log.classic.has(v)) return [log.classic.get(v)];
    const parts = log.multi.get(v);
    if (!parts) return null;
    const total = Number(MULTI_CP_RE.exec(parts[0])[3]);
    return parts.length === total ? [...parts].sort() : null;
  };
  let cp = null;
  if (lastCp) {
    const v = lastCp.version;
    const files = cpFiles(v);
    if (files) {
      if (isInt(lastCp.parts) && lastCp.parts !== files.length) f.add('last_checkpoint', '_last_checkpoint', `parts ${lastCp.parts}, the checkpoint has ${files.length}`);
      cp = { version: v, files };
    } else if (log.v2.has(v)) {
      notes.push(`the checkpoint at version ${v} is a V2 checkpoint, not read`);
    } else {
      f.add('missing_checkpoint', '_last_checkpoint', `names version ${v}, whose checkpoint file is missing or incomplete`);
    }
    if (v > latest) {
      if (cp) latest = v;
      else f.add('missing_version', '_last_checkpoint', `names version ${v}, past the newest commit ${latest}`);
    }
  }
  if (opts.version !== null) {
    if (opts.version > latest) {
      f.add('missing_version', `version ${opts.version}`, `asked for version ${opts.version}, the newest is ${latest}`);
      return null;
    }
    latest = opts.version;
    if (cp && cp.version > latest) cp = null;
  }
  // Without a usable _last_checkpoint, the newest checkpoint at or before the version asked for,
  // as readers that list the log find it.
  if (!cp) {
    const found = [...new Set([...log.classic.keys(), ...log.multi.keys()])]
      .filter((v) => v <= latest && cpFiles(v))
      .sort((x, y) => y - x);
    if (found.length) {
      cp = { version: found[0], files: cpFiles(found[0]) };
      notes.push(`replay from checkpoint ${found[0]}, found by listing the log`);
    }
  }
  return { cp, lastCp, latest, versions };
}

// Every version after the start is there; before the start, what is left leads up to it.
function checkContiguity(log, { cp, latest, versions }, f) {
  const name = (v) => `${String(v).padStart(20, '0')}.json`;
  const start = cp ? cp.version + 1 : 0;
  for (let v = start; v <= latest; v++) {
    if (!log.commits.has(v)) f.add('missing_version', name(v), `version ${v} is missing (versions run ${cp ? `from checkpoint ${cp.version}` : 'from 0'} to ${latest})`);
  }
  if (latest < 0) f.add('missing_version', '_delta_log', 'no commit files');
  const early = versions.filter((v) => v < start);
  for (let i = 1; i < early.length; i++) {
    if (early[i] !== early[i - 1] + 1) f.add('missing_version', name(early[i - 1] + 1), `version ${early[i - 1] + 1} is missing before checkpoint ${cp.version}`);
  }
}

// The checkpoint's actions applied to `state`, checked against _last_checkpoint and, when every
// commit up to it is there, against their replay. False when DuckDB cannot read it.
async function applyCheckpoint(state, conn, logDir, log, { cp, lastCp }, commitsRead, f, notes) {
  const cpWhere = cp.files.join(',');
  const actions = [];
  try {
    const rows = await readCheckpoint(conn, cp.files.map((x) => join(logDir, x)));
    for (const { row, present } of rows) {
      const where = `${cp.files[0]}:row ${row}`;
      if (present.length !== 1) {
        f.add('checkpoint', where, `a checkpoint row holds one action, this one ${present.length}`);
        continue;
      }
      const [kind, json] = present[0];
      if (!ACTIONS.has(kind)) {
        f.add('checkpoint', where, `unknown action column ${kind}`);
        continue;
      }
      actions.push({ kind, body: stripNulls(JSON.parse(json)), where });
    }
  } catch (e) {
    f.add('checkpoint', cpWhere, `DuckDB cannot read the checkpoint: ${e.message}`);
    return false;
  }
  applyVersion(state, cp.version, actions, f, cpWhere, true);
  const nAdds = actions.filter((a) => a.kind === 'add').length;
  if (lastCp && lastCp.version === cp.version) {
    if (lastCp.size !== actions.length) f.add('last_checkpoint', '_last_checkpoint', `size ${lastCp.size}, the checkpoint holds ${actions.length} actions`);
    if (lastCp.numOfAddFiles !== undefined && lastCp.numOfAddFiles !== nAdds) f.add('last_checkpoint', '_last_checkpoint', `numOfAddFiles ${lastCp.numOfAddFiles}, the checkpoint holds ${nAdds} adds`);
    if (lastCp.sizeInBytes !== undefined) {
      const bytes = cp.files.reduce((n, x) => n + statSync(join(logDir, x)).size, 0);
      if (lastCp.sizeInBytes !== bytes) f.add('last_checkpoint', '_last_checkpoint', `sizeInBytes ${lastCp.sizeInBytes}, the checkpoint has ${bytes} bytes`);
    }
  }
  for (let v = 0; v <= cp.version; v++) {
    if (!commitsRead.has(v)) {
      notes.push(`commits before checkpoint ${cp.version} are incomplete: the checkpoint is not compared with a replay`);
      return true;
    }
  }
  const replay = new State();
  const scratch = new Findings(); // the commits' own findings are reported once, by main
  for (let v = 0; v <= cp.version; v++) applyVersion(replay, v, commitsRead.get(v), scratch, log.commits.get(v), false);
  compareStates(replay, state, f, cpWhere);
  return true;
}

async function main() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`delta_check: ${e.message}\n${USAGE}\n`);
    return 2;
  }
  if (opts.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const root = opts.table;
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    process.stderr.write(`delta_check: ${root} is not a directory\n${USAGE}\n`);
    return 2;
  }
  const f = new Findings();
  const notes = [];
  const logDir = join(root, '_delta_log');
  const summary = { table: root, version: null, start: null, commits: 0, live_files: 0, rows: null, physical_rows: null };
  if (!existsSync(logDir) || !statSync(logDir).isDirectory()) {
    f.add('no_log', root, 'no _delta_log directory');
    return finish(summary, notes, f, null);
  }
  const log = listLog(logDir);
  if (log.v2.size > 0) notes.push('V2 checkpoints are present and not read');
  let duck = null, conn = null;
  if (!opts.logOnly || log.classic.size > 0 || log.multi.size > 0) {
    duck = await loadDuckdb();
    if (!duck) {
      process.stderr.write('delta_check: @duckdb/node-api not found (NODE_PATH or tests/parquet/node_modules)\n');
      return 2;
    }
    conn = await (await duck.DuckDBInstance.create(':memory:')).connect();
  }

  const start = chooseStart(log, logDir, opts, f, notes);
  if (!start) return finish(summary, notes, f, null);
  checkContiguity(log, start, f);
  // Every commit file up to the version checked passes the per-commit rules, those before the
  // checkpoint too (they are also replayed to be compared with it).
  const commitsRead = new Map();
  for (const v of start.versions) {
    if (v > start.latest) break;
    commitsRead.set(v, readCommit(join(logDir, log.commits.get(v)), log.commits.get(v), f));
  }
  summary.commits = commitsRead.size;

  const state = new State();
  let cp = start.cp;
  if (cp && !(await applyCheckpoint(state, conn, logDir, log, start, commitsRead, f, notes))) cp = null;
  const before = new State();
  for (const [v, actions] of commitsRead) {
    const target = cp && v <= cp.version ? before : state;
    applyVersion(target, v, actions, f, log.commits.get(v), false);
  }
  summary.start = cp ? cp.version : 0;
  summary.version = start.latest;
  if (!state.protocol) f.add('no_protocol', '_delta_log', 'no protocol action in the table');
  if (!state.metaData) f.add('no_metadata', '_delta_log', 'no metaData action in the table');
  if (state.protocol) {
    const keys = ['minReaderVersion', 'minWriterVersion', 'readerFeatures', 'writerFeatures'];
    summary.protocol = Object.fromEntries(keys.filter((k) => state.protocol[k] !== undefined).map((k) => [k, state.protocol[k]]));
  }
  if (state.meta?.cm) notes.push(`column mapping ${state.meta.configuration['delta.columnMapping.mode']}`);

  const live = [...state.live.values()];
  summary.live_files = live.length;
  await checkFiles(root, live, state, opts, conn, duck?.DuckDBTypeId, summary, notes, f);
  return finish(summary, notes, f, opts.files ? live.map((x) => x.add.path).sort() : null);
}

async function checkFiles(root, live, state, opts, conn, typeId, summary, notes, f) {
  let rows = 0, physical = 0, statsComplete = true, unsupported = 0, dvs = 0;
  for (const { add, stats } of live) {
    const where = add.path;
    const card = isObj(add.deletionVector) && isInt(add.deletionVector.cardinality) ? add.deletionVector.cardinality : 0;
    if (card) dvs++;
    let count = stats ? stats.numRecords : null;
    if (!opts.logOnly) {
      const resolved = resolveDataPath(root, add.path, f, where);
      if (!resolved) continue;
      if (resolved.unsupported) {
        unsupported++;
        continue;
      }
      const p = resolved.path;
      let st;
      try {
        st = statSync(p);
      } catch {
        f.add('missing_file', where, `the live file ${p} does not exist`);
        statsComplete = statsComplete && stats !== null;
        continue;
      }
      if (isInt(add.size) && st.size !== add.size) f.add('size_mismatch', where, `the log says ${add.size} bytes, the file has ${st.size}`);
      if (GLOB_CHARS.test(p)) {
        notes.push(`${add.path}: a path with glob characters is not read by DuckDB`);
      } else {
        try {
          const r = await duckRead(conn, p);
          if (stats && r.rows !== stats.numRecords) f.add('row_count', where, `stats.numRecords is ${stats.numRecords}, the file holds ${r.rows} rows`);
          if (count === null) count = r.rows;
          if (state.meta?.schema) {
            checkColumns(typeId, r.columns, r.types, state.meta.schema, state.meta.cm, '', f, where);
          }
        } catch (e) {
          f.add('read_failed', where, `DuckDB cannot read the file: ${e.message.split('\n')[0]}`);
        }
      }
    }
    if (count === null) statsComplete = false;
    else {
      physical += count;
      rows += count - card;
    }
  }
  if (unsupported) notes.push(`${unsupported} files on other file systems are not checked`);
  if (dvs) notes.push(`${dvs} files with deletion vectors: rows subtract their cardinality; the vectors are not read`);
  const withoutStats = live.filter((x) => !x.stats).length;
  if (withoutStats) notes.push(`${withoutStats} live files without stats${opts.logOnly ? '' : ': their rows are DuckDB\'s count'}`);
  summary.rows = statsComplete ? rows : null;
  summary.physical_rows = statsComplete ? physical : null;
}

function finish(summary, notes, f, files) {
  const out = { ...summary };
  if (files) out.files = files;
  out.notes = notes;
  out.findings = f.list;
  process.stdout.write(`${JSON.stringify(out, null, 1)}\n`);
  for (const x of f.list) process.stderr.write(`delta_check: ${x.rule}: ${x.where}: ${x.message}\n`);
  return f.list.length ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`delta_check: internal error: ${e.stack}\n`);
    process.exitCode = 2;
  },
);
