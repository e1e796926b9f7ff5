// Write JSON records (gen_random.py's rows.jsonl, or any records `sluice validate` accepts in the
// forms gen_random writes) to Parquet with arrow-rs (parquet-wasm), under a Spark DDL schema.
//
//   node tests/parquet/write_records.mjs [--codec C] [--v2] [--no-dict] SCHEMA.ddl ROWS.jsonl OUT.parquet
//
// C: uncompressed, snappy (default), gzip, brotli, zstd, lz4_raw. --v2 writes data page v2,
// --no-dict turns dictionaries off. Exit 0, 1 when a record does not fit the schema (named by line
// and field path), 2 for usage.
//
// Conversions (the forms gen_random.py writes): integers and decimals from their JSON number text
// exactly; FLOAT/DOUBLE from numbers or "NaN"/"Infinity"/"-Infinity"; BINARY from base64; DATE
// "YYYY-MM-DD"; TIMESTAMP "YYYY-MM-DDTHH:MM:SS[.ffffff]Z" and TIMESTAMP_NTZ the same without "Z"
// (UTC-adjusted and local TIMESTAMP(MICROS)); MAP from an object, keys converted to the key type.
import { readFileSync, writeFileSync } from 'node:fs';
import * as A from 'apache-arrow';
import * as pw from 'parquet-wasm';
import { Num, Obj, parseJson, parseTimestampNanos } from './canonical.mjs';
import { parseDdl } from './ddl.mjs';
import { field, list, map, struct, tableOf } from './arrow_build.mjs';

const usage = 'usage: node write_records.mjs [--codec C] [--v2] [--no-dict] SCHEMA.ddl ROWS.jsonl OUT.parquet';
const CODECS = {
  uncompressed: pw.Compression.UNCOMPRESSED, snappy: pw.Compression.SNAPPY, gzip: pw.Compression.GZIP,
  brotli: pw.Compression.BROTLI, zstd: pw.Compression.ZSTD, lz4_raw: pw.Compression.LZ4_RAW,
};

function arrowType(t) {
  switch (t.kind) {
    case 'boolean': return new A.Bool();
    case 'int8': return new A.Int8();
    case 'int16': return new A.Int16();
    case 'int32': return new A.Int32();
    case 'int64': return new A.Int64();
    case 'float32': return new A.Float32();
    case 'float64': return new A.Float64();
    case 'decimal': return new A.Decimal(t.scale, t.precision, 128);
    case 'string': return new A.Utf8();
    case 'binary': return new A.Binary();
    case 'date': return new A.DateDay();
    case 'timestamp':
      if (t.unit !== 'us') throw new Error('write_records: only microsecond timestamps');
      return t.utc ? new A.TimestampMicrosecond('UTC') : new A.TimestampMicrosecond();
    case 'struct': return struct(t.fields.map((f) => field(f.name, arrowType(f.type), f.nullable)));
    case 'array': return list(arrowType(t.element));
    case 'map': return map(arrowType(t.key), arrowType(t.value));
    default: throw new Error(`write_records: no Arrow type for ${t.kind}`);
  }
}

class Misfit extends Error {}

function num(v, path) {
  if (!(v instanceof Num)) throw new Misfit(`${path}: expected a number`);
  return v.text;
}

function float(v, path) {
  if (typeof v === 'string') {
    const special = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity }[v];
    if (special === undefined) throw new Misfit(`${path}: not a float: ${v}`);
    return special;
  }
  return Number(num(v, path));
}

function decimal(text, scale, path) {
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(text);
  if (!m || (m[3] ?? '').length > scale) throw new Misfit(`${path}: not a decimal with scale ${scale}: ${text}`);
  const v = BigInt(m[2] + (m[3] ?? '').padEnd(scale, '0'));
  return m[1] ? -v : v;
}

