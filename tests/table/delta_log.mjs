// The rules of a Delta log, for delta_check.mjs: the actions of one commit or checkpoint checked
// against the Delta protocol (PROTOCOL.md of delta-io/delta) and replayed into a table state.
// Every function reports what breaks a rule to a Findings list and carries on.

import { readFileSync, readdirSync } from 'node:fs';

// ---- findings -----------------------------------------------------------------------------------

export class Findings {
  constructor() {
    this.list = [];
  }
  add(rule, where, message) {
    this.list.push({ rule, where, message });
  }
}

export const isInt = (v) => Number.isSafeInteger(v);
export const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isStr = (v) => typeof v === 'string';

// ---- the log's files ----------------------------------------------------------------------------

const COMMIT_RE = /^(\d{20})\.json$/;
const CLASSIC_CP_RE = /^(\d{20})\.checkpoint\.parquet$/;
export const MULTI_CP_RE = /^(\d{20})\.checkpoint\.(\d{10})\.(\d{10})\.parquet$/;
const V2_CP_RE = /^(\d{20})\.checkpoint\.[0-9a-fA-F-]{36}\.(json|parquet)$/;

export function listLog(logDir) {
  const commits = new Map(); // version -> file name
  const classic = new Map(); // version -> file name
  const multi = new Map(); // version -> [file names]
  const v2 = new Set();
  for (const name of readdirSync(logDir)) {
    let m;
    if ((m = COMMIT_RE.exec(name))) commits.set(Number(m[1]), name);
    else if ((m = CLASSIC_CP_RE.exec(name))) classic.set(Number(m[1]), name);
    else if ((m = MULTI_CP_RE.exec(name))) {
      const v = Number(m[1]);
      if (!multi.has(v)) multi.set(v, []);
      multi.get(v).push(name);
    } else if ((m = V2_CP_RE.exec(name))) v2.add(Number(m[1]));
  }
  return { commits, classic, multi, v2 };
}

// ---- schema -------------------------------------------------------------------------------------

const PRIMITIVES = new Set([
  'string', 'long', 'integer', 'short', 'byte', 'float', 'double', 'boolean', 'binary', 'date',
  'timestamp', 'timestamp_ntz', 'void', 'variant', 'decimal',
]);

// Checks a Spark DataType JSON; `path` names it in findings. Calls `onField(field, path)` for every
// struct field, nested ones included.
function checkType(t, path, f, where, onField) {
  if (isStr(t)) {
    const d = /^decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)$/.exec(t);
    if (d) {
      const p = Number(d[1]), s = Number(d[2]);
      if (p < 1 || p > 38 || s > p) f.add('schema', where, `${path}: ${t} is not a valid decimal`);
    } else if (!PRIMITIVES.has(t)) {
      f.add('schema', where, `${path}: unknown type ${JSON.stringify(t)}`);
    }
    return;
  }
  if (!isObj(t)) {
    f.add('schema', where, `${path}: a type is a string or an object, got ${JSON.stringify(t)}`);
    return;
  }
  switch (t.type) {
    case 'struct':
      checkStruct(t, path, f, where, onField);
      return;
    case 'array':
      if (typeof t.containsNull !== 'boolean') f.add('schema', where, `${path}: array without boolean containsNull`);
      checkType(t.elementType, `${path}[]`, f, where, onField);
      return;
    case 'map':
      if (typeof t.valueContainsNull !== 'boolean') f.add('schema', where, `${path}: map without boolean valueContainsNull`);
      checkType(t.keyType, `${path}.key`, f, where, onField);
      checkType(t.valueType, `${path}.value`, f, where, onField);
      return;
    default:
      f.add('schema', where, `${path}: unknown complex type ${JSON.stringify(t.type)}`);
  }
}

function checkStruct(t, path, f, where, onField) {
  if (!Array.isArray(t.fields)) {
    f.add('schema', where, `${path || 'schema'}: struct without a fields array`);
    return;
  }
  const seen = new Set();
  for (const field of t.fields) {
    if (!isObj(field) || !isStr(field.name)) {
      f.add('schema', where, `${path || 'schema'}: a field without a string name`);
      continue;
    }
    const p = path ? `${path}.${field.name}` : field.name;
    const lower = field.name.toLowerCase();
    if (seen.has(lower)) f.add('schema', where, `${p}: a second field of this name (names are unique regardless of case)`);
    seen.add(lower);
    if (typeof field.nullable !== 'boolean') f.add('schema', where, `${p}: nullable is not a boolean`);
    if (field.metadata !== undefined && !isObj(field.metadata)) f.add('schema', where, `${p}: metadata is not an object`);
    onField(field, p);
    checkType(field.type, p, f, where, onField);
  }
}

