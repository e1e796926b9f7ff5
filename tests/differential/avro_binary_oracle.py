#!/usr/bin/env python3
"""The oracle of the Avro binary differential test: Debian's python3-avro (1.11) encodes and
decodes the same datums as sluice's data::EncodeAvro / DecodeAvro.

    avro_binary_oracle.py generate --seed S --per-schema N CASES.json OUT.jsonl
    avro_binary_oracle.py decode IN.jsonl OUT.jsonl

generate: for every schema of CASES.json ("encoding" schemas, "resolution" writer/reader pairs)
and a few richer ones of its own, N seeded random datums, each written with python-avro's
DatumWriter. A line holds the writer (and reader) schema text, the datum in Avro's JSON encoding
(`json`, unions tagged with the branch python-avro writes), its plain value (`plain`: no union
tags, bytes as code points U+0000..U+00FF), the bytes as hex, and, for a pair, the plain value
python-avro's DatumReader resolves it to (`resolved`) or the exception it raised
(`resolve_error`).

decode: for every line {id, writer, reader (or null), hex}, the plain value python-avro reads
(`plain`) or the exception (`error`); bytes left after the datum are an error.

Logical types are taken off the schemas python-avro sees: sluice carries them as their underlying
values, which is what python-avro writes and reads without them. Exits 77 when python3-avro is
missing.
"""
import io
import json
import math
import random
import sys
import warnings

try:
    import avro.io
    import avro.schema
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"python3-avro is not usable: {e}", file=sys.stderr)
    sys.exit(77)

warnings.simplefilter("ignore")

# Richer schemas than the hand-written cases: nesting, unions of named types, recursion.
EXTRA_SCHEMAS = [
    {"type": "record", "name": "Order", "namespace": "shop", "fields": [
        {"name": "id", "type": "long"},
        {"name": "lines", "type": {"type": "array", "items": {
            "type": "record", "name": "Line", "fields": [
                {"name": "sku", "type": "string"},
                {"name": "qty", "type": "int"},
                {"name": "tags", "type": {"type": "map", "values": [
                    "null", "string", "long", "double", "bytes"]}}]}}},
        {"name": "note", "type": ["null", "string"], "default": None},
        {"name": "state", "type": {"type": "enum", "name": "State", "symbols": ["A", "B", "C"]}},
        {"name": "digest", "type": {"type": "fixed", "name": "Digest", "size": 6}},
        {"name": "weights", "type": {"type": "map", "values": {"type": "array", "items": "float"}}},
    ]},
    ["null", {"type": "record", "name": "Cat", "fields": [{"name": "lives", "type": "int"}]},
     {"type": "record", "name": "Dog", "fields": [{"name": "good", "type": "boolean"}]},
     {"type": "enum", "name": "Fish", "symbols": ["COD", "EEL"]},
     {"type": "fixed", "name": "Egg", "size": 2}, "string"],
    {"type": "record", "name": "Tree", "fields": [
        {"name": "value", "type": "int"},
        {"name": "children", "type": {"type": "array", "items": "Tree"}}]},
    {"type": "record", "name": "Times", "fields": [
        {"name": "at", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "day", "type": {"type": "int", "logicalType": "date"}},
        {"name": "amount", "type": {"type": "fixed", "name": "Dec", "size": 8,
                                    "logicalType": "decimal", "precision": 18, "scale": 4}},
        {"name": "uid", "type": {"type": "string", "logicalType": "uuid"}}]},
]

# Writer/reader pairs of its own: evolution of the richer records.
EXTRA_PAIRS = [
    ({"type": "record", "name": "R", "fields": [
        {"name": "a", "type": "int"},
        {"name": "gone", "type": {"type": "array", "items": {"type": "map", "values": [
            "null", "string", {"type": "record", "name": "G", "fields": [
                {"name": "x", "type": "double"}]}]}}},
        {"name": "u", "type": ["null", "int", "string"]},
        {"name": "f", "type": "float"}]},
     {"type": "record", "name": "R", "fields": [
         {"name": "f", "type": "double"},
         {"name": "u", "type": ["string", "null", "long"]},
         {"name": "a", "type": "long"},
         {"name": "added", "type": {"type": "array", "items": "int"}, "default": [1, 2]}]}),
    ({"type": "record", "name": "Tree", "fields": [
        {"name": "value", "type": "int"},
        {"name": "children", "type": {"type": "array", "items": "Tree"}}]},
     {"type": "record", "name": "Tree", "fields": [
         {"name": "value", "type": "double"},
         {"name": "label", "type": ["null", "string"], "default": None},
         {"name": "children", "type": {"type": "array", "items": "Tree"}}]}),
]

