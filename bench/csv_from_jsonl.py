"""JSON lines (flat records) to CSV with a header, for bench/csv: nulls are empty, booleans
lowercase, other values as written; quotes doubled as RFC 4180 has them, which both Spark's
reader (as sluice reads CSV) and DuckDB's take.
    /usr/bin/python3 bench/csv_from_jsonl.py IN.jsonl OUT.csv"""
import csv
import json
import sys


def main():
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding="utf-8") as f, open(dst, "w", newline="", encoding="utf-8") as o:
        writer = None
        keys = None
        for line in f:
            record = json.loads(line)
            if writer is None:
                keys = list(record)
                writer = csv.writer(o, lineterminator="\n")
                writer.writerow(keys)
            row = []
            for k in keys:
                v = record[k]
                row.append("" if v is None else ("true" if v is True else "false" if v is False else v))
            writer.writerow(row)


if __name__ == "__main__":
    main()
