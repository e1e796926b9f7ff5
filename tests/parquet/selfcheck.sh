#!/usr/bin/env bash
# Prove the Parquet peer harness without sluice: write the reference files with DuckDB and
# arrow-rs (write.mjs), read every file back with all three readers (read.mjs) and compare each
# to the writer's own rows (compare.mjs). A reader that cannot read a file (the manifest's "skip")
# is skipped and named. Exit 0 when every comparison agrees.
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
  else
    echo "FAIL  $name  $reader"
    cat "$actual.err" "$actual.diff" 2>/dev/null | head -20 | sed 's/^/      /' || true
    failed=$((failed + 1))
  fi
done < <(node -e '
  const m = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
  for (const f of m) for (const r of ["duckdb", "arrow", "hyparquet"])
    console.log([f.name, r, f.skip[r] ?? ""].join("\t"));' "$out/manifest.json")

echo "selfcheck: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
