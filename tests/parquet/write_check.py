#!/usr/bin/python3
"""Files sluice writes, read by readers it did not write: random schemas and records
(gen_random.py) go through parquet_write_tool (the validator, then ParquetRecordSink) and are
read back by DuckDB, arrow-rs (parquet-wasm) and hyparquet (read.mjs), each compared with the
canonical rows the generator expects (compare.mjs).

    /usr/bin/python3 tests/parquet/write_check.py --tool PATH [--quick] [--keep DIR]

Cases: every codec with dictionaries on and off over several seeds, single-row files, and
100,000-row files (several row groups and many pages). Exit 0 when every reader agrees on every
file, 1 otherwise (each failure printed with its first differences), 77 when node or
tests/parquet/node_modules is missing (the peers cannot run: skipped).
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
READERS = ['duckdb', 'arrow', 'hyparquet']
CODECS = ['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4_raw']


def cases(quick):
    """(name, seed, rows, tool flags)."""
    out = []
    seeds = [1, 2, 3] if quick else [1, 2, 3, 4, 5, 6]
    for i, codec in enumerate(CODECS):
        for dictionary in (True, False):
            seed = seeds[(2 * i + (0 if dictionary else 1)) % len(seeds)]
            flags = ['--codec', codec] + ([] if dictionary else ['--no-dictionary'])
            out.append((f'{codec}-{"dict" if dictionary else "plain"}-s{seed}', seed, 300, flags))
    for seed in seeds[:2]:
        out.append((f'one-row-s{seed}', seed + 100, 1, []))
    big = 20000 if quick else 100000
    # Small row groups and pages: many of both, the dictionary falling back on the way.
    out.append((f'big-s7', 7, big, ['--max-rows-per-row-group', str(big // 3 + 1),
                                     '--page-bytes', '65536', '--threads', '2']))
    # Row groups encoded while they fill, in segments of 16 KiB: many pages end with their
    # segment, dictionaries and bounds carry over, on the caller's thread and on workers.
    out.append(('segments-s9', 9, big // 3, ['--segment-bytes', '16384', '--page-bytes', '65536']))
    out.append(('segments-threads-s10', 10, big // 3, ['--segment-bytes', '16384', '--threads', '3']))
    if not quick:
        out.append(('big-zstd-plain-s8', 8, big, ['--codec', 'zstd', '--no-dictionary']))
    return out


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def check_case(tool, work, name, seed, rows, flags):
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    g = run([sys.executable, os.path.join(HERE, 'gen_random.py'), '--seed', str(seed),
             '--rows', str(rows), '--out', d])
    if g.returncode != 0:
        return [f'{name}: gen_random.py failed: {g.stderr.strip()}']
    schema = os.path.join(d, 'schema.ddl')
    parquet = os.path.join(d, 'out.parquet')
    w = run([tool, schema, os.path.join(d, 'rows.jsonl'), parquet] + flags)
    if w.returncode != 0:
        return [f'{name}: parquet_write_tool failed: {w.stderr.strip()}']
    failures = []
    for reader in READERS:
        actual = os.path.join(d, f'{reader}.jsonl')
        with open(actual, 'w') as f:
            r = subprocess.run(['node', os.path.join(HERE, 'read.mjs'), '--reader', reader, parquet],
                               stdout=f, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            failures.append(f'{name} {reader}: read failed: {r.stderr.strip()[:2000]}')
            continue
        c = run(['node', os.path.join(HERE, 'compare.mjs'), '--schema', schema, '--reader', reader,
                 os.path.join(d, 'expected.jsonl'), actual])
        if c.returncode != 0:
            failures.append(f'{name} {reader}: rows differ:\n{c.stdout.strip()[:3000]}'
                            f'{c.stderr.strip()[:1000]}')
    return failures


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--tool', required=True)
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--keep', help='write the cases here and keep them')
    args = ap.parse_args()
    if shutil.which('node') is None or not os.path.isdir(os.path.join(HERE, 'node_modules',
                                                                       'parquet-wasm')):
        print('skip: node or tests/parquet/node_modules is missing '
              '(scripts/install-deps runs npm ci there)')
        return 77
    work = args.keep or tempfile.mkdtemp(prefix='sluice-parquet-')
    failures = []
    try:
        for name, seed, rows, flags in cases(args.quick):
            f = check_case(args.tool, work, name, seed, rows, flags)
            print(('ok    ' if not f else 'FAIL  ') + name, flush=True)
            failures += f
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print(f)
    print(f'write_check: {len(failures)} failures')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
