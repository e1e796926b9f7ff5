// Three Parquet readers we did not write, each turned into canonical rows (canonical.mjs).
//
// Every reader decides a value's canonical form from its own view of the file's types, so a
// writer that annotates a column wrongly shows up as a difference:
//   duckdb     the column types DuckDB's Node API reports for SELECT * FROM read_parquet(FILE)
//   arrow      the Arrow schema of the table arrow-rs (parquet-wasm) decodes the file into
//   hyparquet  the Parquet schema hyparquet parses from the footer (logical, then converted types)
//
// Each returns { columns: [name...], rows: AsyncIterable<canonical row (Obj)> }.
//
// Reader quirks and how they are handled (all exact unless said otherwise):
//   duckdb     DECIMAL, DATE, TIMESTAMP*, TIME*, UUID and BLOB come as value objects; their
//              integer fields (unscaled value, days, micros/nanos, uint128) are used directly.
//              A UTC-adjusted TIMESTAMP(NANOS) column is read by DuckDB as TIMESTAMP WITH TIME
//              ZONE, which holds microseconds: DuckDB divides the nanoseconds by 1000 toward zero
//              (a documented gap: compare.mjs --reader duckdb tolerates exactly that). A TIME with isAdjustedToUTC=true
//              is read as TIME WITH TIME ZONE; its offset is 0 and its micros are used.
//   arrow      apache-arrow's get() turns timestamps into float milliseconds and decimals into
//              word arrays, so every leaf is read from the Arrow buffers (BigInt64Array,
//              Int32Array, 32-bit decimal words) instead. parquet-wasm's Arrow schema has no
//              UUID type (arrow-rs maps the UUID logical type to FixedSizeBinary(16) without an
//              extension name), so FixedSizeBinary(16) prints as a uuid: the model has no other
//              16-byte fixed type.
//   hyparquet  its default conversions are inexact (DECIMAL to a JS number, timestamps to Date
//              in milliseconds, rounding micros toward zero) and maps become plain objects
//              (keys turned into strings, integer-like keys reordered). So the reader is given
//              parsers that keep timestamps and dates as integers, and a copy of the footer
//              with the DECIMAL and MAP annotations taken off: hyparquet then hands back the
//              unscaled integers and the key_value entries, and this file applies the scale
//              and builds the map from the schema hyparquet parsed.

import { readFileSync } from 'node:fs';
import * as C from './canonical.mjs';

// ---- the model types every reader maps to ----------------------------------------------------
// { kind: 'boolean'|'int8'|'int16'|'int32'|'int64'|'float32'|'float64'|'string'|'binary'|'date'
//         |'uuid' }
// { kind: 'decimal', precision, scale }      { kind: 'timestamp', unit, utc }
// { kind: 'time', unit }                     { kind: 'struct', fields: [{name, type}] }
// { kind: 'array', element }                 { kind: 'map', key, value }

function unsupported(reader, what) {
  return new Error(`${reader}: type ${what} is outside sluice's model`);
}

// ---- DuckDB ------------------------------------------------------------------------------------

async function duckdbModule() {
  return import('@duckdb/node-api');
}

function duckdbType(t, Id) {
  switch (t.typeId) {
    case Id.BOOLEAN: return { kind: 'boolean' };
    case Id.TINYINT: return { kind: 'int8' };
    case Id.SMALLINT: return { kind: 'int16' };
    case Id.INTEGER: return { kind: 'int32' };
    case Id.BIGINT: return { kind: 'int64' };
    case Id.FLOAT: return { kind: 'float32' };
    case Id.DOUBLE: return { kind: 'float64' };
    case Id.DECIMAL: return { kind: 'decimal', precision: t.width, scale: t.scale };
    case Id.VARCHAR: return { kind: 'string' };
    case Id.BLOB: return { kind: 'binary' };
    case Id.DATE: return { kind: 'date' };
    case Id.TIMESTAMP: return { kind: 'timestamp', unit: 'us', utc: false };
    case Id.TIMESTAMP_MS: return { kind: 'timestamp', unit: 'ms', utc: false };
    case Id.TIMESTAMP_NS: return { kind: 'timestamp', unit: 'ns', utc: false };
    case Id.TIMESTAMP_TZ: return { kind: 'timestamp', unit: 'us', utc: true };
    case Id.TIME: return { kind: 'time', unit: 'us' };
    case Id.TIME_TZ: return { kind: 'time', unit: 'us', duckdbTimeTz: true };
    case Id.TIME_NS: return { kind: 'time', unit: 'ns' };
    case Id.UUID: return { kind: 'uuid' };
    case Id.STRUCT:
      return {
        kind: 'struct',
        fields: t.entryNames.map((name, i) => ({ name, type: duckdbType(t.entryTypes[i], Id) })),
      };
    case Id.LIST: return { kind: 'array', element: duckdbType(t.valueType, Id) };
    case Id.MAP:
      return { kind: 'map', key: duckdbType(t.keyType, Id), value: duckdbType(t.valueType, Id) };
    default:
      throw unsupported('duckdb', t.toString());
  }
}

