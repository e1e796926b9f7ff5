// The canonical JSON form of a row, shared by read.mjs, write.mjs and compare.mjs.
//
// A row is one JSON object, the schema's columns in order. Values:
//   null                   null
//   boolean                true / false
//   int8..int64            a JSON number with the integer's exact digits (beyond 2^53 too)
//   float64                the shortest text that round-trips the double (String(x)); -0 as -0
//   float32                the shortest text that round-trips the float (0.1, not 0.10000000149011612)
//   NaN, +-infinity        the strings "NaN", "Infinity", "-Infinity"
//   decimal(p,s)           a JSON number with exactly s digits after the point (12.50)
//   string                 a JSON string
//   binary                 base64, RFC 4648, padded
//   date                   "YYYY-MM-DD", proleptic Gregorian
//   timestamp              "YYYY-MM-DDTHH:MM:SS[.fff…]Z" (UTC); the fraction only when non-zero,
//                          trailing zeros trimmed (up to 9 digits for nanosecond units)
//   timestamp_ntz          the same without "Z"
//   time                   "HH:MM:SS[.fff…]"
//   uuid                   8-4-4-4-12, lower case
//   struct                 a JSON object, fields in schema order
//   array                  a JSON array
//   map                    a JSON array of {"key": k, "value": v}, in file order
//
// Values are built as plain JS (null, boolean, string, arrays) plus two classes that keep what
// JSON.stringify would lose: Num (a number's exact text) and Obj (an object's key order, even for
// keys such as "1" that JS objects would move to the front).

/** A JSON number kept as its text. */
export class Num {
  constructor(text) {
    this.text = text;
  }
}

/** A JSON object kept as an ordered list of [key, value] pairs. */
export class Obj {
  constructor(entries) {
    this.entries = entries;
  }
  get(key) {
    const e = this.entries.find(([k]) => k === key);
    return e ? e[1] : undefined;
  }
}

/** Serialise a canonical value (Num, Obj, arrays, strings, booleans, null) to JSON text. */
export function toJson(v) {
  if (v === null || v === undefined) return 'null';
  if (v instanceof Num) return v.text;
  if (v instanceof Obj) {
    return '{' + v.entries.map(([k, x]) => JSON.stringify(k) + ':' + toJson(x)).join(',') + '}';
  }
  if (Array.isArray(v)) return '[' + v.map(toJson).join(',') + ']';
  if (typeof v === 'string' || typeof v === 'boolean') return JSON.stringify(v);
  throw new Error(`toJson: not a canonical value: ${typeof v} ${String(v)}`);
}

// ---- leaves -------------------------------------------------------------------------------

export function int(v) {
  if (typeof v === 'bigint') return new Num(v.toString());
  if (typeof v === 'number' && Number.isSafeInteger(v)) return new Num(String(v));
  throw new Error(`not an integer: ${String(v)}`);
}

function nonFinite(x) {
  if (Number.isNaN(x)) return 'NaN';
  return x > 0 ? 'Infinity' : '-Infinity';
}

export function float64(x) {
  if (typeof x !== 'number') throw new Error(`not a double: ${String(x)}`);
  if (!Number.isFinite(x)) return nonFinite(x);
  if (Object.is(x, -0)) return new Num('-0');
  return new Num(String(x));
}

/** The shortest decimal text that reads back as the same float32. */
export function float32Text(x) {
  const f = Math.fround(x);
  if (Object.is(f, -0)) return '-0';
  for (let p = 1; p <= 9; p++) {
    const d = Number(f.toPrecision(p));
    if (Math.fround(d) === f) return String(d);
  }
  return String(f);
}

export function float32(x) {
  if (typeof x !== 'number') throw new Error(`not a float: ${String(x)}`);
  if (!Number.isFinite(x)) return nonFinite(x);
  return new Num(float32Text(x));
}

/** unscaled: a bigint; the text has exactly `scale` digits after the point. */
export function decimal(unscaled, scale) {
  const neg = unscaled < 0n;
  let digits = (neg ? -unscaled : unscaled).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, '0');
    digits = digits.slice(0, digits.length - scale) + '.' + digits.slice(digits.length - scale);
  }
  return new Num((neg ? '-' : '') + digits);
}

/** Two's complement big-endian bytes (Parquet's FIXED_LEN_BYTE_ARRAY / BYTE_ARRAY decimals). */
export function bigEndianSigned(bytes) {
  if (bytes.length === 0) return 0n;
  let v = 0n;
  for (const b of bytes) v = (v << 8n) | BigInt(b);
  if (bytes[0] & 0x80) v -= 1n << BigInt(bytes.length * 8);
  return v;
}

