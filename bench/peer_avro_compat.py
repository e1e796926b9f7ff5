#!/usr/bin/env python3
"""The peer for the compatibility benchmark: Apache Avro's Python implementation (Debian
python3-avro 1.11), avro.compatibility.ReaderWriterCompatibilityChecker, on the same files as
bench_avro_compat. Schemas are parsed before timing, as in the sluice benchmark.

    peer_avro_compat.py PAIRS.jsonl WIDE.jsonl [SECONDS]

Prints one JSON object: seconds per check and the compatible count over the random pairs (both
directions, the "ambiguous" slice left out), in one pass and with each pair checked four times in
a row (as bench_avro_compat does), and seconds per check and the verdicts of the wide pair
(BACKWARD: v2 reads v1; FORWARD: v1 reads v2)."""
import json
import sys
import time

import avro.schema
from avro.compatibility import ReaderWriterCompatibilityChecker, SchemaCompatibilityType


def load(path):
    pairs = []
    with open(path) as f:
        for line in f:
            p = json.loads(line)
            if p["slice"] != "ambiguous":
                pairs.append((avro.schema.parse(p["a"]), avro.schema.parse(p["b"])))
    return pairs


def compatible(reader, writer):
    result = ReaderWriterCompatibilityChecker().get_compatibility(reader, writer)
    return result.compatibility is SchemaCompatibilityType.compatible


def timed(fn, min_seconds):
    """Run fn until min_seconds have passed; return (seconds per run, last result)."""
    runs, start, result = 0, time.perf_counter(), None
    while True:
        result = fn()
        runs += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return elapsed / runs, result


def main():
    sys.setrecursionlimit(20000)
    pairs = load(sys.argv[1])
    a, b = load(sys.argv[2])[0]
    min_seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 2.0

    def all_pairs(repeat):
        count = 0
        for pa, pb in pairs:
            for _ in range(repeat):
                count += compatible(pb, pa) + compatible(pa, pb)
        return count // repeat

    per_pass, count = timed(lambda: all_pairs(1), min_seconds)
    per_warm_pass, warm_count = timed(lambda: all_pairs(4), min_seconds)
    per_wide, wide = timed(lambda: compatible(b, a), min_seconds)
    per_forward, forward = timed(lambda: compatible(a, b), min_seconds)
    print(json.dumps({
        "checks": 2 * len(pairs),
        "random_s_per_check": per_pass / (2 * len(pairs)),
        "random_compatible": count,
        "warm_s_per_check": per_warm_pass / (8 * len(pairs)),
        "warm_compatible": warm_count,
        "wide_s_per_check": per_wide,
        "wide_compatible": wide,
        "wide_forward_s_per_check": per_forward,
        "wide_forward_compatible": forward,
    }))


if __name__ == "__main__":
    main()