STRING_POOL = ["", "a", "z", "0", " ", "\u00e9", "\u20ac", "\U0001f600", "\n", "\t", "\"",
               "\\", "\u0001", "\u007f", "\u00ff", "\ufeff", "ab", "key"]
INT_EDGES = [0, 1, -1, 63, 64, -64, -65, 127, 128, 2**31 - 1, -2**31]
LONG_EDGES = INT_EDGES + [2**31, -2**31 - 1, 2**53 + 1, 2**63 - 1, -2**63]
DOUBLE_EDGES = [0.0, -0.0, 1.0, -2.5, 0.1, 1e-300, 5e-324, 1.7976931348623157e308, 123456.789]


def strip_logical(node):
    if isinstance(node, dict):
        return {k: strip_logical(v) for k, v in node.items() if k != "logicalType"}
    if isinstance(node, list):
        return [strip_logical(v) for v in node]
    return node


def parse(schema_json):
    return avro.schema.parse(json.dumps(strip_logical(schema_json)))


def branch_name(s):
    return s.fullname if hasattr(s, "fullname") and s.type in ("record", "enum", "fixed", "error") \
        else s.type


def gen(rng, s, depth):
    t = s.type
    if t == "null":
        return None
    if t == "boolean":
        return rng.random() < 0.5
    if t == "int":
        return rng.choice(INT_EDGES) if rng.random() < 0.5 else rng.randint(-2**31, 2**31 - 1)
    if t == "long":
        return rng.choice(LONG_EDGES) if rng.random() < 0.5 else rng.randint(-2**63, 2**63 - 1)
    if t == "float":
        # Values with at most 16 significant bits: exact in a float, and their shortest float
        # text is their exact decimal, so JSON carries them without rounding.
        return rng.randint(-2**12, 2**12) / 2 ** rng.randint(0, 4)
    if t == "double":
        return rng.choice(DOUBLE_EDGES) if rng.random() < 0.4 else rng.uniform(-1e9, 1e9)
    if t == "bytes":
        return bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 6)))
    if t == "string":
        return "".join(rng.choice(STRING_POOL) for _ in range(rng.randint(0, 4)))
    if t == "enum":
        return rng.choice(s.symbols)
    if t == "fixed":
        return bytes(rng.randint(0, 255) for _ in range(s.size))
    if t == "array":
        n = 0 if depth > 4 else rng.randint(0, 3)
        return [gen(rng, s.items, depth + 1) for _ in range(n)]
    if t == "map":
        n = 0 if depth > 4 else rng.randint(0, 3)
        keys = rng.sample(STRING_POOL, n)
        return {k: gen(rng, s.values, depth + 1) for k in keys}
    if t in ("record", "error"):
        return {f.name: gen(rng, f.type, depth + 1) for f in s.fields}
    if t == "union":
        branches = s.schemas
        if depth > 4:
            flat = [b for b in branches if b.type not in ("record", "array", "map")]
            branches = flat or branches
        return gen(rng, rng.choice(branches), depth + 1)
    raise ValueError("unknown type " + t)


def union_branch(s, datum):
    """The branch python-avro's DatumWriter.write_union picks: the last one that validates."""
    index = -1
    for i, b in enumerate(s.schemas):
        if avro.io.validate(b, datum):
            index = i
    return s.schemas[index]


