#!/bin/bash
# Concurrency and crash safety of `sluice table append`, with real processes:
#  1. 4 processes x 25 appends into one table at once: 100 commits after the first, contiguous
#     versions, every row present exactly once, the table checks clean.
#  2. writers killed with SIGKILL at random points of a commit: the table stays readable, every
#     committed row is there, and the next append succeeds.
# Usage: concurrent_writers.sh SLUICE_BINARY
set -euo pipefail
SLUICE=${1:?usage: concurrent_writers.sh SLUICE_BINARY}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
T="$WORK/t"

# Batch p-i holds 3 rows with ids p*1000 + i*10 + {0,1,2}.
for p in 1 2 3 4; do
  for i in $(seq 1 25); do
    base=$((p * 1000 + i * 10))
    printf '{"id": %d, "writer": %d}\n{"id": %d, "writer": %d}\n{"id": %d, "writer": %d}\n' \
      "$base" "$p" "$((base + 1))" "$p" "$((base + 2))" "$p" > "$WORK/b-$p-$i.jsonl"
  done
done
printf '{"id": 0, "writer": 0}\n' > "$WORK/first.jsonl"
"$SLUICE" table append "$T" "$WORK/first.jsonl" -q

for p in 1 2 3 4; do
  (
    for i in $(seq 1 25); do
      "$SLUICE" table append "$T" "$WORK/b-$p-$i.jsonl" -q --threads 1
    done
  ) &
done
wait

versions=$(ls "$T/_delta_log" | grep -c '^[0-9]\{20\}\.json$')
if [ "$versions" -ne 101 ]; then
  echo "FAIL: expected versions 0..100, found $versions commit files"; exit 1
fi
last=$(ls "$T/_delta_log" | grep '^[0-9]\{20\}\.json$' | tail -1)
if [ "$last" != "00000000000000000100.json" ]; then
  echo "FAIL: the last commit is $last"; exit 1
fi
"$SLUICE" table cat "$T" > "$WORK/rows.jsonl"
rows=$(wc -l < "$WORK/rows.jsonl")
unique=$(sort -u "$WORK/rows.jsonl" | wc -l)
if [ "$rows" -ne 301 ] || [ "$unique" -ne 301 ]; then
  echo "FAIL: expected 301 distinct rows, found $rows ($unique distinct)"; exit 1
fi
"$SLUICE" table check "$T" > "$WORK/check.txt" || { cat "$WORK/check.txt"; echo "FAIL: check"; exit 1; }
# The checkpoints sluice wrote (every 10 versions) against an independent replay of the commits,
# read by DuckDB, when node and DuckDB are installed.
HERE=$(cd "$(dirname "$0")" && pwd)
if command -v node >/dev/null && [ -d "$HERE/../parquet/node_modules/@duckdb" ]; then
  node "$HERE/delta_check.mjs" "$T" > "$WORK/independent.json" ||
    { cat "$WORK/independent.json"; echo "FAIL: the independent checker"; exit 1; }
  grep -q '"rows": 301' "$WORK/independent.json" ||
    { cat "$WORK/independent.json"; echo "FAIL: the independent checker counts other rows"; exit 1; }
fi
echo "ok: 4 writers x 25 appends: versions 0..100, 301 rows once each"

# Crashes: a writer of a large batch killed at a random moment, several times.
K="$WORK/k"
"$SLUICE" table append "$K" "$WORK/first.jsonl" -q
/usr/bin/python3 - "$WORK/big.jsonl" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(1000000):
        f.write('{"id": %d, "writer": 9}\n' % (i + 1))
PY
committed=1
# Killed at moments spread over the write (about a second at one thread): while reading, while
# writing data files, around the commit; some rounds commit first, and that is fine too.
landed=0
for delay in 0.05 0.2 0.4 0.6 0.8 1.0 1.5; do
  "$SLUICE" table append "$K" "$WORK/big.jsonl" -q --threads 1 &
  pid=$!
  sleep "$delay"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  # Whatever happened, the table reads, and holds the rows of whole commits only.
  n=$("$SLUICE" table cat "$K" | wc -l)
  if [ $(( (n - 1) % 1000000 )) -ne 0 ] || [ "$n" -lt "$committed" ]; then
    echo "FAIL: after ${delay}s: $n rows is not a whole number of commits (had $committed)"; exit 1
  fi
  [ "$n" -gt "$committed" ] && landed=$((landed + 1))
  committed=$n
  "$SLUICE" table check "$K" > "$WORK/check.txt" || { cat "$WORK/check.txt"; echo "FAIL: check after kill"; exit 1; }
done
"$SLUICE" table append "$K" "$WORK/first.jsonl" -q
n=$("$SLUICE" table cat "$K" | wc -l)
if [ "$n" -ne $((committed + 1)) ]; then
  echo "FAIL: the append after the kills did not land ($n rows, expected $((committed + 1)))"; exit 1
fi
echo "ok: 7 writers killed at 0.05 to 1.5 s ($landed committed first): table readable, $committed rows from whole commits"