function duckdbValue(type, v) {
  if (v === null || v === undefined) return null;
  switch (type.kind) {
    case 'boolean': return v;
    case 'int8': case 'int16': case 'int32': case 'int64': return C.int(v);
    case 'float32': return C.float32(v);
    case 'float64': return C.float64(v);
    case 'decimal': return C.decimal(v.value, type.scale);
    case 'string': return v;
    case 'binary': return C.base64(v.bytes);
    case 'date': return C.date(v.days);
    case 'timestamp': {
      const raw = type.unit === 'ms' ? v.millis : type.unit === 'ns' ? v.nanos : v.micros;
      return C.timestamp(raw, type.unit, type.utc);
    }
    case 'time':
      if (type.duckdbTimeTz && v.offset !== 0) throw new Error(`duckdb: TIMETZ offset ${v.offset}`);
      return C.time(type.unit === 'ns' ? v.nanos : v.micros, type.unit);
    case 'uuid': return C.uuidFromUint128(v.toUint128());
    case 'struct':
      return new C.Obj(type.fields.map((f) => [f.name, duckdbValue(f.type, v.entries[f.name])]));
    case 'array': return v.items.map((x) => duckdbValue(type.element, x));
    case 'map':
      return v.entries.map(
        (e) => new C.Obj([['key', duckdbValue(type.key, e.key)], ['value', duckdbValue(type.value, e.value)]]),
      );
    default:
      throw new Error(`duckdb: no conversion for ${type.kind}`);
  }
}

export async function readDuckdb(file) {
  const { DuckDBInstance, DuckDBTypeId } = await duckdbModule();
  const instance = await DuckDBInstance.create(':memory:');
  const db = await instance.connect();
  const path = file.replaceAll("'", "''");
  const result = await db.stream(`SELECT * FROM read_parquet('${path}')`);
  const columns = result.columnNames();
  const types = result.columnTypes().map((t) => duckdbType(t, DuckDBTypeId));
  async function* rows() {
    for (;;) {
      const chunk = await result.fetchChunk();
      if (!chunk || chunk.rowCount === 0) break;
      for (const row of chunk.getRows()) {
        yield new C.Obj(columns.map((c, i) => [c, duckdbValue(types[i], row[i])]));
      }
    }
  }
  return { columns, types, rows: rows() };
}

// ---- arrow-rs (parquet-wasm) -----------------------------------------------------------------