// Parses and checks metaData.schemaString; returns the StructType or null.
function parseSchema(schemaString, f, where) {
  let schema;
  try {
    schema = JSON.parse(schemaString);
  } catch (e) {
    f.add('schema', where, `schemaString is not JSON: ${e.message}`);
    return null;
  }
  if (!isObj(schema) || schema.type !== 'struct') {
    f.add('schema', where, 'schemaString is not a Spark StructType ({"type":"struct","fields":[...]})');
    return null;
  }
  return schema;
}

function typeHas(t, pred) {
  if (pred(t)) return true;
  if (!isObj(t)) return false;
  if (t.type === 'struct') return (t.fields || []).some((x) => isObj(x) && (pred(x) || typeHas(x.type, pred)));
  if (t.type === 'array') return typeHas(t.elementType, pred);
  if (t.type === 'map') return typeHas(t.keyType, pred) || typeHas(t.valueType, pred);
  return false;
}

export const physicalName = (field, cm) =>
  cm ? field.metadata?.['delta.columnMapping.physicalName'] ?? field.name : field.name;

// ---- actions ------------------------------------------------------------------------------------

export const ACTIONS = new Set([
  'add', 'remove', 'metaData', 'protocol', 'txn', 'commitInfo', 'cdc', 'domainMetadata',
  'checkpointMetadata', 'sidecar',
]);

function checkProtocol(p, f, where) {
  if (!isObj(p)) return f.add('protocol', where, 'protocol is not an object');
  const r = p.minReaderVersion, w = p.minWriterVersion;
  if (!isInt(r) || r < 1 || r > 3) f.add('protocol', where, `minReaderVersion ${JSON.stringify(r)} is not 1, 2 or 3`);
  if (!isInt(w) || w < 1 || w > 7) f.add('protocol', where, `minWriterVersion ${JSON.stringify(w)} is not 1..7`);
  const rf = p.readerFeatures, wf = p.writerFeatures;
  if ((rf !== undefined) !== (r === 3)) {
    f.add('protocol', where, r === 3 ? 'minReaderVersion 3 without readerFeatures' : `readerFeatures with minReaderVersion ${r}`);
  }
  if ((wf !== undefined) !== (w === 7)) {
    f.add('protocol', where, w === 7 ? 'minWriterVersion 7 without writerFeatures' : `writerFeatures with minWriterVersion ${w}`);
  }
  if (r === 3 && w !== 7) f.add('protocol', where, `minReaderVersion 3 needs minWriterVersion 7, got ${w}`);
  for (const [name, list] of [['readerFeatures', rf], ['writerFeatures', wf]]) {
    if (list === undefined) continue;
    if (!Array.isArray(list) || !list.every(isStr)) f.add('protocol', where, `${name} is not an array of strings`);
    else if (new Set(list).size !== list.length) f.add('protocol', where, `${name} names a feature twice`);
  }
  if (Array.isArray(rf) && Array.isArray(wf)) {
    for (const x of rf) if (!wf.includes(x)) f.add('protocol', where, `reader feature ${x} is not also a writer feature`);
  }
}

