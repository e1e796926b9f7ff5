// Compare two files of canonical rows (canonical.mjs), one JSON object per line.
//
//   node tests/parquet/compare.mjs [--schema DDL] [--reader NAME] [--max N] EXPECTED ACTUAL
//
// Exit 0 when they agree, 1 with the first N (default 10) differences on standard output, each
// with its row number (1-based) and column path (a.b[2].key), 2 for usage or unreadable input.
//
// Rules:
// - objects: the same keys in the same order; arrays: the same length, element by element;
//   strings, booleans and null exactly.
// - numbers by exact decimal value (12.5 = 12.50; 9007199254740993 is not 9007199254740992),
//   except -0 (written -0, -0.0, ...), which equals only -0.
// - with --schema (a Spark DDL column list, ddl.mjs), values at a FLOAT path are equal when
//   Math.fround of both is equal and at a DOUBLE path when they parse to the same double; NaN and
//   infinities are the strings "NaN", "Infinity", "-Infinity" either way. Without a schema
//   numbers must be equal as decimals, so both sides must print float32 in its shortest form.
// - --reader NAME accepts that reader's documented gap, and only it:
//     duckdb   a UTC timestamp with a nanosecond fraction in EXPECTED may read back as its
//              nanoseconds divided by 1000 toward zero (DuckDB reads TIMESTAMP(NANOS,
//              isAdjustedToUTC=true) as TIMESTAMPTZ, which holds microseconds).
import { readFileSync } from 'node:fs';
import { exactDecimal, Num, Obj, parseJson, parseTimestampNanos, timestamp } from './canonical.mjs';
import { parseDdl } from './ddl.mjs';

const usage = 'usage: node compare.mjs [--schema DDL] [--reader duckdb|arrow|hyparquet] [--max N] EXPECTED ACTUAL';

// Each reader's documented gaps: (expected string, actual string) -> true when the gap explains
// the difference.
const TOLERANCES = {
  duckdb: {
    // DuckDB divides the nanoseconds by 1000 (toward zero) into a TIMESTAMPTZ.
    utcNanosAsMicros(e, a) {
      if (!/\.\d{7,9}Z$/.test(e) || !a.endsWith('Z')) return false;
      const ns = parseTimestampNanos(e);
      return ns !== null && a === timestamp(ns / 1000n, 'us', true);
    },
  },
  arrow: {},
  hyparquet: {},
};

function render(v) {
  if (v === undefined) return '(absent)';
  if (v === null) return 'null';
  if (v instanceof Num) return v.text;
  if (v instanceof Obj) return '{' + v.entries.map(([k, x]) => JSON.stringify(k) + ':' + render(x)).join(',') + '}';
  if (Array.isArray(v)) return '[' + v.map(render).join(',') + ']';
  const s = JSON.stringify(v);
  return s.length > 120 ? s.slice(0, 117) + '..."' : s;
}

function numbersEqual(type, a, b) {
  if (a === b) return true;
  const x = exactDecimal(a);
  const y = exactDecimal(b);
  // -0 (any spelling: -0, -0.0, -0e0) equals only -0.
  const negZero = (t, d) => d !== null && d.digits === 0n && t.startsWith('-');
  if (negZero(a, x) !== negZero(b, y)) return false;
  if (x && y && x.neg === y.neg && x.digits === y.digits && x.exp === y.exp) return true;
  if (type?.kind === 'float64') return Number(a) === Number(b);
  if (type?.kind === 'float32') return Math.fround(Number(a)) === Math.fround(Number(b));
  return false;
}

function compareValues(type, e, a, path, tolerance, out) {
  const diff = (why) => out.push({ path, why: why ?? `expected ${render(e)}, got ${render(a)}` });
  if (e === null || a === null || typeof e !== 'object' || typeof a !== 'object') {
    if (e === a) return;
    if (typeof e === 'string' && typeof a === 'string' && tolerance.some((t) => t(e, a))) return;
    return diff();
  }
  if (e instanceof Num || a instanceof Num) {
    if (!(e instanceof Num && a instanceof Num) || !numbersEqual(type, e.text, a.text)) diff();
    return;
  }
  if (Array.isArray(e) || Array.isArray(a)) {
    if (!Array.isArray(e) || !Array.isArray(a)) return diff();
    if (e.length !== a.length) {
      return diff(`expected ${e.length} elements, got ${a.length}: expected ${render(e)}, got ${render(a)}`);
    }
    const element = type?.kind === 'array' ? type.element : undefined;
    for (let i = 0; i < e.length; i++) {
      let t = element;
      if (type?.kind === 'map') t = { kind: 'struct', fields: [{ name: 'key', type: type.key }, { name: 'value', type: type.value }] };
      compareValues(t, e[i], a[i], `${path}[${i}]`, tolerance, out);
    }
    return;
  }
  if (!(e instanceof Obj && a instanceof Obj)) return diff();
  const ek = e.entries.map(([k]) => k);
  const ak = a.entries.map(([k]) => k);
  if (ek.join('\u0000') !== ak.join('\u0000')) {
    return diff(`expected keys ${JSON.stringify(ek)}, got ${JSON.stringify(ak)}`);
  }
  for (let i = 0; i < ek.length; i++) {
    const t = type?.kind === 'struct' ? type.fields.find((f) => f.name === ek[i])?.type : undefined;
    compareValues(t, e.entries[i][1], a.entries[i][1], path ? `${path}.${ek[i]}` : ek[i], tolerance, out);
  }
}

function lines(file) {
  const text = readFileSync(file, 'utf8');
  const ls = text.split('\n');
  if (ls.length && ls[ls.length - 1] === '') ls.pop();
  return ls;
}

function main() {
  const args = process.argv.slice(2);
  let schema;
  let reader;
  let max = 10;
  const files = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--schema') schema = parseDdl(readFileSync(args[++i], 'utf8'));
    else if (args[i] === '--reader') reader = args[++i];
    else if (args[i] === '--max') max = Number(args[++i]);
    else files.push(args[i]);
  }
  if (files.length !== 2 || (reader !== undefined && !TOLERANCES[reader]) || !(max > 0)) {
    console.error(usage);
    return 2;
  }
  const tolerance = Object.values(TOLERANCES[reader] ?? {});
  const [el, al] = files.map(lines);
  const found = [];
  let differingRows = 0;
  const n = Math.min(el.length, al.length);
  for (let r = 0; r < n; r++) {
    if (el[r] === al[r]) continue;
    let e;
    let a;
    try {
      e = parseJson(el[r]);
    } catch (err) {
      console.error(`${files[0]}:${r + 1}: ${err.message}`);
      return 2;
    }
    try {
      a = parseJson(al[r]);
    } catch (err) {
      console.error(`${files[1]}:${r + 1}: ${err.message}`);
      return 2;
    }
    const out = [];
    compareValues(schema, e, a, '', tolerance, out);
    if (out.length) {
      differingRows++;
      for (const d of out) if (found.length < max) found.push(`row ${r + 1}, column ${d.path || '(row)'}: ${d.why}`);
    }
  }
  if (el.length !== al.length) {
    found.unshift(`row count: expected ${el.length}, got ${al.length}`);
  }
  if (found.length === 0) {
    console.log(`same: ${el.length} rows`);
    return 0;
  }
  for (const f of found.slice(0, max)) console.log(f);
  console.log(`${differingRows} of ${n} rows differ${el.length !== al.length ? ', and the row counts differ' : ''}`);
  return 1;
}

process.exitCode = main();