function arrowType(t, Type, TimeUnit) {
  const unitOf = (u) => {
    switch (u) {
      case TimeUnit.MILLISECOND: return 'ms';
      case TimeUnit.MICROSECOND: return 'us';
      case TimeUnit.NANOSECOND: return 'ns';
      default: throw unsupported('arrow', `time unit ${u}`);
    }
  };
  switch (t.typeId) {
    case Type.Bool: return { kind: 'boolean' };
    case Type.Int:
      if (!t.isSigned) throw unsupported('arrow', String(t));
      return { kind: `int${t.bitWidth}` };
    case Type.Float:
      if (t.precision === 1) return { kind: 'float32' };
      if (t.precision === 2) return { kind: 'float64' };
      throw unsupported('arrow', String(t));
    case Type.Decimal:
      return { kind: 'decimal', precision: t.precision, scale: t.scale, bitWidth: t.bitWidth };
    case Type.Utf8: case Type.LargeUtf8: return { kind: 'string' };
    case Type.Binary: case Type.LargeBinary: return { kind: 'binary' };
    case Type.FixedSizeBinary:
      if (t.byteWidth === 16) return { kind: 'uuid' };
      throw unsupported('arrow', String(t));
    case Type.Date:
      return { kind: 'date', arrowMillis: t.unit !== 0 };
    case Type.Timestamp:
      return { kind: 'timestamp', unit: unitOf(t.unit), utc: t.timezone != null && t.timezone !== '' };
    case Type.Time: return { kind: 'time', unit: unitOf(t.unit) };
    case Type.Struct:
      return { kind: 'struct', fields: t.children.map((f) => ({ name: f.name, type: arrowType(f.type, Type, TimeUnit) })) };
    case Type.List: case Type.LargeList:
      return { kind: 'array', element: arrowType(t.children[0].type, Type, TimeUnit) };
    case Type.Map: {
      const entries = t.children[0].type;
      return {
        kind: 'map',
        key: arrowType(entries.children[0].type, Type, TimeUnit),
        value: arrowType(entries.children[1].type, Type, TimeUnit),
      };
    }
    default:
      throw unsupported('arrow', String(t));
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

// Reads value i of an Arrow Data chunk from its buffers (offset 0: chunks decoded from IPC).
function arrowValue(type, data, i) {
  if (!data.getValid(i)) return null;
  const values = data.values;
  switch (type.kind) {
    case 'boolean': return ((values[i >> 3] >> (i & 7)) & 1) === 1;
    case 'int8': case 'int16': case 'int32': case 'int64': return C.int(values[i]);
    case 'float32': return C.float32(values[i]);
    case 'float64': return C.float64(values[i]);
    case 'decimal': {
      // Little-endian 32-bit words, two's complement over bitWidth bits.
      const words = type.bitWidth / 32;
      let v = 0n;
      for (let w = words - 1; w >= 0; w--) v = (v << 32n) | BigInt(values[i * words + w] >>> 0);
      if (values[i * words + words - 1] & 0x80000000) v -= 1n << BigInt(type.bitWidth);
      return C.decimal(v, type.scale);
    }
    case 'string': case 'binary': {
      const off = data.valueOffsets;
      const bytes = values.subarray(Number(off[i]), Number(off[i + 1]));
      return type.kind === 'string' ? utf8.decode(bytes) : C.base64(bytes);
    }
    case 'uuid': return C.uuid(values.subarray(i * 16, i * 16 + 16));
    case 'date':
      if (type.arrowMillis) return C.date(Number(BigInt(values[i]) / 86400000n));
      return C.date(values[i]);
    case 'timestamp': return C.timestamp(values[i], type.unit, type.utc);
    case 'time': return C.time(values[i], type.unit);
    case 'struct':
      return new C.Obj(type.fields.map((f, j) => [f.name, arrowValue(f.type, data.children[j], i)]));
    case 'array': {
      const off = data.valueOffsets;
      const out = [];
      for (let k = Number(off[i]); k < Number(off[i + 1]); k++) {
        out.push(arrowValue(type.element, data.children[0], k));
      }
      return out;
    }
    case 'map': {
      const off = data.valueOffsets;
      const entries = data.children[0];
      const out = [];
      for (let k = Number(off[i]); k < Number(off[i + 1]); k++) {
        out.push(new C.Obj([
          ['key', arrowValue(type.key, entries.children[0], k)],
          ['value', arrowValue(type.value, entries.children[1], k)],
        ]));
      }
      return out;
    }
    default:
      throw new Error(`arrow: no conversion for ${type.kind}`);
  }
}

function checkOffsets(data) {
  if (data.offset !== 0) throw new Error('arrow: a chunk with a non-zero offset');
  for (const c of data.children ?? []) checkOffsets(c);
}

export async function readArrow(file) {
  const pw = await import('parquet-wasm');
  const arrow = await import('apache-arrow');
  const wasmTable = pw.readParquet(new Uint8Array(readFileSync(file)));
  const table = arrow.tableFromIPC(wasmTable.intoIPCStream());
  const fields = table.schema.fields;
  const columns = fields.map((f) => f.name);
  const types = fields.map((f) => arrowType(f.type, arrow.Type, arrow.TimeUnit));
  function* rows() {
    for (const batch of table.batches) {
      if (batch.numRows === 0) continue;
      const datas = fields.map((_, j) => batch.data.children[j]);
      datas.forEach(checkOffsets);
      for (let i = 0; i < batch.numRows; i++) {
        yield new C.Obj(columns.map((c, j) => [c, arrowValue(types[j], datas[j], i)]));
      }
    }
  }
  return { columns, types, rows: rows() };
}

// ---- hyparquet -------------------------------------------------------------------------------

// The model type of a node of hyparquet's schema tree ({element, children}), by the Parquet
// spec's rules (LogicalTypes.md, including its backward-compatibility rules for LIST and MAP).
function parquetType(node) {
  const el = node.element;
  const lt = el.logical_type;
  const ct = el.converted_type;
  if (node.children.length > 0) {
    if (lt?.type === 'LIST' || ct === 'LIST') {
      const rep = node.children[0];
      if (node.children.length !== 1 || rep.element.repetition_type !== 'REPEATED') {
        throw new Error(`hyparquet: malformed LIST ${el.name}`);
      }
      if (rep.children.length === 0) return { kind: 'array', element: parquetType(rep), twoLevel: true };
      if (rep.children.length > 1 || rep.element.name === 'array' || rep.element.name === `${el.name}_tuple`) {
        return { kind: 'array', element: structOf(rep), twoLevel: true };
      }
      return { kind: 'array', element: elementType(rep.children[0]) };
    }
    if (lt?.type === 'MAP' || ct === 'MAP' || ct === 'MAP_KEY_VALUE') {
      const kv = node.children[0];
      if (node.children.length !== 1 || kv.element.repetition_type !== 'REPEATED' || kv.children.length !== 2) {
        throw new Error(`hyparquet: malformed MAP ${el.name}`);
      }
      return { kind: 'map', key: parquetType(kv.children[0]), value: parquetType(kv.children[1]), kvName: kv.element.name,
        keyName: kv.children[0].element.name, valueName: kv.children[1].element.name };
    }
    return structOf(node);
  }
  if (lt) {
    switch (lt.type) {
      case 'STRING': case 'ENUM': case 'JSON': return { kind: 'string' };
      case 'DECIMAL': return { kind: 'decimal', precision: lt.precision, scale: lt.scale };
      case 'DATE': return { kind: 'date' };
      case 'TIMESTAMP': return { kind: 'timestamp', unit: unitOf(lt.unit), utc: lt.isAdjustedToUTC };
      case 'TIME': return { kind: 'time', unit: unitOf(lt.unit) };
      case 'UUID': return { kind: 'uuid' };
      case 'INTEGER':
        if (!lt.isSigned) throw unsupported('hyparquet', `unsigned INTEGER(${lt.bitWidth})`);
        return { kind: `int${lt.bitWidth}` };
      default: throw unsupported('hyparquet', `logical type ${lt.type}`);
    }
  }
  switch (ct) {
    case undefined: break;
    case 'UTF8': case 'ENUM': case 'JSON': return { kind: 'string' };
    case 'DECIMAL': return { kind: 'decimal', precision: el.precision, scale: el.scale ?? 0 };
    case 'DATE': return { kind: 'date' };
    case 'TIMESTAMP_MILLIS': return { kind: 'timestamp', unit: 'ms', utc: true };
    case 'TIMESTAMP_MICROS': return { kind: 'timestamp', unit: 'us', utc: true };
    case 'TIME_MILLIS': return { kind: 'time', unit: 'ms' };
    case 'TIME_MICROS': return { kind: 'time', unit: 'us' };
    case 'INT_8': return { kind: 'int8' };
    case 'INT_16': return { kind: 'int16' };
    case 'INT_32': return { kind: 'int32' };
    case 'INT_64': return { kind: 'int64' };
    default: throw unsupported('hyparquet', `converted type ${ct}`);
  }
  switch (el.type) {
    case 'BOOLEAN': return { kind: 'boolean' };
    case 'INT32': return { kind: 'int32' };
    case 'INT64': return { kind: 'int64' };
    case 'FLOAT': return { kind: 'float32' };
    case 'DOUBLE': return { kind: 'float64' };
    case 'BYTE_ARRAY': return { kind: 'binary' };
    default: throw unsupported('hyparquet', `physical type ${el.type} without annotation`);
  }
}

function unitOf(u) {
  switch (u) {
    case 'MILLIS': return 'ms';
    case 'MICROS': return 'us';
    case 'NANOS': return 'ns';
    default: throw unsupported('hyparquet', `time unit ${u}`);
  }
}

// A field of a group: a REPEATED one without LIST/MAP annotation is an array of required values.
function elementType(node) {
  const t = parquetType(node);
  if (node.element.repetition_type === 'REPEATED') return { kind: 'array', element: t, bare: true };
  return t;
}

function structOf(node) {
  return { kind: 'struct', fields: node.children.map((c) => ({ name: c.element.name, type: elementType(c) })) };
}

function hyparquetValue(type, v) {
  if (v === null || v === undefined) return null;
  switch (type.kind) {
    case 'boolean': return v;
    case 'int8': case 'int16': case 'int32': case 'int64': return C.int(v);
    case 'float32': return C.float32(v);
    case 'float64': return C.float64(v);
    case 'decimal': {
      const unscaled = v instanceof Uint8Array ? C.bigEndianSigned(v) : BigInt(v);
      return C.decimal(unscaled, type.scale);
    }
    case 'string':
      if (typeof v !== 'string') throw new Error('hyparquet: a string column gave a non-string');
      return v;
    case 'binary': return C.base64(v);
    case 'uuid': {
      if (typeof v === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(v)) return v;
      if (v instanceof Uint8Array) return C.uuid(v);
      throw new Error(`hyparquet: uuid value ${String(v)}`);
    }
    case 'date': return C.date(typeof v === 'object' ? v.days : v);
    case 'timestamp': return C.timestamp(typeof v === 'object' ? v.ts : v, type.unit, type.utc);
    case 'time': return C.time(v, type.unit);
    case 'struct':
      return new C.Obj(type.fields.map((f) => [f.name, hyparquetValue(f.type, v[f.name])]));
    case 'array':
      if (!Array.isArray(v)) throw new Error('hyparquet: an array column gave a non-array');
      return v.map((x) => hyparquetValue(type.element, x));
    case 'map': {
      // The MAP annotation was taken off: hyparquet gives {key_value: [{key, value}, ...]}.
      const entries = v[type.kvName];
      if (entries === null || entries === undefined) return [];
      return entries.map((e) => new C.Obj([
        ['key', hyparquetValue(type.key, e[type.keyName])],
        ['value', hyparquetValue(type.value, e[type.valueName])],
      ]));
    }
    default:
      throw new Error(`hyparquet: no conversion for ${type.kind}`);
  }
}

export async function readHyparquet(file) {
  const { parquetMetadata, parquetSchema, parquetReadObjects } = await import('hyparquet');
  const { compressors } = await import('hyparquet-compressors');
  const buf = readFileSync(file);
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const metadata = parquetMetadata(ab);
  const tree = parquetSchema(metadata);
  const columns = tree.children.map((c) => c.element.name);
  const types = tree.children.map(elementType);
  // The copy hyparquet reads with: DECIMAL and MAP annotations off (see the top of the file).
  const plain = { ...metadata, schema: metadata.schema.map((el) => ({ ...el })) };
  for (const el of plain.schema) {
    const lt = el.logical_type?.type;
    if (el.converted_type === 'DECIMAL' || lt === 'DECIMAL' || el.converted_type === 'MAP' ||
        el.converted_type === 'MAP_KEY_VALUE' || lt === 'MAP') {
      delete el.converted_type;
      delete el.logical_type;
    }
  }
  const parsers = {
    timestampFromMilliseconds: (v) => ({ ts: BigInt(v) }),
    timestampFromMicroseconds: (v) => ({ ts: BigInt(v) }),
    timestampFromNanoseconds: (v) => ({ ts: BigInt(v) }),
    dateFromDays: (d) => ({ days: Number(d) }),
  };
  const objects = await parquetReadObjects({ file: ab, metadata: plain, compressors, parsers, utf8: false });
  function* rows() {
    for (const o of objects) {
      yield new C.Obj(columns.map((c, j) => [c, hyparquetValue(types[j], o[c])]));
    }
  }
  return { columns, types, rows: rows() };
}

export const READERS = { duckdb: readDuckdb, arrow: readArrow, hyparquet: readHyparquet };