/** A record value (parseJson form) -> the plain value arrow_build takes. */
function convert(t, v, path) {
  if (v === null || v === undefined) return null;
  switch (t.kind) {
    case 'boolean':
      if (typeof v !== 'boolean') throw new Misfit(`${path}: expected a boolean`);
      return v;
    case 'int8': case 'int16': case 'int32': case 'int64': {
      const text = num(v, path);
      const bits = BigInt(t.kind.slice(3));
      if (!/^-?\d+$/.test(text) || BigInt(text) < -(1n << (bits - 1n)) || BigInt(text) >= 1n << (bits - 1n)) {
        throw new Misfit(`${path}: ${text} is not a ${t.kind}`);
      }
      return t.kind === 'int64' ? BigInt(text) : Number(text);
    }
    case 'float32': case 'float64': return float(v, path);
    case 'decimal': return decimal(num(v, path), t.scale, path);
    case 'string':
      if (typeof v !== 'string') throw new Misfit(`${path}: expected a string`);
      return v;
    case 'binary': return new Uint8Array(Buffer.from(v, 'base64'));
    case 'date': {
      const ns = parseTimestampNanos(`${v}T00:00:00`);
      if (ns === null) throw new Misfit(`${path}: not a date: ${v}`);
      return Number(ns / 86400000000000n);
    }
    case 'timestamp': {
      if (typeof v !== 'string' || v.endsWith('Z') !== t.utc) throw new Misfit(`${path}: timestamp form: ${v}`);
      const ns = parseTimestampNanos(v);
      if (ns === null || ns % 1000n !== 0n) throw new Misfit(`${path}: not a timestamp in microseconds: ${v}`);
      return ns / 1000n;
    }
    case 'struct': {
      if (!(v instanceof Obj)) throw new Misfit(`${path}: expected an object`);
      const out = {};
      for (const f of t.fields) {
        const x = convert(f.type, v.get(f.name), path ? `${path}.${f.name}` : f.name);
        if (x === null && !f.nullable) throw new Misfit(`${path ? path + '.' : ''}${f.name}: null in a NOT NULL field`);
        out[f.name] = x;
      }
      return out;
    }
    case 'array':
      if (!Array.isArray(v)) throw new Misfit(`${path}: expected an array`);
      return v.map((x, i) => convert(t.element, x, `${path}[${i}]`));
    case 'map': {
      if (!(v instanceof Obj)) throw new Misfit(`${path}: expected an object`);
      return v.entries.map(([k, x]) => {
        let key = k;
        if (t.key.kind.startsWith('int')) {
          if (!/^-?\d+$/.test(k)) throw new Misfit(`${path}: map key ${k} is not an integer`);
          key = t.key.kind === 'int64' ? BigInt(k) : Number(k);
        } else if (t.key.kind !== 'string') throw new Misfit(`${path}: map keys of ${t.key.kind}`);
        return [key, convert(t.value, x, `${path}[${k}]`)];
      });
    }
    default:
      throw new Misfit(`${path}: no conversion for ${t.kind}`);
  }
}

function main() {
  const args = process.argv.slice(2);
  let codec = 'snappy';
  let v2 = false;
  let dict = true;
  const files = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--codec') codec = args[++i];
    else if (args[i] === '--v2') v2 = true;
    else if (args[i] === '--no-dict') dict = false;
    else files.push(args[i]);
  }
  if (files.length !== 3 || CODECS[codec] === undefined) {
    console.error(usage);
    return 2;
  }
  const [ddlFile, rowsFile, out] = files;
  const schema = parseDdl(readFileSync(ddlFile, 'utf8'));
  const fields = schema.fields.map((f) => field(f.name, arrowType(f.type), f.nullable));
  const lines = readFileSync(rowsFile, 'utf8').split('\n').filter((l) => l !== '');
  const rows = [];
  for (let n = 0; n < lines.length; n++) {
    try {
      rows.push(convert(schema, parseJson(lines[n]), ''));
    } catch (e) {
      console.error(`${rowsFile}:${n + 1}: ${e.message}`);
      return 1;
    }
  }
  const table = tableOf(fields, rows);
  let props = new pw.WriterPropertiesBuilder().setCompression(CODECS[codec]).setDictionaryEnabled(dict);
  if (v2) props = props.setWriterVersion(pw.WriterVersion.V2);
  writeFileSync(out, pw.writeParquet(pw.Table.fromIPCStream(A.tableToIPC(table, 'stream')), props.build()));
  return 0;
}

process.exitCode = main();