// Checks a metaData action; returns {schema, partitionColumns, configuration, cm} or null.
function checkMetadata(m, f, where) {
  if (!isObj(m)) {
    f.add('metadata', where, 'metaData is not an object');
    return null;
  }
  if (!isStr(m.id) || m.id === '') f.add('metadata', where, 'id is not a non-empty string');
  if (!isObj(m.format) || m.format.provider !== 'parquet') {
    f.add('metadata', where, `format.provider is ${JSON.stringify(m.format?.provider)}, not "parquet"`);
  } else if (m.format.options !== undefined && !isObj(m.format.options)) {
    f.add('metadata', where, 'format.options is not an object');
  }
  if (m.createdTime !== undefined && m.createdTime !== null && !isInt(m.createdTime)) f.add('metadata', where, 'createdTime is not an integer');
  const configuration = m.configuration ?? {};
  if (!isObj(configuration)) f.add('configuration', where, 'configuration is not an object');
  else {
    for (const [k, v] of Object.entries(configuration)) {
      if (!isStr(v)) f.add('configuration', where, `configuration ${k} is ${JSON.stringify(v)}, not a string`);
    }
  }
  const mode = isObj(configuration) ? configuration['delta.columnMapping.mode'] ?? 'none' : 'none';
  if (!['none', 'name', 'id'].includes(mode)) f.add('column_mapping', where, `delta.columnMapping.mode ${JSON.stringify(mode)} is not none, name or id`);
  const cm = mode === 'name' || mode === 'id';
  let schema = null;
  if (!isStr(m.schemaString)) f.add('metadata', where, 'schemaString is not a string');
  else schema = parseSchema(m.schemaString, f, where);
  const ids = new Map();
  if (schema) {
    checkStruct(schema, '', f, where, (field, path) => {
      if (!cm) return;
      const md = field.metadata ?? {};
      const pn = md['delta.columnMapping.physicalName'];
      const id = md['delta.columnMapping.id'];
      if (!isStr(pn) || pn === '') f.add('column_mapping', where, `${path}: no delta.columnMapping.physicalName under column mapping ${mode}`);
      if (!isInt(id)) f.add('column_mapping', where, `${path}: no integer delta.columnMapping.id under column mapping ${mode}`);
      else if (ids.has(id)) f.add('column_mapping', where, `${path}: column mapping id ${id} is also ${ids.get(id)}'s`);
      else ids.set(id, path);
    });
    if (cm) {
      const max = Number(configuration['delta.columnMapping.maxColumnId']);
      for (const [id, path] of ids) {
        if (Number.isFinite(max) && id > max) f.add('column_mapping', where, `${path}: column mapping id ${id} exceeds delta.columnMapping.maxColumnId ${max}`);
      }
    }
  }
  let partitionColumns = [];
  if (!Array.isArray(m.partitionColumns) || !m.partitionColumns.every(isStr)) {
    f.add('partition_columns', where, 'partitionColumns is not an array of strings');
  } else {
    partitionColumns = m.partitionColumns;
    if (new Set(partitionColumns).size !== partitionColumns.length) f.add('partition_columns', where, 'partitionColumns names a column twice');
    if (schema && Array.isArray(schema.fields)) {
      const top = new Set(schema.fields.filter(isObj).map((x) => x.name));
      for (const c of partitionColumns) if (!top.has(c)) f.add('partition_columns', where, `partition column ${c} is not a top-level column`);
    }
  }
  return { schema, partitionColumns, configuration: isObj(configuration) ? configuration : {}, cm };
}

// The partitionValues keys the metaData expects: physical names under column mapping.
function partitionKeys(meta) {
  if (!meta.schema || !Array.isArray(meta.schema.fields)) return meta.partitionColumns;
  return meta.partitionColumns.map((c) => {
    const field = meta.schema.fields.find((x) => isObj(x) && x.name === c);
    return field ? physicalName(field, meta.cm) : c;
  });
}

function dvId(dv) {
  if (!isObj(dv)) return '';
  return `${dv.storageType}${dv.pathOrInlineDv}${dv.offset !== undefined && dv.offset !== null ? `@${dv.offset}` : ''}`;
}

function checkDeletionVector(dv, f, where) {
  if (!isObj(dv)) return f.add('add', where, 'deletionVector is not an object');
  if (!['u', 'i', 'p'].includes(dv.storageType)) f.add('add', where, `deletionVector.storageType ${JSON.stringify(dv.storageType)} is not u, i or p`);
  if (!isStr(dv.pathOrInlineDv)) f.add('add', where, 'deletionVector.pathOrInlineDv is not a string');
  if (dv.storageType !== 'i' && !isInt(dv.offset)) f.add('add', where, 'deletionVector.offset is not an integer');
  if (!isInt(dv.sizeInBytes) || dv.sizeInBytes < 0) f.add('add', where, 'deletionVector.sizeInBytes is not a non-negative integer');
  if (!isInt(dv.cardinality) || dv.cardinality < 0) f.add('add', where, 'deletionVector.cardinality is not a non-negative integer');
}

