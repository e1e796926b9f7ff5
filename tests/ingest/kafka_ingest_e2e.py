#!/usr/bin/python3
"""`sluice ingest kafka://...` end to end with real parts, and exactly once under kill -9.

    kafka_ingest_e2e.py --sluice build/sluice --mock-kafka build/tests/ingest/sluice-mock-kafka
                        [--kill-seeds N] [--min-kills K]

librdkafka's mock cluster (sluice-mock-kafka, a real Kafka protocol server on loopback) holds a
topic of 4 partitions; `sluice registry serve` is the schema registry; kafkajs with
@kafkajs/confluent-schema-registry (tests/ingest/js/produce.mjs) registers the producer's Avro
schema and produces. Then:
1. two `sluice ingest` processes in one consumer group (each with its own checkpoint) share the
   4 partitions and land every record once;
2. the producer evolves its schema (v2 adds `channel` with a default) mid-stream and the table
   gains the column; a poison message (bad magic byte) goes to quarantine with topic,
   partition, offset and its raw bytes;
3. runs killed with SIGKILL at seeded crash points (SLUICE_INGEST_CRASH_AT), then a clean run:
   every record is in the table exactly once, every poison message in quarantine.
Exit 77 (skipped) without node, tests/ingest/js/node_modules or python3-confluent-kafka.
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

V1 = {"type": "record", "name": "Order", "namespace": "shop", "fields": [
    {"name": "order_id", "type": "long"},
    {"name": "amount", "type": "double"}]}
V2 = {"type": "record", "name": "Order", "namespace": "shop", "fields": [
    {"name": "order_id", "type": "long"},
    {"name": "amount", "type": "double"},
    {"name": "channel", "type": "string", "default": "web"}]}


class Servers:
    def __init__(self, a, tmp):
        self.tmp = tmp
        self.mock = subprocess.Popen([a.mock_kafka, "--brokers", "1", "--topic", "orders:4"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        line = self.mock.stdout.readline().strip()
        assert line.startswith("bootstrap="), line
        self.brokers = line.split("=", 1)[1]
        port_file = os.path.join(tmp, "port")
        self.registry = subprocess.Popen(
            [a.sluice, "registry", "serve", "--listen", "127.0.0.1:0", "--port-file", port_file,
             "--store", "sqlite:" + os.path.join(tmp, "registry.db")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.1)
        self.url = "http://127.0.0.1:" + open(port_file).read().strip()

    def close(self):
        self.registry.terminate()
        self.mock.stdin.close()
        self.mock.wait(timeout=30)
        self.registry.wait(timeout=30)


def produce(servers, tmp, schema, ids, extra=None):
    avsc = os.path.join(tmp, "s.avsc")
    with open(avsc, "w") as f:
        json.dump(schema, f)
    recs = os.path.join(tmp, "r.jsonl")
    with open(recs, "w") as f:
        for i in ids:
            r = {"order_id": i, "amount": i * 0.5}
            if extra:
                r.update(extra)
            f.write(json.dumps(r) + "\n")
    p = subprocess.run(["node", os.path.join(HERE, "js", "produce.mjs"), "--brokers",
                        servers.brokers, "--registry", servers.url, "--topic", "orders",
                        "--subject", "orders-value", "--schema", avsc, "--records", recs,
                        "--key", "order_id"], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        sys.exit(f"produce.mjs failed: {p.stderr}")


def produce_poison(servers):
    """A bad magic byte, an id the registry does not have, a payload that does not decode."""
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": servers.brokers})
    p.produce("orders", value=b"\x07not avro at all", key=b"poison", partition=1)
    p.produce("orders", value=b"\x00\x00\x00\x27\x0f\x02", key=b"poison", partition=1)
    p.produce("orders", value=b"\x00\x00\x00\x00\x01\xff\xff\xff", key=b"poison", partition=1)
    p.flush(30)


def ingest(a, servers, tmp, name, extra_env=None, wait=True):
    cmd = [a.sluice, "ingest", "kafka://%s/orders" % servers.brokers, "--to",
           os.path.join(tmp, "table"), "--checkpoint", os.path.join(tmp, "ckpt-" + name),
           "--group-id", "g", "--registry", servers.url, "--starting-offsets", "earliest",
           "--once", "-q", "--threads", "1", "--quarantine", os.path.join(tmp, "q-" + name + ".jsonl"),
           "--kafka-option", "session.timeout.ms=6000"]
    env = dict(os.environ)
    env.pop("SLUICE_INGEST_CRASH_AT", None)
    env.update(extra_env or {})
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if not wait:
        return p
    out, err = p.communicate(timeout=240)
    return p.returncode, out, err


def check_json_with_metadata(a, servers, tmp):
    import base64
    from confluent_kafka import Producer
    p = Producer({"bootstrap.servers": servers.brokers})
    for i in range(20):
        p.produce("clicks", value=json.dumps({"user": "u%d" % i, "n": i}).encode(),
                  key=("k%d" % i).encode(), headers=[("trace", b"t%d" % i)], partition=i % 2)
    p.produce("clicks", value=b"not json", partition=0)
    p.flush(30)
    table = os.path.join(tmp, "clicks")
    cmd = [a.sluice, "ingest", "kafka://%s/clicks" % servers.brokers, "--to", table,
           "--checkpoint", os.path.join(tmp, "ckpt-clicks"), "--group-id", "clicks",
           "--value-format", "json", "--with-kafka-metadata", "--infer-column-types",
           "--starting-offsets", "earliest", "--once", "-q", "--quarantine",
           os.path.join(tmp, "q-clicks.jsonl"), "--kafka-option", "session.timeout.ms=6000"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    if r.returncode != 0:
        sys.exit(f"json ingest failed ({r.returncode}): {r.stderr}")
    # n is a BIGINT now; a later string in it is rescued, not a new type.
    p.produce("clicks", value=json.dumps({"user": "x", "n": "many"}).encode(), partition=1)
    p.flush(30)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    if r.returncode != 0:
        sys.exit(f"json ingest failed ({r.returncode}): {r.stderr}")
    rows = [json.loads(l) for l in subprocess.run([a.sluice, "table", "cat", table],
                                                  capture_output=True, text=True).stdout.splitlines()]
    if len(rows) != 21:
        sys.exit(f"clicks: {len(rows)} rows, expected 21")
    by_user = {r["user"]: r for r in rows}
    r5 = by_user["u5"]
    if (r5["topic"], r5["partition"], r5["timestampType"]) != ("clicks", 1, 0) or \
            base64.b64decode(r5["key"]) != b"k5" or \
            base64.b64decode(r5["headers"][0]["value"]) != b"t5" or not r5["timestamp"]:
        sys.exit(f"clicks: metadata columns wrong: {r5}")
    if by_user["x"]["n"] is not None or '"many"' not in by_user["x"]["_rescued_data"]:
        sys.exit(f"clicks: the mismatched n was not rescued: {by_user['x']}")
    q = [json.loads(l) for l in open(os.path.join(tmp, "q-clicks.jsonl"))]
    if len(q) != 1 or q[0]["topic"] != "clicks" or q[0]["partition"] != 0 or "offset" not in q[0]:
        sys.exit(f"clicks: the non-JSON value is not quarantined with its place: {q}")
    # A batch of poison only still moves the offsets on: run twice, quarantined once.
    p.produce("clicks", value=b"poison-a", partition=1)
    p.produce("clicks", value=b"poison-b", partition=1)
    p.flush(30)
    for _ in range(2):
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
        if r.returncode != 0:
            sys.exit(f"json ingest failed ({r.returncode}): {r.stderr}")
    q = [json.loads(l) for l in open(os.path.join(tmp, "q-clicks.jsonl"))]
    if len(q) != 3:
        sys.exit(f"clicks: poison-only batches quarantined {len(q)} lines, expected 3: {q}")
    schema = subprocess.run([a.sluice, "table", "schema", table, "--as", "spark-ddl"],
                            capture_output=True, text=True).stdout
    for col in ("key BINARY", "partition INT", "offset BIGINT", "timestamp TIMESTAMP"):
        if col not in schema:
            sys.exit(f"clicks: {col} not in the table's schema: {schema}")


def table_rows(a, tmp):
    p = subprocess.run([a.sluice, "table", "cat", os.path.join(tmp, "table")],
                       capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("table cat failed: " + p.stderr)
    return [json.loads(l) for l in p.stdout.splitlines() if l.strip()]


def check_once(a, tmp, want_ids, where):
    rows = table_rows(a, tmp)
    ids = sorted(r["order_id"] for r in rows)
    if ids != sorted(want_ids):
        missing = sorted(set(want_ids) - set(ids))
        dup = sorted(i for i in set(ids) if ids.count(i) > 1)
        sys.exit(f"{where}: table has {len(ids)} rows; missing {missing[:10]}, twice {dup[:10]}")
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--mock-kafka", required=True)
    ap.add_argument("--kill-seeds", type=int, default=6)
    ap.add_argument("--min-kills", type=int, default=20)
    a = ap.parse_args()
    if shutil.which("node") is None or not os.path.isdir(os.path.join(HERE, "js", "node_modules",
                                                                       "kafkajs")):
        print("kafka_ingest_e2e: node or tests/ingest/js/node_modules missing; skipped")
        sys.exit(77)
    try:
        import confluent_kafka  # noqa: F401
    except ImportError:
        print("kafka_ingest_e2e: python3-confluent-kafka missing; skipped")
        sys.exit(77)

    tmp = tempfile.mkdtemp(prefix="sluice-kafka-")
    servers = Servers(a, tmp)
    try:
        # 1. Two members of one group share the partitions.
        produce(servers, tmp, V1, range(1, 201))
        first = ingest(a, servers, tmp, "a", wait=False)
        second = ingest(a, servers, tmp, "b", wait=False)
        for p in (first, second):
            out, err = p.communicate(timeout=240)
            if p.returncode != 0:
                sys.exit(f"ingest failed ({p.returncode}): {err}")
        check_once(a, tmp, range(1, 201), "two members")

        # 2. v2 adds a column with a default; a poison message.
        produce(servers, tmp, V2, range(201, 301), {"channel": "app"})
        produce_poison(servers)
        rc, out, err = ingest(a, servers, tmp, "a")
        if rc != 0:
            sys.exit(f"ingest after v2 failed ({rc}): {err}")
        rows = check_once(a, tmp, range(1, 301), "after v2")
        channels = {r["order_id"]: r.get("channel") for r in rows}
        if channels[250] != "app" or channels[10] is not None:
            sys.exit(f"channel column wrong: {channels[250]!r} {channels[10]!r}")
        q = [json.loads(l) for l in open(os.path.join(tmp, "q-a.jsonl"))]
        poison = [l for l in q if l.get("topic") == "orders" and l.get("partition") == 1]
        if len(poison) != 3 or any("offset" not in l or not l.get("raw") for l in poison):
            sys.exit(f"poison messages not quarantined once each with their place: {q}")
        reasons = " | ".join(l["error"] for l in poison)
        for want in ("magic byte", "schema id 9999", "schema id"):
            if want not in reasons:
                sys.exit(f"poison reasons lack {want!r}: {reasons}")

        # JSON values with Spark's Kafka columns, into a second table.
        check_json_with_metadata(a, servers, tmp)

        # 3. Kills at seeded crash points, then a clean run: exactly once.
        rng = random.Random(18)
        kills = 0
        next_id = 301
        seeds = 0
        # Rounds of new records, each ingested by runs killed at a seeded crash point (a run
        # passes about four: batch planned, staged, committed, marked) until one finishes;
        # rounds go on until enough kills were seen.
        while seeds < a.kill_seeds or (kills < a.min_kills and seeds < 4 * a.kill_seeds):
            seeds += 1
            produce(servers, tmp, V2, range(next_id, next_id + 40), {"channel": "k"})
            next_id += 40
            for _ in range(6):
                rc, out, err = ingest(a, servers, tmp, "a",
                                      {"SLUICE_INGEST_CRASH_AT": str(rng.randint(1, 4))})
                if rc == -signal.SIGKILL:
                    kills += 1
                    continue
                if rc != 0:
                    sys.exit(f"ingest failed ({rc}): {err}")
                break
        rc, out, err = ingest(a, servers, tmp, "a")
        if rc != 0:
            sys.exit(f"final ingest failed ({rc}): {err}")
        check_once(a, tmp, range(1, next_id), "after kills")
        q = [json.loads(l) for l in open(os.path.join(tmp, "q-a.jsonl"))]
        if len([l for l in q if l.get("topic") == "orders"]) != 3:
            sys.exit("the poison message is in quarantine more than once after the kills")
        if kills < a.min_kills:
            sys.exit(f"only {kills} kill points were hit (wanted {a.min_kills})")
        print(f"kafka_ingest_e2e: 2 members, schema v2, poison, {kills} kill points: "
              f"{next_id - 1} records exactly once")
    finally:
        servers.close()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
