#!/usr/bin/env python3
"""The oracle of the Avro compatibility differential test: python-avro's port of Java's checker.

    avro_compat_oracle.py PAIRS.jsonl OUT.jsonl

For every pair of gen_avro_pairs.py (writer `a`, reader `b`) it writes one line with the verdict
and the incompatibility kinds of avro.compatibility.ReaderWriterCompatibilityChecker in both
directions: "ba" (reader b, writer a) and "ab". Where the line has the spellings that show
python-avro's deviations from Java, it checks those too ("ba_dotted", "ab_dotted", ...).
A result is {"c": compatible, "k": [kinds]} or {"e": "the exception"}.
"""
import json
import sys

import avro.schema
from avro.compatibility import ReaderWriterCompatibilityChecker, SchemaCompatibilityType


def parse(text):
    try:
        return avro.schema.parse(text), None
    except Exception as e:  # noqa: BLE001 - any failure is reported, not raised
        return None, {"e": f"parse {type(e).__name__}: {str(e)[:200]}"}


def check(reader, writer):
    try:
        result = ReaderWriterCompatibilityChecker().get_compatibility(reader, writer)
    except Exception as e:  # noqa: BLE001
        return {"e": f"{type(e).__name__}: {str(e)[:200]}"}
    return {"c": result.compatibility is SchemaCompatibilityType.compatible,
            "k": [k.name.upper() for k in result.incompatibilities]}


def both(a_text, b_text):
    a, err_a = parse(a_text)
    b, err_b = parse(b_text)
    if err_a or err_b:
        return err_a or err_b, err_a or err_b
    return check(b, a), check(a, b)


def main():
    sys.setrecursionlimit(20000)
    with open(sys.argv[1]) as pairs, open(sys.argv[2], "w") as out:
        for line in pairs:
            p = json.loads(line)
            row = {"id": p["id"]}
            row["ba"], row["ab"] = both(p["a"], p["b"])
            for key in ("dotted", "relative_aliases", "errors"):
                if "a_" + key in p:
                    row["ba_" + key], row["ab_" + key] = both(p["a_" + key], p["b_" + key])
            out.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