// Returns the parsed stats object or null.
function checkStats(stats, f, where) {
  if (!isStr(stats)) {
    f.add('stats', where, 'stats is not a JSON string');
    return null;
  }
  let s;
  try {
    s = JSON.parse(stats);
  } catch (e) {
    f.add('stats', where, `stats is not JSON: ${e.message}`);
    return null;
  }
  if (!isObj(s)) {
    f.add('stats', where, 'stats is not a JSON object');
    return null;
  }
  if (!isInt(s.numRecords) || s.numRecords < 0) {
    f.add('stats', where, `stats.numRecords is ${JSON.stringify(s.numRecords)}, not a non-negative integer`);
    return null;
  }
  for (const k of ['minValues', 'maxValues', 'nullCount']) {
    if (s[k] !== undefined && !isObj(s[k])) f.add('stats', where, `stats.${k} is not an object`);
  }
  return s;
}

function checkAdd(a, meta, f, where) {
  if (!isObj(a)) return f.add('add', where, 'add is not an object');
  if (!isStr(a.path) || a.path === '') f.add('add', where, 'path is not a non-empty string');
  if (!isInt(a.size) || a.size <= 0) f.add('add', where, `size ${JSON.stringify(a.size)} is not a positive integer`);
  if (!isInt(a.modificationTime) || a.modificationTime < 0) f.add('add', where, 'modificationTime is not a non-negative integer');
  if (typeof a.dataChange !== 'boolean') f.add('add', where, 'dataChange is not a boolean');
  if (!isObj(a.partitionValues)) f.add('partition_values', where, 'partitionValues is not an object');
  else if (meta) {
    const want = partitionKeys(meta);
    const got = Object.keys(a.partitionValues);
    for (const k of want) if (!got.includes(k)) f.add('partition_values', where, `partitionValues has no ${k}`);
    for (const k of got) if (!want.includes(k)) f.add('partition_values', where, `partitionValues has ${k}, not a partition column`);
    for (const [k, v] of Object.entries(a.partitionValues)) {
      if (v !== null && !isStr(v)) f.add('partition_values', where, `partitionValues.${k} is ${JSON.stringify(v)}, not a string or null`);
    }
  }
  if (a.tags !== undefined && a.tags !== null) {
    if (!isObj(a.tags) || !Object.values(a.tags).every((v) => v === null || isStr(v))) f.add('add', where, 'tags is not a map of strings');
  }
  if (a.deletionVector !== undefined && a.deletionVector !== null) checkDeletionVector(a.deletionVector, f, where);
  for (const k of ['baseRowId', 'defaultRowCommitVersion']) {
    if (a[k] !== undefined && a[k] !== null && !isInt(a[k])) f.add('add', where, `${k} is not an integer`);
  }
  return a.stats === undefined || a.stats === null ? null : checkStats(a.stats, f, where);
}

function checkRemove(r, f, where) {
  if (!isObj(r)) return f.add('remove', where, 'remove is not an object');
  if (!isStr(r.path) || r.path === '') f.add('remove', where, 'path is not a non-empty string');
  if (typeof r.dataChange !== 'boolean') f.add('remove', where, 'dataChange is not a boolean');
  if (r.deletionTimestamp !== undefined && r.deletionTimestamp !== null && !isInt(r.deletionTimestamp)) f.add('remove', where, 'deletionTimestamp is not an integer');
  if (r.extendedFileMetadata !== undefined && r.extendedFileMetadata !== null && typeof r.extendedFileMetadata !== 'boolean') f.add('remove', where, 'extendedFileMetadata is not a boolean');
  if (r.size !== undefined && r.size !== null && (!isInt(r.size) || r.size < 0)) f.add('remove', where, 'size is not a non-negative integer');
  if (r.partitionValues !== undefined && r.partitionValues !== null && !isObj(r.partitionValues)) f.add('remove', where, 'partitionValues is not an object');
  if (r.deletionVector !== undefined && r.deletionVector !== null) checkDeletionVector(r.deletionVector, f, where);
}