def to_json(s, datum):
    """Avro's JSON encoding of `datum`, with unions tagged as python-avro writes them."""
    t = s.type
    if t in ("bytes", "fixed"):
        return datum.decode("latin-1")
    if t in ("float", "double"):
        return float(datum)
    if t == "array":
        return [to_json(s.items, x) for x in datum]
    if t == "map":
        return {k: to_json(s.values, v) for k, v in datum.items()}
    if t in ("record", "error"):
        return {f.name: to_json(f.type, datum[f.name]) for f in s.fields}
    if t == "union":
        b = union_branch(s, datum)
        return None if b.type == "null" else {branch_name(b): to_json(b, datum)}
    return datum


def to_plain(datum):
    if isinstance(datum, float) and not math.isfinite(datum):
        # What JSON cannot hold, as sluice (and Jackson) write it.
        return "NaN" if math.isnan(datum) else ("Infinity" if datum > 0 else "-Infinity")
    if isinstance(datum, bytes):
        return datum.decode("latin-1")
    if isinstance(datum, list):
        return [to_plain(x) for x in datum]
    if isinstance(datum, dict):
        return {k: to_plain(v) for k, v in datum.items()}
    return datum


def encode(schema, datum):
    out = io.BytesIO()
    avro.io.DatumWriter(schema).write(datum, avro.io.BinaryEncoder(out))
    return out.getvalue()


def decode(writer, reader, data):
    buf = io.BytesIO(data)
    datum = avro.io.DatumReader(writer, reader).read(avro.io.BinaryDecoder(buf))
    if buf.tell() != len(data):
        raise ValueError(f"{len(data) - buf.tell()} bytes after the datum")
    return datum


def generate(seed, per_schema, cases_path, out_path):
    cases = json.load(open(cases_path))
    subjects = []  # (source, writer json, reader json or None)
    for c in cases["encoding"]:
        subjects.append(("encoding: " + c["name"], c["schema"], None))
    for c in cases["resolution"]:
        subjects.append(("resolution: " + c["name"], c["writer"], c["reader"]))
    for i, s in enumerate(EXTRA_SCHEMAS):
        subjects.append((f"extra schema {i}", s, None))
    for i, (w, r) in enumerate(EXTRA_PAIRS):
        subjects.append((f"extra pair {i}", w, r))
    rng = random.Random(seed)
    n = 0
    with open(out_path, "w") as out:
        for source, writer_json, reader_json in subjects:
            try:
                writer = parse(writer_json)
                reader = parse(reader_json) if reader_json is not None else None
            except Exception as e:  # noqa: BLE001 - reported, not raised
                out.write(json.dumps({"id": n, "source": source, "skipped": str(e)[:200]}) + "\n")
                n += 1
                continue
            for _ in range(per_schema):
                datum = gen(rng, writer, 0)
                line = {"id": n, "source": source, "writer": json.dumps(writer_json),
                        "reader": json.dumps(reader_json) if reader_json is not None else None,
                        "json": to_json(writer, datum), "plain": to_plain(datum),
                        "hex": encode(writer, datum).hex()}
                if reader is not None:
                    try:
                        line["resolved"] = to_plain(decode(writer, reader,
                                                           bytes.fromhex(line["hex"])))
                    except Exception as e:  # noqa: BLE001
                        line["resolve_error"] = f"{type(e).__name__}: {str(e)[:200]}"
                out.write(json.dumps(line) + "\n")
                n += 1


def decode_lines(in_path, out_path):
    with open(in_path) as lines, open(out_path, "w") as out:
        for text in lines:
            line = json.loads(text)
            row = {"id": line["id"]}
            try:
                writer = parse(json.loads(line["writer"]))
                reader = parse(json.loads(line["reader"])) if line.get("reader") else None
                row["plain"] = to_plain(decode(writer, reader, bytes.fromhex(line["hex"])))
            except Exception as e:  # noqa: BLE001
                row["error"] = f"{type(e).__name__}: {str(e)[:200]}"
            out.write(json.dumps(row) + "\n")


def main():
    sys.setrecursionlimit(20000)
    args = sys.argv[1:]
    if args and args[0] == "generate" and len(args) == 7:
        generate(int(args[2]), int(args[4]), args[5], args[6])
    elif args and args[0] == "decode" and len(args) == 3:
        decode_lines(args[1], args[2])
    else:
        print(__doc__, file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
