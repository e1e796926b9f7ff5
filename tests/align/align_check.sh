#!/bin/sh
# Run align_check.mjs (the SQL `sluice align` writes, run in DuckDB); exit 77 (skipped) without node.
command -v node >/dev/null 2>&1 || { echo "skipped: node is not installed" >&2; exit 77; }
exec node "$(dirname "$0")/align_check.mjs" "$@"
