#!/usr/bin/env bash
# delta_check.mjs over every Delta golden table of the shared conformance data: the log rules, and
# for each table with data files the live files read by DuckDB (`checkpoint`, whose adds name no
# real files, gets the log rules only, --log-only). With --selftest, runs delta_check_selftest.mjs
# instead: broken copies of the golden tables must each be caught. Exit 0 when all hold, 1
# otherwise, 77 (skipped) when the golden tables, node or tests/parquet/node_modules are missing.
#
#   tests/table/delta_check_golden.sh --shared SHARED_DIR [--selftest]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shared=
selftest=0
while [ $# -gt 0 ]; do
  case "$1" in
    --shared) shared=${2:-}; shift 2 ;;
    --selftest) selftest=1; shift ;;
    *) echo "usage: delta_check_golden.sh --shared SHARED_DIR [--selftest]" >&2; exit 2 ;;
  esac
done
golden="$shared/conformance/delta-golden"
if [ -z "$shared" ] || [ ! -d "$golden" ]; then
  echo "delta_check_golden: no golden tables at ${golden}; skipped"
  exit 77
fi
if ! command -v node >/dev/null || [ ! -d "$here/../parquet/node_modules/@duckdb/node-api" ]; then
  echo "delta_check_golden: node or tests/parquet/node_modules missing (npm ci in tests/parquet); skipped"
  exit 77
fi
if [ "$selftest" -eq 1 ]; then
  exec node "$here/delta_check_selftest.mjs" "$golden"
fi

passed=0 failed=0
for table in "$golden"/*/; do
  table=${table%/}
  name=$(basename "$table")
  [ -d "$table/_delta_log" ] || continue
  args=()
  [ "$name" = checkpoint ] && args=(--log-only)
  if out=$(node "$here/delta_check.mjs" "${args[@]}" "$table" 2>&1); then
    echo "ok    $name"
    passed=$((passed + 1))
  else
    echo "FAIL  $name"
    printf '%s\n' "$out" | grep '^delta_check:' | head -20 | sed 's/^/      /' || true
    failed=$((failed + 1))
  fi
done
echo "delta_check_golden: $passed passed, $failed failed"
[ "$passed" -gt 0 ] && [ "$failed" -eq 0 ]
