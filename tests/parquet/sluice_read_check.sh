#!/usr/bin/env bash
# sluice's Parquet reader against files other writers wrote: the reference files of write.mjs
# (DuckDB and arrow-rs: every codec, page version, encoding and type they write) and random
# schemas and records (gen_random.py) written by arrow-rs (write_records.mjs). Each file is read
# by parquet_cat_tool and compared with the rows its writer says it holds (compare.mjs). Exit 0
# when every file agrees, 1 otherwise, 77 (skipped) without tests/parquet/node_modules.
#
#   tests/parquet/sluice_read_check.sh --tool PATH/parquet_cat_tool [--full] [OUTDIR]
#
# --full adds the 100,000-row files (several hundred MB); OUTDIR defaults to a temporary one.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tool=
quick=(--quick)
out=
while [ $# -gt 0 ]; do
  case "$1" in
    --tool) tool=$2; shift 2 ;;
    --full) quick=(); shift ;;
    *) out=$1; shift ;;
  esac
done
if [ -z "$tool" ]; then
  echo "usage: sluice_read_check.sh --tool PATH [--full] [OUTDIR]" >&2
  exit 2
fi
if [ ! -d "$here/node_modules/parquet-wasm" ] || ! command -v node >/dev/null; then
  echo "sluice_read_check: tests/parquet/node_modules missing (npm ci in tests/parquet); skipped"
  exit 77
fi
if [ -z "$out" ]; then
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"

node "$here/write.mjs" "${quick[@]}" "$out" >/dev/null

passed=0 failed=0
check() {  # name, file, expected, [compare options...]
  local name=$1 file=$2 expected=$3
  shift 3
  if "$tool" "$file" >"$file.sluice.jsonl" 2>"$file.sluice.err" &&
     node "$here/compare.mjs" "$@" "$expected" "$file.sluice.jsonl" >"$file.sluice.diff"; then
    echo "ok    $name"
    passed=$((passed + 1))
  else
    echo "FAIL  $name"
    cat "$file.sluice.err" "$file.sluice.diff" 2>/dev/null | head -20 | sed 's/^/      /' || true
    failed=$((failed + 1))
  fi
}

while read -r name; do
  check "$name" "$out/$name.parquet" "$out/$name.expected.jsonl"
done < <(node -e '
  const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  for (const f of m) console.log(f.name);' "$out/manifest.json")

seeds=(1 2 3 4 5 6)
opts=("--codec snappy" "--codec zstd --v2" "--codec gzip --no-dict" "--codec lz4_raw --v2 --no-dict"
      "--codec uncompressed" "--codec snappy --v2")
for k in "${!seeds[@]}"; do
  seed=${seeds[$k]}
  dir="$out/random_$seed"
  # shellcheck disable=SC2086
  if /usr/bin/python3 "$here/gen_random.py" --seed "$seed" --rows 500 --out "$dir" >/dev/null &&
     node "$here/write_records.mjs" ${opts[$k]} "$dir/schema.ddl" "$dir/rows.jsonl" \
       "$dir/file.parquet" >/dev/null; then
    check "random seed $seed (${opts[$k]})" "$dir/file.parquet" "$dir/expected.jsonl" \
      --schema "$dir/schema.ddl"
  else
    echo "FAIL  random seed $seed: generating or writing"
    failed=$((failed + 1))
  fi
done

# The check must be able to fail: rows that differ from the expected ones by one value.
exp="$out/duckdb_types_snappy.expected.jsonl"
sed '1s/"c_i64":4,/"c_i64":5,/' "$exp" >"$out/neg_value.jsonl"
if cmp -s "$exp" "$out/neg_value.jsonl" ||
   node "$here/compare.mjs" "$out/neg_value.jsonl" "$out/duckdb_types_snappy.parquet.sluice.jsonl" \
     >/dev/null 2>&1; then
  echo "FAIL  negative check: a changed value was not caught"
  failed=$((failed + 1))
fi

echo "sluice_read_check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
