#!/usr/bin/env bash
# kafkajs and @kafkajs/confluent-schema-registry (tests/ingest/js/produce.mjs) against
# sluice-mock-kafka and `sluice registry serve`: 100 Avro records registered and produced the way a
# Node application does, then read back with confluent-kafka (tests/ingest/kafka_check.py): every
# message framed with magic byte 0 and the id the registry gave, keys spread by hash; 10 more
# pinned to one partition reuse the same id. Exit 0 when all holds, 1 otherwise, 77 (skipped)
# without node, tests/ingest/js/node_modules or python3-confluent-kafka.
#
#   tests/ingest/kafka_js_produce.sh --sluice build/sluice --mock-kafka build/tests/ingest/sluice-mock-kafka
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sluice= mock=
while [ $# -gt 0 ]; do
  case "$1" in
    --sluice) sluice=${2:-}; shift 2 ;;
    --mock-kafka) mock=${2:-}; shift 2 ;;
    *) echo "usage: kafka_js_produce.sh --sluice BIN --mock-kafka BIN" >&2; exit 2 ;;
  esac
done
if ! command -v node >/dev/null || [ ! -d "$here/js/node_modules/kafkajs" ] ||
   [ ! -d "$here/js/node_modules/@kafkajs/confluent-schema-registry" ]; then
  echo "kafka_js_produce: node or tests/ingest/js/node_modules missing (npm ci in tests/ingest/js); skipped"
  exit 77
fi
if ! /usr/bin/python3 -c "import confluent_kafka" 2>/dev/null; then
  echo "kafka_js_produce: python3-confluent-kafka missing; skipped"
  exit 77
fi

tmp=$(mktemp -d)
registry_pid= mock_pid=
cleanup() {
  exec 3>&- 2>/dev/null || true  # the mock cluster ends when its stdin closes
  [ -n "$registry_pid" ] && kill "$registry_pid" 2>/dev/null || true
  [ -n "$mock_pid" ] && wait "$mock_pid" 2>/dev/null || true
  [ -n "$registry_pid" ] && wait "$registry_pid" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

# The mock cluster serves until stdin closes: give it a FIFO this script holds open on fd 3.
mkfifo "$tmp/mock.in"
"$mock" --brokers 1 --topic orders:4 --topic pinned:3 <"$tmp/mock.in" >"$tmp/mock.out" 2>"$tmp/mock.err" &
mock_pid=$!
exec 3>"$tmp/mock.in"
"$sluice" registry serve --listen 127.0.0.1:0 --port-file "$tmp/port" \
  --store "sqlite:$tmp/registry.db" >"$tmp/registry.log" 2>&1 &
registry_pid=$!

brokers= port=
for _ in $(seq 100); do
  [ -z "$brokers" ] && brokers=$(sed -n 's/^bootstrap=//p' "$tmp/mock.out")
  [ -z "$port" ] && [ -s "$tmp/port" ] && port=$(cat "$tmp/port")
  [ -n "$brokers" ] && [ -n "$port" ] && break
  sleep 0.1
done
if [ -z "$brokers" ] || [ -z "$port" ]; then
  echo "kafka_js_produce: servers did not start" >&2
  cat "$tmp/mock.err" "$tmp/registry.log" >&2
  exit 1
fi
registry="http://127.0.0.1:$port"

cat >"$tmp/order.avsc" <<'AVSC'
{"type": "record", "name": "Order", "namespace": "shop", "fields": [
  {"name": "order_id", "type": "long"},
  {"name": "amount", "type": "double"},
  {"name": "coupon", "type": ["null", "string"], "default": null},
  {"name": "tags", "type": {"type": "map", "values": "string"}}]}
AVSC
/usr/bin/python3 - "$tmp" <<'PY'
import json, sys
folder = sys.argv[1]
with open(f"{folder}/orders.jsonl", "w") as f:
    for i in range(1, 101):
        f.write(json.dumps({"order_id": i, "amount": i * 1.5,
                            "coupon": None if i % 3 else f"C{i}", "tags": {"n": str(i)}}) + "\n")
with open(f"{folder}/pinned.jsonl", "w") as f:
    for i in range(101, 111):
        f.write(json.dumps({"order_id": i, "amount": 0.5, "coupon": None, "tags": {}}) + "\n")
PY

status=0
fail() { echo "kafka_js_produce: FAIL $*" >&2; status=1; }
produce() {
  timeout 60 node "$here/js/produce.mjs" --brokers "$brokers" --registry "$registry" \
    --subject orders-value --schema "$tmp/order.avsc" "$@"
}
json_field() { /usr/bin/python3 -c "import json,sys; print(json.load(sys.stdin)['$1'])"; }

out=$(produce --topic orders --records "$tmp/orders.jsonl" --key order_id) || fail "produce.mjs: $out"
echo "produce.mjs: $out"
id=$(echo "$out" | json_field id)
[ "$(echo "$out" | json_field count)" = 100 ] || fail "produce.mjs sent $(echo "$out" | json_field count)"
# The id is the registry's: it serves the schema under it.
/usr/bin/python3 -c "import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=10)" \
  "$registry/schemas/ids/$id" 2>/dev/null || fail "registry has no schema $id"
check=$(/usr/bin/python3 "$here/kafka_check.py" --brokers "$brokers" --topic orders --count 100 \
  --schema-id "$id" --keys) || fail "read back: $check"
echo "kafka_check: $check"
used=$(echo "$check" | /usr/bin/python3 -c "import json,sys; print(len(json.load(sys.stdin)['partitions']))")
[ "$used" -gt 1 ] || fail "keys all landed in one partition"

# Registering the same schema again gives the same id; --partition pins the messages.
out=$(produce --topic pinned --records "$tmp/pinned.jsonl" --partition 0) || fail "produce.mjs: $out"
[ "$(echo "$out" | json_field id)" = "$id" ] || fail "second registration gave $(echo "$out" | json_field id), not $id"
check=$(/usr/bin/python3 "$here/kafka_check.py" --brokers "$brokers" --topic pinned --count 10 \
  --schema-id "$id" --partition 0) || fail "read back pinned: $check"
echo "kafka_check: $check"

[ $status -eq 0 ] && echo "kafka_js_produce: ok"
exit $status
