// Build Arrow JS data from plain JS values exactly (no float milliseconds on the way), for
// write.mjs to hand to arrow-rs through parquet-wasm.
//
// Values by Arrow type: Bool boolean; Int8/16/32 number; Int64 bigint; Float number; Decimal
// bigint (the unscaled value); Utf8 string; Binary and FixedSizeBinary Uint8Array; DateDay number
// of days; Timestamp and Time64 bigint; Time32 number; Struct a plain object; List an array; Map
// an array of [key, value]. null or undefined is null.
import * as A from 'apache-arrow';

function validity(values) {
  const bitmap = new Uint8Array((values.length + 7) >> 3);
  let nulls = 0;
  values.forEach((v, i) => {
    if (v === null || v === undefined) nulls++;
    else bitmap[i >> 3] |= 1 << (i & 7);
  });
  return { nullBitmap: bitmap, nullCount: nulls };
}

function offsetsOf(values, lengthOf) {
  const off = new Int32Array(values.length + 1);
  values.forEach((v, i) => {
    off[i + 1] = off[i] + (v === null || v === undefined ? 0 : lengthOf(v));
  });
  return off;
}

const encoder = new TextEncoder();

/** Data of `type` holding `values`. */
export function build(type, values) {
  const length = values.length;
  const { nullBitmap, nullCount } = validity(values);
  const base = { type, length, nullCount, nullBitmap };
  const present = (f) => values.map((v) => (v === null || v === undefined ? null : f(v)));
  switch (type.typeId) {
    case A.Type.Bool: {
      const data = new Uint8Array((length + 7) >> 3);
      values.forEach((v, i) => {
        if (v) data[i >> 3] |= 1 << (i & 7);
      });
      return A.makeData({ ...base, data });
    }
    case A.Type.Int: {
      const Arr = { 8: Int8Array, 16: Int16Array, 32: Int32Array, 64: BigInt64Array }[type.bitWidth];
      const zero = type.bitWidth === 64 ? 0n : 0;
      return A.makeData({ ...base, data: Arr.from(values, (v) => v ?? zero) });
    }
    case A.Type.Float: {
      const Arr = type.precision === 1 ? Float32Array : Float64Array;
      return A.makeData({ ...base, data: Arr.from(values, (v) => v ?? 0) });
    }
    case A.Type.Decimal: {
      const words = type.bitWidth / 32;
      const data = new Uint32Array(length * words);
      values.forEach((v, i) => {
        if (v === null || v === undefined) return;
        let u = BigInt.asUintN(type.bitWidth, v);
        for (let w = 0; w < words; w++) {
          data[i * words + w] = Number(u & 0xffffffffn);
          u >>= 32n;
        }
      });
      return A.makeData({ ...base, data });
    }
    case A.Type.Utf8:
    case A.Type.Binary: {
      const bytes = present((v) => (typeof v === 'string' ? encoder.encode(v) : v));
      const valueOffsets = offsetsOf(bytes, (b) => b.length);
      const data = new Uint8Array(valueOffsets[length]);
      bytes.forEach((b, i) => b && data.set(b, valueOffsets[i]));
      return A.makeData({ ...base, valueOffsets, data });
    }
    case A.Type.FixedSizeBinary: {
      const data = new Uint8Array(length * type.byteWidth);
      values.forEach((v, i) => v && data.set(v, i * type.byteWidth));
      return A.makeData({ ...base, data });
    }
    case A.Type.Date:
      return A.makeData({ ...base, data: Int32Array.from(values, (v) => v ?? 0) });
    case A.Type.Timestamp:
      return A.makeData({ ...base, data: BigInt64Array.from(values, (v) => v ?? 0n) });
    case A.Type.Time:
      if (type.bitWidth === 64) return A.makeData({ ...base, data: BigInt64Array.from(values, (v) => v ?? 0n) });
      return A.makeData({ ...base, data: Int32Array.from(values, (v) => v ?? 0) });
    case A.Type.Struct:
      return A.makeData({
        ...base,
        children: type.children.map((f) => build(f.type, values.map((v) => (v ? v[f.name] : null)))),
      });
    case A.Type.List: {
      const valueOffsets = offsetsOf(values, (v) => v.length);
      const child = build(type.children[0].type, values.flatMap((v) => v ?? []));
      return A.makeData({ ...base, valueOffsets, child });
    }
    case A.Type.Map: {
      const valueOffsets = offsetsOf(values, (v) => v.length);
      const entries = values.flatMap((v) => v ?? []);
      const entryType = type.children[0].type;
      const child = A.makeData({
        type: entryType,
        length: entries.length,
        nullCount: 0,
        children: [
          build(entryType.children[0].type, entries.map((e) => e[0])),
          build(entryType.children[1].type, entries.map((e) => e[1])),
        ],
      });
      return A.makeData({ ...base, valueOffsets, child });
    }
    default:
      throw new Error(`arrow_build: no builder for ${String(type)}`);
  }
}

/** An Arrow JS table of `fields` (A.Field[]) from row objects. */
export function tableOf(fields, rows) {
  const struct = new A.Struct(fields);
  const data = A.makeData({
    type: struct,
    length: rows.length,
    nullCount: 0,
    children: fields.map((f) => build(f.type, rows.map((r) => r[f.name]))),
  });
  return new A.Table(new A.RecordBatch(new A.Schema(fields), data));
}

export const list = (type, name = 'element', nullable = true) => new A.List(new A.Field(name, type, nullable));
export const map = (key, value, name = 'key_value') =>
  new A.Map_(new A.Field(name, new A.Struct([new A.Field('key', key, false), new A.Field('value', value, true)]), false));
export const struct = (fields) => new A.Struct(fields);
export const field = (name, type, nullable = true, metadata = null) => new A.Field(name, type, nullable, metadata);
