// Write reference Parquet files with writers we did not write, each beside the canonical rows its
// own reader gives back, and a manifest of what each file exercises.
//
//   node tests/parquet/write.mjs [--quick] OUTDIR
//
// OUTDIR gets NAME.parquet + NAME.expected.jsonl for every file and manifest.json:
//   [{ "name", "writer": "duckdb"|"arrow", "codec", "rows", "notes",
//      "skip": { READER: "why that reader cannot read this file exactly" },
//      "exercises": { row_groups, pages, codecs, page_types, encodings } }]  (read back from the file)
// --quick leaves out the 100,000-row files. Exit 0, or 1 with the failing step on standard error.
//
// Writers:
//   duckdb  COPY (SELECT ...) TO ... (FORMAT parquet, ...): every codec DuckDB offers, PARQUET_VERSION
//           V2 (DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, BYTE_STREAM_SPLIT, RLE_DICTIONARY; note
//           DuckDB 1.5 still writes v1 data page headers with it), dictionary off
//           (DICTIONARY_SIZE_LIMIT 0), several row groups. It cannot write data page v2 headers.
//   arrow   arrow-rs (parquet-wasm) from an Arrow JS table: every codec it offers (LZ4 is the
//           deprecated Hadoop-framed codec), writer version 1 and 2 (data page v2), dictionary on
//           and off, per-column DELTA_BINARY_PACKED / DELTA_LENGTH_BYTE_ARRAY / DELTA_BYTE_ARRAY /
//           BYTE_STREAM_SPLIT / RLE (booleans), small pages and a dictionary page limit that makes
//           columns fall back from dictionary to plain mid-chunk, REQUIRED columns, list elements
//           named "item" and map groups named "entries" (Arrow's names; the spec's are "element"
//           and "key_value").
import { createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as A from 'apache-arrow';
import * as pw from 'parquet-wasm';
import { parquetMetadata } from 'hyparquet';
import { READERS } from './readers.mjs';
import { toJson } from './canonical.mjs';
import { field, list, map, struct, tableOf } from './arrow_build.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const outdir = args.filter((a) => a !== '--quick')[0];
if (!outdir || args.length > 2) {
  console.error('usage: node write.mjs [--quick] OUTDIR');
  process.exit(2);
}
mkdirSync(outdir, { recursive: true });
const manifest = [];

// hyparquet's page-header reader is not in its package exports; it is imported by file.
const { parquetHeader } = await import(new URL('./node_modules/hyparquet/src/column.js', import.meta.url));

/**
 * What a file exercises, from its footer and every page header: row groups, codecs, page types
 * and value encodings, each listed once.
 */
function survey(path) {
  const buf = readFileSync(path);
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const md = parquetMetadata(ab);
  const view = new DataView(ab);
  const codecs = new Set();
  const pages = new Set();
  const encodings = new Set();
  let count = 0;
  for (const rg of md.row_groups) {
    for (const col of rg.columns) {
      const m = col.meta_data;
      codecs.add(m.codec);
      let offset = Number(m.dictionary_page_offset ?? m.data_page_offset);
      if (m.dictionary_page_offset !== undefined && Number(m.dictionary_page_offset) === 0) offset = Number(m.data_page_offset);
      const end = offset + Number(m.total_compressed_size);
      while (offset < end) {
        const reader = { view, offset };
        const h = parquetHeader(reader);
        pages.add(h.type);
        const enc = (h.data_page_header ?? h.data_page_header_v2 ?? h.dictionary_page_header)?.encoding;
        if (enc) encodings.add(`${m.type}:${enc}`);
        offset = reader.offset + h.compressed_page_size;
        count++;
      }
    }
  }
  return { row_groups: md.row_groups.length, pages: count, codecs: [...codecs].sort(),
    page_types: [...pages].sort(), encodings: [...encodings].sort() };
}

async function writeExpected(name, reader) {
  const { rows } = await READERS[reader](join(outdir, `${name}.parquet`));
  const out = createWriteStream(join(outdir, `${name}.expected.jsonl`));
  let n = 0;
  let buf = [];
  for await (const row of rows) {
    buf.push(toJson(row));
    n++;
    if (buf.length === 4096) {
      out.write(buf.join('\n') + '\n');
      buf = [];
    }
  }
  if (buf.length) out.write(buf.join('\n') + '\n');
  await new Promise((resolve, reject) => out.end((e) => (e ? reject(e) : resolve())));
  return n;
}

// ---- DuckDB ------------------------------------------------------------------------------------

const DUCKDB_COLUMNS = `
  c_bool BOOLEAN, c_i8 TINYINT, c_i16 SMALLINT, c_i32 INTEGER, c_i64 BIGINT,
  c_f32 FLOAT, c_f64 DOUBLE, c_d4 DECIMAL(4,2), c_d18 DECIMAL(18,3), c_d38 DECIMAL(38,10),
  c_str VARCHAR, c_bin BLOB, c_date DATE, c_ts TIMESTAMPTZ, c_ntz TIMESTAMP, c_ts_ms TIMESTAMP_MS,
  c_ts_ns TIMESTAMP_NS, c_time TIME, c_uuid UUID,
  c_struct STRUCT(a INTEGER, b VARCHAR, c STRUCT(d DOUBLE, e BOOLEAN)),
  c_list INTEGER[], c_list_str VARCHAR[], c_list_list BIGINT[][],
  c_map MAP(VARCHAR, INTEGER), c_map_int MAP(INTEGER, DOUBLE),
  c_nested STRUCT(id BIGINT, tags MAP(VARCHAR, INTEGER[]))[]`;

// Hand-picked rows: ordinary values, each type's extremes, specials and nulls everywhere.
const DUCKDB_ROWS = [
  `(true, 1, 2, 3, 4, 1.5, 2.25, 12.50, 123456789012345.678, 1234567890123456789012345678.0123456789,
    'hello', '\\x01\\x02'::BLOB, DATE '2026-03-14', TIMESTAMPTZ '2026-03-14 09:26:53.123456+00',
    TIMESTAMP '2026-03-14 09:26:53.123456', TIMESTAMP_MS '2026-03-14 09:26:53.123',
    TIMESTAMP_NS '2026-03-14 09:26:53.123456789', TIME '09:26:53.123456',
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', {'a': 1, 'b': 'x', 'c': {'d': 0.5, 'e': true}},
    [1, 2, 3], ['a', NULL, 'ü'], [[1, 2], [], NULL, [3]], MAP {'one': 1, 'two': 2},
    MAP {3: 0.5, 1: -1.0, 2: NULL},
    [{'id': 1, 'tags': MAP {'x': [1, 2], 'y': []}}, {'id': NULL, 'tags': NULL}, NULL])`,
  `(false, -128, -32768, -2147483648, -9223372036854775808, '-inf', 'NaN', -99.99,
    -999999999999999.999, -9999999999999999999999999999.9999999999, '', ''::BLOB,
    DATE '0001-01-01', TIMESTAMPTZ '0001-01-01 00:00:00+00', TIMESTAMP '1969-12-31 23:59:59.999999',
    TIMESTAMP_MS '1969-12-31 23:59:59.999', TIMESTAMP_NS '1969-12-31 23:59:59.999999999',
    TIME '00:00:00', '00000000-0000-0000-0000-000000000000', {'a': NULL, 'b': NULL, 'c': NULL},
    [], [], [], MAP {}, MAP {}, [])`,
  `(NULL, 127, 32767, 2147483647, 9223372036854775807, 'inf', -0.0, 99.99, 999999999999999.999,
    9999999999999999999999999999.9999999999, repeat('ü€😀 long ', 2000), '\\xFF\\x00\\xFE'::BLOB,
    DATE '9999-12-31', TIMESTAMPTZ '9999-12-31 23:59:59.999999+00',
    TIMESTAMP '9999-12-31 23:59:59.999999', TIMESTAMP_MS '9999-12-31 23:59:59.999',
    TIMESTAMP_NS '2262-04-11 23:47:16.854775806', TIME '23:59:59.999999',
    'ffffffff-ffff-ffff-ffff-ffffffffffff', {'a': 2147483647, 'b': '', 'c': {'d': NULL, 'e': NULL}},
    [NULL], [NULL, ''], [[NULL]], MAP {'': NULL}, MAP {0: 'NaN'::DOUBLE}, [{'id': 9, 'tags': MAP {}}])`,
  `(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
    NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
  `(true, 0, 0, 0, 9007199254740993, 1.17549435e-38, 4.9e-324, 0.01, 0.001, 0.0000000001,
    'quote " backslash \\ newline' || chr(10) || 'tab' || chr(9) || 'ctl' || chr(1) || ' 日本語',
    '\\x00'::BLOB, DATE '1582-10-10', TIMESTAMPTZ '1900-01-01 00:00:00.000001+00',
    TIMESTAMP '1970-01-01 00:00:00', TIMESTAMP_MS '1970-01-01 00:00:00.001',
    TIMESTAMP_NS '1970-01-01 00:00:00.000000001', TIME '12:00:00.000001',
    'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', {'a': -1, 'b': 'ß', 'c': {'d': '-inf', 'e': false}},
    [-2147483648, 2147483647], ['😀'], [[9223372036854775807, -9223372036854775808]],
    MAP {'k': NULL, 'ü': -1}, MAP {-5: 1e308}, [{'id': -1, 'tags': MAP {'': NULL}}])`,
  `(false, -1, -1, -1, -9007199254740993, 3.4028235e38, 1.7976931348623157e308, -0.01, -0.001,
    -0.0000000001, 'a', 'ab'::BLOB, DATE '1970-01-01', TIMESTAMPTZ '1970-01-01 00:00:00+00',
    TIMESTAMP '2000-02-29 12:34:56.5', TIMESTAMP_MS '2000-02-29 12:34:56.5',
    TIMESTAMP_NS '2000-02-29 12:34:56.5', TIME '23:59:59', md5('x')::UUID, NULL, NULL, NULL, NULL,
    NULL, NULL, NULL)`,
];

// 100,000 rows from generate_series: every column derived from i, with nulls, empty lists and
// maps, long strings and specials sprinkled by residue.
const DUCKDB_SERIES = (n) => `
  SELECT
    CASE WHEN i % 11 = 0 THEN NULL ELSE i % 2 = 0 END AS c_bool,
    ((i % 256) - 128)::TINYINT AS c_i8,
    ((i * 7) % 65536 - 32768)::SMALLINT AS c_i16,
    CASE WHEN i % 13 = 0 THEN NULL ELSE ((i * 40503) % 4294967296 - 2147483648)::INTEGER END AS c_i32,
    ((hash(i) >> 1)::BIGINT * CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END) AS c_i64,
    CASE WHEN i % 997 = 0 THEN 'NaN'::FLOAT WHEN i % 17 = 0 THEN NULL ELSE (i / 7.0)::FLOAT END AS c_f32,
    CASE WHEN i % 991 = 0 THEN 'inf'::DOUBLE WHEN i % 19 = 0 THEN NULL ELSE i * 1.1 / 3 END AS c_f64,
    printf('%s%d.%02d', CASE WHEN i % 3 = 0 THEN '-' ELSE '' END, i % 100, i % 97)::DECIMAL(4,2) AS c_d4,
    printf('%s%d.%03d', CASE WHEN i % 3 = 1 THEN '-' ELSE '' END, hash(i) % 1000000000000000, i % 1000)::DECIMAL(18,3) AS c_d18,
    CASE WHEN i % 23 = 0 THEN NULL ELSE
      printf('%s%d%d.%010d', CASE WHEN i % 5 = 0 THEN '-' ELSE '' END, hash(i) % 1000000000000000000,
             i % 10, hash(i + 1) % 10000000000)::DECIMAL(38,10) END AS c_d38,
    CASE WHEN i % 29 = 0 THEN NULL WHEN i % 1000 = 7 THEN repeat('long ü ', 1000)
         WHEN i % 5 = 0 THEN 'ünïcødé ' || i ELSE 'row-' || (i % 5000) END AS c_str,
    CASE WHEN i % 31 = 0 THEN NULL ELSE ('b' || (i % 777))::BLOB END AS c_bin,
    DATE '0001-01-01' + ((i * 7919) % 3652059)::INTEGER AS c_date,
    CASE WHEN i % 37 = 0 THEN NULL ELSE
      make_timestamp((hash(i) % 315537897600000000)::BIGINT - 62135596800000000)::TIMESTAMPTZ END AS c_ts,
    make_timestamp((hash(i + 3) % 315537897600000000)::BIGINT - 62135596800000000) AS c_ntz,
    epoch_ms((hash(i + 5) % 315537897600000)::BIGINT - 62135596800000)::TIMESTAMP_MS AS c_ts_ms,
    make_timestamp_ns((hash(i + 7) >> 1)::BIGINT * CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END) AS c_ts_ns,
    TIME '00:00:00' + to_microseconds((hash(i + 9) % 86400000000)::BIGINT) AS c_time,
    CASE WHEN i % 41 = 0 THEN NULL ELSE md5(i::VARCHAR)::UUID END AS c_uuid,
    CASE WHEN i % 43 = 0 THEN NULL ELSE
      {'a': (i % 1000)::INTEGER, 'b': CASE WHEN i % 3 = 0 THEN NULL ELSE 's' || i END,
       'c': CASE WHEN i % 4 = 0 THEN NULL ELSE {'d': i / 4.0, 'e': i % 2 = 1} END} END AS c_struct,
    CASE WHEN i % 47 = 0 THEN NULL ELSE
      list_transform(range(0, i % 6), x -> CASE WHEN x = 3 THEN NULL ELSE (x * i % 100000)::INTEGER END) END AS c_list,
    list_transform(range(0, i % 4), x -> CASE WHEN x = 2 THEN NULL ELSE 'e' || x || '-' || i END) AS c_list_str,
    CASE WHEN i % 53 = 0 THEN NULL ELSE
      list_transform(range(0, i % 3), x -> CASE WHEN (x + i) % 5 = 0 THEN NULL ELSE range(0, (x + i) % 4) END) END AS c_list_list,
    CASE WHEN i % 59 = 0 THEN NULL ELSE
      map_from_entries(list_transform(range(0, i % 5), x -> {'k': 'k' || x || '-' || (i % 7), 'v': CASE WHEN x = 1 THEN NULL ELSE (x * i)::INTEGER END})) END AS c_map,
    map_from_entries(list_transform(range(0, i % 3), x -> {'k': (x * 1000 - i % 1000)::INTEGER, 'v': x / 3.0})) AS c_map_int,
    CASE WHEN i % 61 = 0 THEN NULL ELSE
      list_transform(range(0, i % 3), x -> CASE WHEN x = 2 THEN NULL ELSE
        {'id': x * i, 'tags': CASE WHEN (x + i) % 4 = 0 THEN NULL ELSE
          map_from_entries(list_transform(range(0, (x + i) % 3), y -> {'k': 't' || y, 'v': range(0, (y + i) % 3)::INTEGER[]})) END} END) END AS c_nested
  FROM range(${n}) t(i)`;

// arrow-rs (as parquet-wasm 0.8.0 builds it) rejects a DELTA_BINARY_PACKED block whose min delta
// overflows 64 bits, although Encodings.md says deltas wrap in two's complement; DuckDB writes such
// blocks for c_i64, which holds both -2^63 and 2^63-1 in the hand-picked rows.
const ARROW_DELTA_GAP = { arrow: "arrow-rs fails with \"'min_delta' too large\" on DELTA_BINARY_PACKED deltas that wrap past int64 (the spec allows the wrap)" };

async function duckdbFiles() {
  const { DuckDBInstance } = await import('@duckdb/node-api');
  const instance = await DuckDBInstance.create(':memory:');
  const db = await instance.connect();
  await db.run(`SET TimeZone = 'UTC'`);
  await db.run(`CREATE TABLE types (${DUCKDB_COLUMNS})`);
  for (const r of DUCKDB_ROWS) await db.run(`INSERT INTO types VALUES ${r}`);
  const select = (from) => `SELECT * FROM ${from}`;
  const files = [];
  const add = (name, query, options, codec, notes, rows) => files.push({ name, query, options, codec, notes, rows });
  const typesNote = 'every DuckDB type the model has: ints, float/double with NaN/inf/-0, decimal(4,2)/(18,3)/(38,10) as INT32/INT64/FLBA, strings (non-ASCII, 18 kB), blob, date 0001..9999, TIMESTAMPTZ (UTC-adjusted), TIMESTAMP (ntz), TIMESTAMP_MS, TIMESTAMP_NS, TIME, UUID, struct, lists (nested, empty, null elements), maps (string and int keys, empty), list of struct of map of list, a row of nulls';
  for (const c of ['snappy', 'zstd', 'gzip', 'uncompressed', 'lz4_raw', 'brotli']) {
    add(`duckdb_types_${c}`, select('types'), `COMPRESSION ${c}`, c, `${typesNote}; data page v1, dictionary`, 6);
  }
  add('duckdb_types_v2', select('types'), 'COMPRESSION zstd, PARQUET_VERSION V2', 'zstd',
    'PARQUET_VERSION V2: delta encodings and BYTE_STREAM_SPLIT in v1 data pages (DuckDB writes no v2 page headers)', 6);
  add('duckdb_types_nodict', select('types'), 'COMPRESSION snappy, DICTIONARY_SIZE_LIMIT 0', 'snappy',
    'dictionary off (DICTIONARY_SIZE_LIMIT 0): PLAIN everywhere, data page v1', 6);
  add('duckdb_types_v2_nodict', select('types'), 'COMPRESSION uncompressed, PARQUET_VERSION V2, DICTIONARY_SIZE_LIMIT 0', 'uncompressed',
    'PARQUET_VERSION V2 with the dictionary off: DELTA_BINARY_PACKED ints, DELTA_LENGTH_BYTE_ARRAY strings, BYTE_STREAM_SPLIT floats, v1 page headers', 6);
  add('duckdb_one_row', select('types LIMIT 1'), 'COMPRESSION snappy', 'snappy', 'one row of every type', 1);
  add('duckdb_empty', select('types LIMIT 0'), 'COMPRESSION snappy', 'snappy', 'no rows: a footer and an empty row group (or none)', 0);
  if (!quick) {
    const n = 100000;
    add('duckdb_100k_snappy', DUCKDB_SERIES(n), 'COMPRESSION snappy, ROW_GROUP_SIZE 30000', 'snappy',
      '100,000 generated rows of every type, 4 row groups, dictionary with fallback, data page v1', n);
    add('duckdb_100k_v2_zstd', DUCKDB_SERIES(n), 'COMPRESSION zstd, PARQUET_VERSION V2', 'zstd',
      '100,000 rows, PARQUET_VERSION V2: delta encodings and RLE_DICTIONARY with fallback, v1 page headers', n);
    add('duckdb_100k_v2_nodict', DUCKDB_SERIES(n), 'COMPRESSION gzip, PARQUET_VERSION V2, DICTIONARY_SIZE_LIMIT 0, ROW_GROUP_SIZE 50000', 'gzip',
      '100,000 rows, PARQUET_VERSION V2, dictionary off: DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, BYTE_STREAM_SPLIT, 2 row groups', n);
    add('duckdb_100k_lz4_raw_nodict', DUCKDB_SERIES(n), 'COMPRESSION lz4_raw, DICTIONARY_SIZE_LIMIT 0', 'lz4_raw',
      '100,000 rows, data page v1, PLAIN', n);
  }
  for (const f of files) {
    const path = join(outdir, `${f.name}.parquet`).replaceAll("'", "''");
    await db.run(`COPY (${f.query}) TO '${path}' (FORMAT parquet, ${f.options})`);
    const rows = await writeExpected(f.name, 'duckdb');
    if (rows !== f.rows) throw new Error(`${f.name}: wrote ${f.rows} rows, read back ${rows}`);
    manifest.push({ name: f.name, writer: 'duckdb', codec: f.codec, rows, notes: `${f.notes} (${f.options})`,
      skip: f.query === select('types') && f.options.includes('V2') ? { ...ARROW_DELTA_GAP } : {}, exercises: survey(join(outdir, `${f.name}.parquet`)) });
  }
}

// ---- arrow-rs (parquet-wasm) -----------------------------------------------------------------

function daysFromCivil(y, m, d) {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}
const day = (s) => daysFromCivil(...s.split('-').map(Number));
// "YYYY-MM-DDTHH:MM:SS[.f...]" -> bigint in unit.
function ts(s, unit) {
  const [d, t] = s.split('T');
  const [hms, frac = ''] = t.split('.');
  const [h, mi, se] = hms.split(':').map(BigInt);
  const digits = { ms: 3, us: 6, ns: 9 }[unit];
  const per = 10n ** BigInt(digits);
  return ((BigInt(day(d)) * 86400n + h * 3600n + mi * 60n + se) * per) + BigInt(frac.padEnd(digits, '0').slice(0, digits) || '0');
}
const tod = (s, unit) => ts(`1970-01-01T${s}`, unit);
const bytes = (...b) => new Uint8Array(b);

const ARROW_FIELDS = [
  field('c_bool', new A.Bool()),
  field('c_i8', new A.Int8()),
  field('c_i16', new A.Int16()),
  field('c_i32', new A.Int32()),
  field('c_i64', new A.Int64()),
  field('c_f32', new A.Float32()),
  field('c_f64', new A.Float64()),
  field('c_d4', new A.Decimal(2, 4, 128)),
  field('c_d18', new A.Decimal(3, 18, 128)),
  field('c_d38', new A.Decimal(10, 38, 128)),
  field('c_str', new A.Utf8()),
  field('c_bin', new A.Binary()),
  field('c_date', new A.DateDay()),
  field('c_ts', new A.TimestampMicrosecond('UTC')),
  field('c_ntz', new A.TimestampMicrosecond()),
  field('c_ts_ms', new A.TimestampMillisecond('+00:00')),
  field('c_ts_ns', new A.TimestampNanosecond()),
  field('c_ts_ns_utc', new A.TimestampNanosecond('UTC')),
  field('c_time', new A.TimeMicrosecond()),
  field('c_time_ms', new A.TimeMillisecond()),
  field('c_time_ns', new A.TimeNanosecond()),
  field('c_req_i64', new A.Int64(), false),
  field('c_req_str', new A.Utf8(), false),
  field('c_struct', struct([field('a', new A.Int32()), field('b', new A.Utf8(), false),
    field('c', struct([field('d', new A.Float64()), field('e', new A.Bool())]))])),
  field('c_list', list(new A.Int32())),
  field('c_list_item', list(new A.Utf8(), 'item')),
  field('c_list_req', list(new A.Int64(), 'element', false)),
  field('c_list_list', list(list(new A.Int64()))),
  field('c_map', map(new A.Utf8(), new A.Int32())),
  field('c_map_entries', map(new A.Int32(), new A.Float64(), 'entries')),
  field('c_nested', list(struct([field('id', new A.Int64()),
    field('tags', map(new A.Utf8(), list(new A.Int32())))]))),
];

const ARROW_ROWS = [
  {
    c_bool: true, c_i8: 1, c_i16: 2, c_i32: 3, c_i64: 4n, c_f32: 1.5, c_f64: 2.25, c_d4: 1250n,
    c_d18: 123456789012345678n, c_d38: 12345678901234567890123456780123456789n, c_str: 'hello',
    c_bin: bytes(1, 2), c_date: day('2026-03-14'), c_ts: ts('2026-03-14T09:26:53.123456', 'us'),
    c_ntz: ts('2026-03-14T09:26:53.123456', 'us'), c_ts_ms: ts('2026-03-14T09:26:53.123', 'ms'),
    c_ts_ns: ts('2026-03-14T09:26:53.123456789', 'ns'), c_ts_ns_utc: ts('2026-03-14T09:26:53.123456789', 'ns'),
    c_time: tod('09:26:53.123456', 'us'), c_time_ms: Number(tod('09:26:53.123', 'ms')),
    c_time_ns: tod('09:26:53.123456789', 'ns'), c_req_i64: 1n, c_req_str: 'r',
    c_struct: { a: 1, b: 'x', c: { d: 0.5, e: true } }, c_list: [1, 2, 3], c_list_item: ['a', null, 'ü'],
    c_list_req: [1n, 2n], c_list_list: [[1n, 2n], [], null, [3n]], c_map: [['one', 1], ['two', 2]],
    c_map_entries: [[3, 0.5], [1, -1], [2, null]],
    c_nested: [{ id: 1n, tags: [['x', [1, 2]], ['y', []]] }, { id: null, tags: null }, null],
  },
  {
    c_bool: false, c_i8: -128, c_i16: -32768, c_i32: -2147483648, c_i64: -9223372036854775808n,
    c_f32: -Infinity, c_f64: NaN, c_d4: -9999n, c_d18: -999999999999999999n,
    c_d38: -99999999999999999999999999999999999999n, c_str: '', c_bin: bytes(),
    c_date: day('0001-01-01'), c_ts: ts('0001-01-01T00:00:00', 'us'),
    c_ntz: ts('1969-12-31T23:59:59.999999', 'us'), c_ts_ms: ts('1969-12-31T23:59:59.999', 'ms'),
    c_ts_ns: ts('1969-12-31T23:59:59.999999999', 'ns'), c_ts_ns_utc: ts('1969-12-31T23:59:59.999999', 'ns'),
    c_time: 0n, c_time_ms: 0, c_time_ns: 0n, c_req_i64: -1n, c_req_str: '',
    c_struct: { a: null, b: '', c: null }, c_list: [], c_list_item: [], c_list_req: [],
    c_list_list: [], c_map: [], c_map_entries: [], c_nested: [],
  },
  {
    c_bool: null, c_i8: 127, c_i16: 32767, c_i32: 2147483647, c_i64: 9223372036854775807n,
    c_f32: Infinity, c_f64: -0, c_d4: 9999n, c_d18: 999999999999999999n,
    c_d38: 99999999999999999999999999999999999999n, c_str: 'ü€😀 long '.repeat(2000),
    c_bin: bytes(255, 0, 254), c_date: day('9999-12-31'), c_ts: ts('9999-12-31T23:59:59.999999', 'us'),
    c_ntz: ts('9999-12-31T23:59:59.999999', 'us'), c_ts_ms: ts('9999-12-31T23:59:59.999', 'ms'),
    c_ts_ns: ts('2262-04-11T23:47:16.854775807', 'ns'), c_ts_ns_utc: ts('2262-04-11T23:47:16.854775', 'ns'),
    c_time: tod('23:59:59.999999', 'us'), c_time_ms: Number(tod('23:59:59.999', 'ms')),
    c_time_ns: tod('23:59:59.999999999', 'ns'), c_req_i64: 9223372036854775807n,
    c_req_str: 'ß'.repeat(100), c_struct: { a: 2147483647, b: 'y', c: { d: null, e: null } },
    c_list: [null], c_list_item: [null, ''], c_list_req: [-9223372036854775808n], c_list_list: [[null]],
    c_map: [['', null]], c_map_entries: [[0, NaN]], c_nested: [{ id: 9n, tags: [] }],
  },
  {
    c_req_i64: 0n, c_req_str: 'only the required columns are set',
  },
  {
    c_bool: true, c_i8: 0, c_i16: 0, c_i32: 0, c_i64: 9007199254740993n, c_f32: 1.17549435e-38,
    c_f64: 5e-324, c_d4: 1n, c_d18: 1n, c_d38: 1n,
    c_str: 'quote " backslash \\ newline\ntab\tctl\u0001 日本語', c_bin: bytes(0),
    c_date: day('1582-10-10'), c_ts: ts('1900-01-01T00:00:00.000001', 'us'), c_ntz: 0n, c_ts_ms: 1n,
    c_ts_ns: 1n, c_ts_ns_utc: -1n, c_time: 1n, c_time_ms: 1, c_time_ns: 1n,
    c_req_i64: -9223372036854775808n, c_req_str: '😀',
    c_struct: { a: -1, b: 'ß', c: { d: -Infinity, e: false } }, c_list: [-2147483648, 2147483647],
    c_list_item: ['😀'], c_list_req: [0n], c_list_list: [[9223372036854775807n, -9223372036854775808n]],
    c_map: [['k', null], ['ü', -1]], c_map_entries: [[-5, 1e308]], c_nested: [{ id: -1n, tags: [['', null]] }],
  },
];

function arrowSeries(n) {
  const rows = new Array(n);
  let seed = 0x9e3779b97f4a7c15n;
  const next = () => {
    seed = BigInt.asUintN(64, seed * 6364136223846793005n + 1442695040888963407n);
    return seed;
  };
  for (let i = 0; i < n; i++) {
    const r = next();
    const nul = (k) => i % k === 0;
    rows[i] = {
      c_bool: nul(11) ? null : i % 2 === 0,
      c_i8: (i % 256) - 128,
      c_i16: ((i * 7) % 65536) - 32768,
      c_i32: nul(13) ? null : Number(BigInt.asIntN(32, r)),
      c_i64: BigInt.asIntN(64, r),
      c_f32: nul(997) ? NaN : nul(17) ? null : Math.fround(i / 7),
      c_f64: nul(991) ? -Infinity : nul(19) ? null : (i * 1.1) / 3,
      c_d4: BigInt((i % 19999) - 9999),
      c_d18: BigInt.asIntN(64, r) % 999999999999999999n,
      c_d38: nul(23) ? null : BigInt.asIntN(64, r) * 10000000000000000000n + BigInt(i),
      c_str: nul(29) ? null : i % 1000 === 7 ? 'long ü '.repeat(1000) : i % 5 === 0 ? `ünïcødé ${i}` : `row-${i % 5000}`,
      c_bin: nul(31) ? null : new TextEncoder().encode(`b${i % 777}`),
      c_date: ((i * 7919) % 3652059) - 719162,
      c_ts: nul(37) ? null : BigInt.asIntN(64, r) % 253402300800000000n,
      c_ntz: BigInt.asIntN(64, r) % 62135596800000000n,
      c_ts_ms: BigInt.asIntN(64, r) % 62135596800000n,
      c_ts_ns: BigInt.asIntN(64, r),
      c_ts_ns_utc: BigInt.asIntN(64, r),
      c_time: BigInt.asUintN(64, r) % 86400000000n,
      c_time_ms: Number(BigInt.asUintN(64, r) % 86400000n),
      c_time_ns: BigInt.asUintN(64, r) % 86400000000000n,
      c_req_i64: BigInt(i),
      c_req_str: `req-${i % 300}`,
      c_struct: nul(43) ? null : { a: i % 1000, b: `s${i % 50}`, c: i % 4 === 0 ? null : { d: i / 4, e: i % 2 === 1 } },
      c_list: nul(47) ? null : Array.from({ length: i % 6 }, (_, x) => (x === 3 ? null : (x * i) % 100000)),
      c_list_item: Array.from({ length: i % 4 }, (_, x) => (x === 2 ? null : `e${x}-${i}`)),
      c_list_req: Array.from({ length: i % 3 }, (_, x) => BigInt(x * i)),
      c_list_list: nul(53) ? null : Array.from({ length: i % 3 }, (_, x) =>
        (x + i) % 5 === 0 ? null : Array.from({ length: (x + i) % 4 }, (_, y) => BigInt(y))),
      c_map: nul(59) ? null : Array.from({ length: i % 5 }, (_, x) => [`k${x}-${i % 7}`, x === 1 ? null : x * i]),
      c_map_entries: Array.from({ length: i % 3 }, (_, x) => [x * 1000 - (i % 1000), x / 3]),
      c_nested: nul(61) ? null : Array.from({ length: i % 3 }, (_, x) => (x === 2 ? null : {
        id: BigInt(x * i),
        tags: (x + i) % 4 === 0 ? null : Array.from({ length: (x + i) % 3 }, (_, y) => [`t${y}`, Array.from({ length: (y + i) % 3 }, (_, z) => z)]),
      })),
    };
  }
  return rows;
}

// Leaf column paths and physical types as the file has them, from a default write.
function leafColumns(buffer) {
  const ab = buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength);
  const md = parquetMetadata(ab);
  return md.row_groups[0].columns.map((c) => ({ path: c.meta_data.path_in_schema.join('.'), type: c.meta_data.type }));
}

// Per-column encodings for one "encoding plan"; dictionary off so they apply. parquet-wasm takes a
// column name as a one-part path, so only top-level columns match; nested leaves keep arrow-rs's
// version-2 defaults (DELTA_BINARY_PACKED ints, DELTA_BYTE_ARRAY byte arrays).
function encodingPlan(plan, leaves, builder) {
  for (const { path, type } of leaves) {
    let enc;
    if (plan === 'delta_length') {
      if (type === 'INT32' || type === 'INT64') enc = pw.Encoding.DELTA_BINARY_PACKED;
      else if (type === 'BYTE_ARRAY') enc = pw.Encoding.DELTA_LENGTH_BYTE_ARRAY;
      else if (type === 'BOOLEAN') enc = pw.Encoding.RLE;
    } else if (plan === 'delta_byte_array') {
      if (type === 'INT32' || type === 'INT64') enc = pw.Encoding.DELTA_BINARY_PACKED;
      else if (type === 'BYTE_ARRAY' || type === 'FIXED_LEN_BYTE_ARRAY') enc = pw.Encoding.DELTA_BYTE_ARRAY;
    } else if (plan === 'byte_stream_split') {
      if (type === 'FLOAT' || type === 'DOUBLE') enc = pw.Encoding.BYTE_STREAM_SPLIT;
    }
    if (enc !== undefined) builder = builder.setColumnEncoding(path, enc);
  }
  return builder;
}

async function arrowFiles() {
  const variants = [];
  const add = (name, data, rows, codec, props, notes, skip = {}) => variants.push({ name, data, rows, codec, props, notes, skip });
  const typesNote = 'Arrow types the model has: ints, floats with NaN/inf/-0, Decimal128 (4,2)/(18,3)/(38,10) as INT32/INT64/FLBA, Utf8 (non-ASCII, 20 kB), Binary, Date32, timestamps (UTC and not; ms/us/ns), Time32 ms / Time64 us,ns, REQUIRED columns, struct with a REQUIRED field, lists (element names "element" and "item", REQUIRED elements, nested), maps (int and string keys; arrow-rs names the repeated group "entries"), list of struct of map of list, a row with only the required columns';
  const C = pw.Compression;
  for (const [c, code] of [['uncompressed', C.UNCOMPRESSED], ['snappy', C.SNAPPY], ['gzip', C.GZIP], ['brotli', C.BROTLI], ['zstd', C.ZSTD], ['lz4_raw', C.LZ4_RAW], ['lz4', C.LZ4]]) {
    const skip = c === 'lz4' ? { duckdb: 'DuckDB does not read the deprecated LZ4 codec (Hadoop framing)' } : {};
    add(`arrow_types_${c}`, 'types', ARROW_ROWS.length, c, (b) => b.setCompression(code), `${typesNote}; writer version 1, dictionary on`, skip);
  }
  add('arrow_types_v2', 'types', ARROW_ROWS.length, 'snappy', (b) => b.setCompression(C.SNAPPY).setWriterVersion(pw.WriterVersion.V2),
    'writer version 2: data page v2, dictionary on');
  add('arrow_types_nodict', 'types', ARROW_ROWS.length, 'zstd', (b) => b.setCompression(C.ZSTD).setDictionaryEnabled(false),
    'dictionary off: PLAIN, data page v1');
  add('arrow_types_v2_nodict', 'types', ARROW_ROWS.length, 'uncompressed', (b) => b.setWriterVersion(pw.WriterVersion.V2).setDictionaryEnabled(false),
    'data page v2, dictionary off: PLAIN values, RLE levels in v2 layout');
  for (const plan of ['delta_length', 'delta_byte_array', 'byte_stream_split']) {
    add(`arrow_types_v2_${plan}`, 'types', ARROW_ROWS.length, 'snappy', (b, leaves) =>
      encodingPlan(plan, leaves, b.setCompression(C.SNAPPY).setWriterVersion(pw.WriterVersion.V2).setDictionaryEnabled(false)),
    { delta_length: 'data page v2, DELTA_BINARY_PACKED for INT32/INT64, DELTA_LENGTH_BYTE_ARRAY for BYTE_ARRAY, RLE for booleans',
      delta_byte_array: 'data page v2, DELTA_BINARY_PACKED for INT32/INT64, DELTA_BYTE_ARRAY for BYTE_ARRAY and FIXED_LEN_BYTE_ARRAY',
      byte_stream_split: 'data page v2, BYTE_STREAM_SPLIT for FLOAT/DOUBLE' }[plan]);
  }
  add('arrow_one_row', 'one', 1, 'snappy', (b) => b.setCompression(C.SNAPPY), 'one row of every type');
  add('arrow_empty', 'empty', 0, 'snappy', (b) => b.setCompression(C.SNAPPY), 'no rows');
  if (!quick) {
    const n = 100000;
    add('arrow_100k_snappy_smallpages', 'series', n, 'snappy', (b) => b.setCompression(C.SNAPPY)
      .setMaxRowGroupSize(30000).setDataPageSizeLimit(4096).setDictionaryPageSizeLimit(2048).setWriteBatchSize(1000),
    '100,000 generated rows, 4 row groups, 4 kB pages, 2 kB dictionary pages (dictionary falls back to PLAIN mid-chunk), data page v1');
    add('arrow_100k_v2_zstd', 'series', n, 'zstd', (b) => b.setCompression(C.ZSTD).setWriterVersion(pw.WriterVersion.V2),
      '100,000 rows, data page v2, dictionary on');
    add('arrow_100k_v2_delta', 'series', n, 'lz4_raw', (b, leaves) =>
      encodingPlan('delta_length', leaves, b.setCompression(C.LZ4_RAW).setWriterVersion(pw.WriterVersion.V2).setDictionaryEnabled(false).setDataPageSizeLimit(8192)),
    '100,000 rows, data page v2, DELTA_BINARY_PACKED / DELTA_LENGTH_BYTE_ARRAY / RLE booleans, 8 kB pages');
    add('arrow_100k_v2_delta_byte_array_bss', 'series', n, 'gzip', (b, leaves) =>
      encodingPlan('byte_stream_split', leaves, encodingPlan('delta_byte_array', leaves,
        b.setCompression(C.GZIP).setWriterVersion(pw.WriterVersion.V2).setDictionaryEnabled(false))),
    '100,000 rows, data page v2, DELTA_BYTE_ARRAY strings, BYTE_STREAM_SPLIT floats');
  }
  const datasets = {
    types: () => ARROW_ROWS,
    one: () => ARROW_ROWS.slice(0, 1),
    empty: () => [],
    series: (() => {
      let cache;
      return () => (cache ??= arrowSeries(100000));
    })(),
  };
  let leaves;
  for (const v of variants) {
    const table = tableOf(ARROW_FIELDS, datasets[v.data]());
    const wasm = () => pw.Table.fromIPCStream(A.tableToIPC(table, 'stream'));
    leaves ??= leafColumns(pw.writeParquet(wasm(), new pw.WriterPropertiesBuilder().build()));
    const props = v.props(new pw.WriterPropertiesBuilder(), leaves).build();
    writeFileSync(join(outdir, `${v.name}.parquet`), pw.writeParquet(wasm(), props));
    const rows = await writeExpected(v.name, 'arrow');
    if (rows !== v.rows) throw new Error(`${v.name}: wrote ${v.rows} rows, read back ${rows}`);
    manifest.push({ name: v.name, writer: 'arrow', codec: v.codec, rows, notes: v.notes, skip: { ...v.skip },
      exercises: survey(join(outdir, `${v.name}.parquet`)) });
  }
}

try {
  await duckdbFiles();
  await arrowFiles();
} catch (e) {
  console.error(`write.mjs: ${e.stack ?? e.message}`);
  process.exit(1);
}
writeFileSync(join(outdir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
console.log(`write.mjs: ${manifest.length} files in ${outdir}`);
