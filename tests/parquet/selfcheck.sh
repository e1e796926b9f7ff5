#!/usr/bin/env bash
# Prove the Parquet peer harness without sluice: write the reference files with DuckDB and
# arrow-rs (write.mjs), read every file back with all three readers (read.mjs) and compare each
# to the writer's own rows (compare.mjs); then random schemas and records (gen_random.py) written
# by arrow-rs (write_records.mjs), read by all three and compared to gen_random's expected rows;
# then check that a changed value, a missing row and a broken file are caught. A reader that
# cannot read a file (the manifest's "skip") is skipped and named. Exit 0 when all agree.
#
#   tests/parquet/selfcheck.sh [--quick] [OUTDIR]     (OUTDIR defaults to a temporary directory)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
quick=()
if [ "${1:-}" = "--quick" ]; then quick=(--quick); shift; fi
if [ ! -d "$here/node_modules/parquet-wasm" ]; then
  echo "selfcheck: tests/parquet/node_modules missing; run scripts/install-deps (npm ci in tests/parquet)" >&2
  exit 2
fi
if [ -n "${1:-}" ]; then
  out=$1
  mkdir -p "$out"
else
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi

node "$here/write.mjs" "${quick[@]}" "$out"

passed=0 failed=0 skipped=0
while IFS=$'\t' read -r name reader why; do
  if [ -n "$why" ]; then
    echo "skip  $name  $reader: $why"
    skipped=$((skipped + 1))
    continue
  fi
  actual="$out/$name.$reader.jsonl"
  if node "$here/read.mjs" --reader "$reader" "$out/$name.parquet" >"$actual" 2>"$actual.err" &&
     node "$here/compare.mjs" --reader "$reader" "$out/$name.expected.jsonl" "$actual" >"$actual.diff"; then
    echo "ok    $name  $reader"
    passed=$((passed + 1))
    rm -f "$actual" "$actual.err" "$actual.diff"  # the 100,000-row files' rows are large
  else
    echo "FAIL  $name  $reader"
    cat "$actual.err" "$actual.diff" 2>/dev/null | head -20 | sed 's/^/      /' || true
    failed=$((failed + 1))
  fi
done < <(node -e '
  const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  for (const f of m) for (const r of ["duckdb", "arrow", "hyparquet"])
    console.log([f.name, r, f.skip[r] ?? ""].join("\t"));' "$out/manifest.json")

# Random schemas and records (gen_random.py) written by arrow-rs (write_records.mjs): every
# reader must read back exactly the rows gen_random.py says they must.
seeds=(1 2 3 4)
opts=("--codec snappy" "--codec zstd --v2" "--codec gzip --no-dict" "--codec lz4_raw --v2 --no-dict")
for k in "${!seeds[@]}"; do
  seed=${seeds[$k]}
  dir="$out/random_$seed"
  name="random seed $seed (${opts[$k]})"
  # shellcheck disable=SC2086
  if ! /usr/bin/python3 "$here/gen_random.py" --seed "$seed" --rows 500 --out "$dir" ||
     ! node "$here/write_records.mjs" ${opts[$k]} "$dir/schema.ddl" "$dir/rows.jsonl" "$dir/file.parquet"; then
    echo "FAIL  $name: generating or writing"
    failed=$((failed + 1))
    continue
  fi
  for reader in duckdb arrow hyparquet; do
    if node "$here/read.mjs" --reader "$reader" "$dir/file.parquet" >"$dir/$reader.jsonl" &&
       node "$here/compare.mjs" --reader "$reader" --schema "$dir/schema.ddl" "$dir/expected.jsonl" "$dir/$reader.jsonl" >"$dir/$reader.diff"; then
      echo "ok    $name  $reader"
      passed=$((passed + 1))
    else
      echo "FAIL  $name  $reader"
      head -20 "$dir/$reader.diff" | sed 's/^/      /' || true
      failed=$((failed + 1))
    fi
  done
done

# The checks must be able to fail: a changed value, a missing row and a file that is not Parquet.
check_fails() {
  local what=$1; shift
  if "$@" >/dev/null 2>&1; then
    echo "FAIL  negative check: $what was not caught"
    failed=$((failed + 1))
  else
    echo "ok    negative check: $what caught"
    passed=$((passed + 1))
  fi
}
exp="$out/duckdb_types_snappy.expected.jsonl"
sed '1s/"c_i64":4,/"c_i64":5,/' "$exp" >"$out/neg_value.jsonl"
head -n -1 "$exp" >"$out/neg_short.jsonl"
printf 'PAR1 not really\n' >"$out/neg.parquet"
check_fails "a changed value" node "$here/compare.mjs" "$exp" "$out/neg_value.jsonl"
check_fails "a missing row" node "$here/compare.mjs" "$exp" "$out/neg_short.jsonl"
for reader in duckdb arrow hyparquet; do
  check_fails "a non-Parquet file ($reader)" node "$here/read.mjs" --reader "$reader" "$out/neg.parquet"
done

echo "selfcheck: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