function checkOther(kind, a, f, where) {
  if (!isObj(a)) return f.add(kind, where, `${kind} is not an object`);
  switch (kind) {
    case 'txn':
      if (!isStr(a.appId)) f.add('txn', where, 'appId is not a string');
      if (!isInt(a.version)) f.add('txn', where, 'version is not an integer');
      if (a.lastUpdated !== undefined && a.lastUpdated !== null && !isInt(a.lastUpdated)) f.add('txn', where, 'lastUpdated is not an integer');
      break;
    case 'commitInfo':
      if (!isInt(a.timestamp)) f.add('commit_info', where, 'commitInfo.timestamp is not an integer');
      if (!isStr(a.operation)) f.add('commit_info', where, 'commitInfo.operation is not a string');
      break;
    case 'cdc':
      if (!isStr(a.path)) f.add('cdc', where, 'path is not a string');
      if (!isObj(a.partitionValues)) f.add('cdc', where, 'partitionValues is not an object');
      if (!isInt(a.size) || a.size < 0) f.add('cdc', where, 'size is not a non-negative integer');
      if (a.dataChange !== false) f.add('cdc', where, 'dataChange is not false');
      break;
    case 'domainMetadata':
      if (!isStr(a.domain)) f.add('domain_metadata', where, 'domain is not a string');
      if (!isStr(a.configuration)) f.add('domain_metadata', where, 'configuration is not a string');
      if (typeof a.removed !== 'boolean') f.add('domain_metadata', where, 'removed is not a boolean');
      break;
    default:
      break;
  }
}

// ---- replay -------------------------------------------------------------------------------------

export class State {
  constructor() {
    this.protocol = null;
    this.metaData = null; // the raw action
    this.meta = null; // checkMetadata's result
    this.live = new Map(); // path + dv id -> {add, stats, version}
  }
}

const FEATURE_BY_LEGACY = { columnMapping: [2, 5] };

function hasFeature(protocol, name, legacy) {
  if (!protocol) return false;
  const r = protocol.minReaderVersion, w = protocol.minWriterVersion;
  const rf = Array.isArray(protocol.readerFeatures) ? protocol.readerFeatures : [];
  const wf = Array.isArray(protocol.writerFeatures) ? protocol.writerFeatures : [];
  const names = Array.isArray(name) ? name : [name];
  const inR = r === 3 ? names.some((n) => rf.includes(n)) : legacy !== undefined && r >= legacy[0];
  const inW = w === 7 ? names.some((n) => wf.includes(n)) : legacy !== undefined && w >= legacy[1];
  return inR && inW;
}

// Features the metaData (and adds) need from the protocol.
function checkFeatures(state, usesDv, f, where) {
  const p = state.protocol, meta = state.meta;
  if (!p || !meta) return;
  if (meta.cm && !hasFeature(p, 'columnMapping', FEATURE_BY_LEGACY.columnMapping)) {
    f.add('feature_missing', where, 'column mapping is on but the protocol does not support columnMapping');
  }
  if (meta.schema && typeHas(meta.schema, (t) => t === 'timestamp_ntz') && !hasFeature(p, 'timestampNtz')) {
    f.add('feature_missing', where, 'a timestamp_ntz column without the timestampNtz feature');
  }
  if (meta.schema && typeHas(meta.schema, (x) => isObj(x) && isObj(x.metadata) && x.metadata['delta.typeChanges'] !== undefined) &&
      !hasFeature(p, ['typeWidening', 'typeWidening-preview'])) {
    f.add('feature_missing', where, 'delta.typeChanges in the schema without the typeWidening feature');
  }
  if (usesDv && !hasFeature(p, 'deletionVectors')) {
    f.add('feature_missing', where, 'deletion vectors without the deletionVectors feature');
  }
}

