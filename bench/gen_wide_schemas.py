#!/usr/bin/env python3
"""Write the wide and hostile schemas of bench/wide-schemas into a folder.

    gen_wide_schemas.py DIR N

Every shape has about N columns, keys, symbols or branches: one wide record in every schema
language sluice reads (Spark DDL and JSON, Avro, JSON Schema, the seed contract YAML, ODCS, DCS),
a second version of it (N columns too: every tenth dropped, as many new ones added at the end,
every twelfth widened from INT to BIGINT) and one with the columns in reverse order; Avro enums
with N symbols and unions with N/4 branches; records nested 120 deep with N/2 leaves of long
names; JSON Schema with N $defs and $refs, N patternProperties, N enum values; contracts with N/8
models of 8 fields each. Deterministic: the same N writes the same bytes."""
import json
import os
import sys

# The column types of the flat shapes, in every language (cycled by column index). Each row:
# Spark DDL, Spark JSON, Avro, JSON Schema, seed contract, ODCS logicalType, DCS type.
TYPES = [
    ("BIGINT", "long", "long", {"type": "integer"}, "long", "integer", "long"),
    ("STRING", "string", "string", {"type": "string"}, "string", "string", "string"),
    ("DOUBLE", "double", "double", {"type": "number"}, "double", "number", "double"),
    ("INT", "integer", "int", {"type": "integer", "maximum": 2147483647,
                               "minimum": -2147483648}, "int", "integer", "int"),
    ("BOOLEAN", "boolean", "boolean", {"type": "boolean"}, "boolean", "boolean", "boolean"),
    ("DATE", "date", {"type": "int", "logicalType": "date"},
     {"type": "string", "format": "date"}, "date", "date", "date"),
]


def col(i):
    return f"column_{i:06d}"


# The second version's column types: every twelfth column, an INT in the first, is a BIGINT.
WIDENED = set()


def row(i):
    return TYPES[0] if i in WIDENED else TYPES[i % len(TYPES)]


def ddl(names, nullable_every=3):
    parts = []
    for i in names:
        t = row(i)[0]
        parts.append(f"{col(i)} {t}" + (" NOT NULL" if i % nullable_every == 0 else ""))
    return ",\n".join(parts) + "\n"


def spark_json(names):
    fields = [{"name": col(i), "type": row(i)[1], "nullable": i % 3 != 0,
               "metadata": {}} for i in names]
    return json.dumps({"type": "struct", "fields": fields}) + "\n"


def avro(names, optional_from=None):
    fields = []
    for i in names:
        t = row(i)[2]
        if optional_from is not None and i >= optional_from:
            fields.append({"name": col(i), "type": ["null", t], "default": None})
        else:
            fields.append({"name": col(i), "type": t})
    return json.dumps({"type": "record", "name": "wide", "namespace": "bench.wide",
                       "fields": fields}) + "\n"


def json_schema(names, required):
    props = {col(i): row(i)[3] for i in names}
    doc = {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "wide",
           "type": "object", "properties": props}
    if required:
        doc["required"] = [col(i) for i in names]
    return json.dumps(doc) + "\n"


def seed_contract(names):
    lines = ["version: 1.0", "required_columns:"]
    for i in names:
        lines += [f"  - name: {col(i)}", f"    type: {row(i)[4]}",
                  f"    nullable: {'false' if i % 3 == 0 else 'true'}"]
    lines += ["allowed_new_columns: true", "allowed_type_changes: false",
              "allowed_column_removal: false"]
    return "\n".join(lines) + "\n"


def odcs(models):
    lines = ["apiVersion: v3.0.2", "kind: DataContract", "id: urn:bench:wide", "version: 1.0.0",
             "status: active", "schema:"]
    for name, cols in models:
        lines += [f"  - name: {name}", "    logicalType: object", "    properties:"]
        for i in cols:
            lines += [f"      - name: {col(i)}", f"        logicalType: {row(i)[5]}",
                      f"        required: {'true' if i % 3 == 0 else 'false'}"]
    return "\n".join(lines) + "\n"


def dcs(models):
    lines = ["dataContractSpecification: 1.1.0", "id: urn:bench:wide", "info:",
             "  title: wide", "  version: 1.0.0", "models:"]
    for name, cols in models:
        lines += [f"  {name}:", "    type: table", "    fields:"]
        for i in cols:
            lines += [f"      {col(i)}:", f"        type: {row(i)[6]}",
                      f"        required: {'true' if i % 3 == 0 else 'false'}"]
    return "\n".join(lines) + "\n"


