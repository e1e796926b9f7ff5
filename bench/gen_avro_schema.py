#!/usr/bin/env python3
"""Write a deterministic Avro schema with about 5,000 fields (nested records, unions, enums,
fixed decimals, arrays, maps, defaults, aliases) for the schema benchmark.

Primitive types with a logicalType (timestamp-micros on a long, date on an int) are left out:
python3-avro 1.11, the peer, writes their Parsing Canonical Form wrongly ({"type":"long"}
instead of "long"), and the run checks that both produce the same canonical form."""
import json
import sys


def build(total_fields):
    count = 0
    top = []
    i = 0
    while count < total_fields:
        kind = i % 10
        name = f"f{i:05d}"
        if kind == 0:
            sub = []
            for j in range(8):
                sub.append({"name": f"s{j}", "type": ["null", "string"], "default": None,
                            "doc": f"nested field {j}"})
            count += 8
            field = {"name": name, "type": {"type": "record", "name": f"R{i:05d}",
                                             "namespace": "bench.nested", "fields": sub}}
        elif kind == 1:
            field = {"name": name, "type": ["null", "long"], "default": None}
        elif kind == 2:
            field = {"name": name, "type": {"type": "enum", "name": f"E{i:05d}",
                                             "symbols": ["A", "B", "C", "D"], "default": "A"}}
        elif kind == 3:
            field = {"name": name, "type": {"type": "fixed", "name": f"D{i:05d}", "size": 8,
                                             "logicalType": "decimal", "precision": 18,
                                             "scale": 2}}
        elif kind == 4:
            field = {"name": name, "type": {"type": "array", "items": {
                "type": "record", "name": f"Item{i:05d}",
                "fields": [{"name": "sku", "type": "string"},
                           {"name": "qty", "type": "int", "default": 1},
                           {"name": "price", "type": "double"}]}}}
            count += 3
        elif kind == 5:
            field = {"name": name, "type": {"type": "map", "values": "string"}}
        elif kind == 6:
            field = {"name": name, "type": "long", "aliases": [f"old_{name}"]}
        elif kind == 7:
            field = {"name": name, "type": "boolean", "default": False}
        elif kind == 8:
            field = {"name": name, "type": "int", "default": 0, "order": "descending"}
        else:
            field = {"name": name, "type": "string", "doc": "a plain string"}
        top.append(field)
        count += 1
        i += 1
    return {"type": "record", "name": "Wide", "namespace": "bench", "doc": "benchmark schema",
            "fields": top}, count


def main():
    out = sys.argv[1]
    total = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    schema, count = build(total)
    with open(out, "w") as f:
        json.dump(schema, f, indent=1)
    print(f"{out}: {count} fields")


if __name__ == "__main__":
    main()