// Applies one version's actions (objects {kind, body, where}) to `state`, checking each.
export function applyVersion(state, version, actions, f, fileWhere, isCheckpoint) {
  let nMeta = 0, nProto = 0, usesDv = false;
  const addedKeys = new Set();
  for (const { kind, body, where } of actions) {
    if (kind === 'metaData') {
      nMeta++;
      const meta = checkMetadata(body, f, where);
      state.metaData = body;
      state.meta = meta;
    } else if (kind === 'protocol') {
      nProto++;
      checkProtocol(body, f, where);
      state.protocol = body;
    }
  }
  if (nMeta > 1) f.add(isCheckpoint ? 'checkpoint' : 'duplicate_metadata', fileWhere, `${nMeta} metaData actions in version ${version}`);
  if (nProto > 1) f.add(isCheckpoint ? 'checkpoint' : 'duplicate_protocol', fileWhere, `${nProto} protocol actions in version ${version}`);
  if (isCheckpoint && (nMeta !== 1 || nProto !== 1)) {
    f.add('checkpoint', fileWhere, `a checkpoint holds one protocol and one metaData, this one ${nProto} and ${nMeta}`);
  }
  if (version === 0 && !isCheckpoint && (nMeta === 0 || nProto === 0)) {
    f.add('first_commit_incomplete', fileWhere, `version 0 has ${nProto ? '' : 'no protocol'}${!nProto && !nMeta ? ' and ' : ''}${nMeta ? '' : 'no metaData'}`);
  }
  const ict = state.meta?.configuration?.['delta.enableInCommitTimestamps'] === 'true';
  if (ict && !isCheckpoint) {
    const first = actions[0];
    if (!first || first.kind !== 'commitInfo' || !isInt(first.body?.inCommitTimestamp)) {
      f.add('commit_info', fileWhere, 'in-commit timestamps are on: the first action must be commitInfo with an integer inCommitTimestamp');
    }
  }
  for (const { kind, body, where } of actions) {
    if (kind === 'add') {
      const stats = checkAdd(body, state.meta, f, where);
      if (!isObj(body) || !isStr(body.path)) continue;
      const key = `${body.path}\u0000${dvId(body.deletionVector)}`;
      if (addedKeys.has(key)) f.add('duplicate_add', where, `${body.path} is added twice in version ${version}`);
      addedKeys.add(key);
      if (isObj(body.deletionVector)) usesDv = true;
      state.live.set(key, { add: body, stats, version });
    } else if (kind === 'remove') {
      checkRemove(body, f, where);
      if (!isObj(body) || !isStr(body.path)) continue;
      state.live.delete(`${body.path}\u0000${dvId(body.deletionVector)}`);
    } else if (kind !== 'metaData' && kind !== 'protocol') {
      checkOther(kind, body, f, where);
    }
  }
  checkFeatures(state, usesDv, f, fileWhere);
}

// Reads a commit file into actions; checks the line rules.
export function readCommit(path, name, f) {
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(readFileSync(path));
  } catch (e) {
    f.add('bad_json', name, `cannot be read as UTF-8: ${e.message}`);
    return [];
  }
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop(); // the final newline
  const actions = [];
  lines.forEach((line, i) => {
    const where = `${name}:${i + 1}`;
    if (line.trim() === '') {
      f.add('empty_line', where, 'an empty line (one action per line)');
      return;
    }
    let obj;
    try {
      obj = JSON.parse(line);
    } catch (e) {
      const torn = i === lines.length - 1 && !text.endsWith('\n');
      f.add('bad_json', where, `${torn ? 'the last line is torn: ' : ''}not JSON: ${e.message}`);
      return;
    }
    if (!isObj(obj) || Object.keys(obj).length !== 1) {
      f.add('not_one_action', where, `a line holds one object with one action, got ${isObj(obj) ? Object.keys(obj).length + ' keys' : typeof obj}`);
      return;
    }
    const kind = Object.keys(obj)[0];
    if (!ACTIONS.has(kind)) {
      f.add('unknown_action', where, `unknown action ${JSON.stringify(kind)}`);
      return;
    }
    actions.push({ kind, body: obj[kind], where });
  });
  if (lines.length === 0) f.add('empty_commit', name, 'a commit with no actions');
  return actions;
}

export function compareStates(replay, cp, f, where) {
  const keys = (s) => [...s.live.keys()].sort();
  const a = keys(replay), b = keys(cp);
  const missing = a.filter((k) => !cp.live.has(k)).map((k) => k.split('\u0000')[0]);
  const extra = b.filter((k) => !replay.live.has(k)).map((k) => k.split('\u0000')[0]);
  if (missing.length) f.add('checkpoint_mismatch', where, `live files the commits add and the checkpoint lacks: ${missing.slice(0, 5).join(', ')}`);
  if (extra.length) f.add('checkpoint_mismatch', where, `files the checkpoint holds and the commits do not leave live: ${extra.slice(0, 5).join(', ')}`);
  const same = (x, y) => JSON.stringify(x) === JSON.stringify(y);
  const proto = (p) => p && [p.minReaderVersion, p.minWriterVersion, p.readerFeatures ?? null, p.writerFeatures ?? null];
  if (!same(proto(replay.protocol), proto(cp.protocol))) f.add('checkpoint_mismatch', where, 'the checkpoint\'s protocol differs from the commits\'');
  const meta = (m) => m && [m.id, m.schemaString, m.partitionColumns, Object.entries(m.configuration ?? {}).sort()];
  if (!same(meta(replay.metaData), meta(cp.metaData))) f.add('checkpoint_mismatch', where, 'the checkpoint\'s metaData differs from the commits\'');
}