def avro_enum(n):
    symbols = [f"S{i:06d}" for i in range(n)]
    return json.dumps({"type": "record", "name": "with_enum", "fields": [
        {"name": "status", "type": {"type": "enum", "name": "status_t", "symbols": symbols}}]}) + "\n"


def avro_union(n):
    branches = ["null"] + [{"type": "record", "name": f"Branch{i:06d}",
                            "fields": [{"name": "v", "type": "long"}]} for i in range(n)]
    return json.dumps({"type": "record", "name": "with_union", "fields": [
        {"name": "payload", "type": branches, "default": None}]}) + "\n"


def avro_deep(n, depth=120, name_len=64):
    # depth records nested one in the other, n leaves spread over the levels, every name long:
    # the deepest paths are depth * name_len bytes. The leaves are optional, so that the notes
    # (which name each field they concern) stay few.
    per = max(1, n // depth)
    inner = None
    for d in reversed(range(depth)):
        fields = [{"name": f"level{d:03d}_" + "x" * name_len + f"_{j:05d}",
                   "type": ["null", "long"], "default": None} for j in range(per)]
        if inner is not None:
            fields.append({"name": f"nested{d:03d}_" + "y" * name_len, "type": inner})
        inner = {"type": "record", "name": f"Level{d:03d}", "fields": fields}
    return json.dumps(inner) + "\n"


def json_schema_refs(n):
    defs = {f"def_{i:06d}": row(i)[3] for i in range(n)}
    props = {col(i): {"$ref": f"#/$defs/def_{i:06d}"} for i in range(n)}
    return json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema",
                       "type": "object", "$defs": defs, "properties": props}) + "\n"


def json_schema_patterns(n):
    pats = {f"^p{i:06d}_": {"type": "string"} for i in range(n)}
    return json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema",
                       "type": "object", "patternProperties": pats}) + "\n"


def json_schema_enum(n):
    return json.dumps({"$schema": "https://json-schema.org/draft/2020-12/schema",
                       "type": "object", "properties": {
                           "status": {"type": "string",
                                      "enum": [f"S{i:06d}" for i in range(n)]}}}) + "\n"


def main():
    out, n = sys.argv[1], int(sys.argv[2])
    os.makedirs(out, exist_ok=True)
    all_cols = list(range(n))
    v2_cols = [i for i in all_cols if i % 10 != 5] + list(range(n, n + n // 10))
    reversed_cols = list(reversed(all_cols))
    models = [(f"model_{m:05d}", list(range(m * 8, m * 8 + 8))) for m in range(max(1, n // 8))]
    v2_widened = {i for i in all_cols if i % 12 == 3}
    files = {
        "wide.ddl": lambda: ddl(all_cols),
        "wide_v2.ddl": lambda: ddl(v2_cols),
        "wide_reversed.ddl": lambda: ddl(reversed_cols),
        "wide.spark.json": lambda: spark_json(all_cols),
        "wide_v2.spark.json": lambda: spark_json(v2_cols),
        "wide.avsc": lambda: avro(all_cols),
        "wide_v2.avsc": lambda: avro(v2_cols, optional_from=n),
        "wide_reversed.avsc": lambda: avro(reversed_cols),
        "wide.schema.json": lambda: json_schema(all_cols, required=False),
        "wide_required.schema.json": lambda: json_schema(all_cols, required=True),
        "wide_v2.schema.json": lambda: json_schema(v2_cols, required=False),
        "wide.contract.yaml": lambda: seed_contract(all_cols),
        "wide.odcs.yaml": lambda: odcs([("wide", all_cols)]),
        "wide_v2.odcs.yaml": lambda: odcs([("wide", v2_cols)]),
        "wide.dcs.yaml": lambda: dcs([("wide", all_cols)]),
        "wide_v2.dcs.yaml": lambda: dcs([("wide", v2_cols)]),
        "models.odcs.yaml": lambda: odcs(models),
        "models.dcs.yaml": lambda: dcs(models),
        "enum.avsc": lambda: avro_enum(n),
        # A quarter and a half of N: the model refuses a schema of more than 200,000 types, and
        # a branch is a struct of one field, a leaf a nullable long.
        "union.avsc": lambda: avro_union(n // 4),
        "deep.avsc": lambda: avro_deep(n // 2),
        "refs.schema.json": lambda: json_schema_refs(n),
        "patterns.schema.json": lambda: json_schema_patterns(n),
        "enum.schema.json": lambda: json_schema_enum(n),
    }
    for name, make in files.items():
        WIDENED.clear()
        if "_v2." in name:
            WIDENED.update(v2_widened)
        with open(os.path.join(out, name), "w") as f:
            f.write(make())


if __name__ == "__main__":
    main()
