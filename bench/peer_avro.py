#!/usr/bin/env python3
"""The peer for the schema benchmark: Apache Avro's Python implementation (Debian python3-avro)
parses the same file, computes its Parsing Canonical Form and SHA-256, ITERATIONS times.
Prints the mean seconds per iteration and the CRC-free SHA-256 it got, for cross-checking."""
import hashlib
import sys
import time

import avro.schema


def main():
    path = sys.argv[1]
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    text = open(path).read()
    digest = None
    start = time.perf_counter()
    for _ in range(iterations):
        s = avro.schema.parse(text)
        pcf = s.canonical_form
        digest = hashlib.sha256(pcf.encode("utf-8")).hexdigest()
    elapsed = (time.perf_counter() - start) / iterations
    print(f"{elapsed:.6f} {digest}")


if __name__ == "__main__":
    main()