export function base64(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

export function uuid(bytes) {
  if (bytes.length !== 16) throw new Error(`uuid of ${bytes.length} bytes`);
  const h = Buffer.from(bytes.buffer, bytes.byteOffset, 16).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A uuid held as an unsigned 128-bit integer, most significant byte first. */
export function uuidFromUint128(v) {
  const h = v.toString(16).padStart(32, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const pad = (n, w) => String(n).padStart(w, '0');

/** days since 1970-01-01 -> "YYYY-MM-DD" (proleptic Gregorian; civil-from-days). */
export function date(days) {
  const z = Number(days) + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  const ys = y < 0 ? '-' + pad(-y, 4) : pad(y, 4);
  return `${ys}-${pad(m, 2)}-${pad(d, 2)}`;
}

export const UNIT_DIGITS = { ms: 3, us: 6, ns: 9 };
const PER_SECOND = { ms: 1000n, us: 1000000n, ns: 1000000000n };

function floorDiv(a, b) {
  const q = a / b;
  return a % b !== 0n && (a < 0n) !== (b < 0n) ? q - 1n : q;
}

function clock(unitsOfDay, unit) {
  const per = PER_SECOND[unit];
  const secs = unitsOfDay / per;
  const frac = unitsOfDay % per;
  let s = `${pad(secs / 3600n, 2)}:${pad((secs / 60n) % 60n, 2)}:${pad(secs % 60n, 2)}`;
  if (frac !== 0n) s += '.' + pad(frac, UNIT_DIGITS[unit]).replace(/0+$/, '');
  return s;
}

/** value: bigint (or safe integer) count of `unit` since the epoch. */
export function timestamp(value, unit, utc) {
  const v = BigInt(value);
  const perDay = PER_SECOND[unit] * 86400n;
  const days = floorDiv(v, perDay);
  return `${date(days)}T${clock(v - days * perDay, unit)}${utc ? 'Z' : ''}`;
}

/** value: count of `unit` since midnight. */
export function time(value, unit) {
  return clock(BigInt(value), unit);
}

/** "YYYY-MM-DDTHH:MM:SS[.f...]" (Z or not) -> nanoseconds since the epoch, or null. */
export function parseTimestampNanos(text) {
  const m = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?Z?$/.exec(text);
  if (!m) return null;
  let y = Number(m[1]);
  const mo = Number(m[2]);
  y -= mo <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5) + Number(m[3]) - 1;
  const days = era * 146097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719468;
  const secs = BigInt(days) * 86400n + BigInt(m[4]) * 3600n + BigInt(m[5]) * 60n + BigInt(m[6]);
  return secs * 1000000000n + BigInt((m[7] ?? '').padEnd(9, '0'));
}

// ---- reading canonical rows back (compare.mjs) ---------------------------------------------

/**
 * Parse JSON keeping what compare needs: numbers as Num (their text), objects as Obj (key order
 * and repeated keys). Throws with the offset on malformed input.
 */
export function parseJson(text) {
  let i = 0;
  const fail = (what) => {
    throw new Error(`${what} at offset ${i}`);
  };
  const ws = () => {
    while (i < text.length && ' \t\r\n'.includes(text[i])) i++;
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const entries = [];
      ws();
      if (text[i] === '}') {
        i++;
        return new Obj(entries);
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a key');
        const k = str();
        ws();
        if (text[i] !== ':') fail("expected ':'");
        i++;
        entries.push([k, value()]);
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === '}') {
          i++;
          return new Obj(entries);
        } else fail("expected ',' or '}'");
      }
    }
    if (c === '[') {
      i++;
      const items = [];
      ws();
      if (text[i] === ']') {
        i++;
        return items;
      }
      for (;;) {
        items.push(value());
        ws();
        if (text[i] === ',') i++;
        else if (text[i] === ']') {
          i++;
          return items;
        } else fail("expected ',' or ']'");
      }
    }
    if (c === '"') return str();
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (!m || m[0].length === 0) fail('unexpected character');
    i += m[0].length;
    return new Num(m[0]);
  };
  const str = () => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) fail('unterminated string');
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const v = value();
  ws();
  if (i !== text.length) fail('trailing characters');
  return v;
}

/**
 * An exact decimal value of a JSON number's text: {neg, digits (bigint), exp} meaning
 * digits * 10^exp, normalised so two equal values compare equal field by field.
 */
export function exactDecimal(text) {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return null;
  const frac = m[3] ?? '';
  let digits = BigInt(m[2] + frac);
  let exp = Number(m[4] ?? 0) - frac.length;
  if (digits === 0n) return { neg: false, digits: 0n, exp: 0 };
  while (digits % 10n === 0n) {
    digits /= 10n;
    exp++;
  }
  return { neg: m[1] === '-', digits, exp };
}
