"""kafkajs' Confluent Schema Registry client (@kafkajs/confluent-schema-registry with avsc)
against `sluice registry serve`: it registers and looks up schemas, and the messages it encodes
decode with `sluice decode`, while those `sluice encode` writes decode with it, byte for byte
the same as its own.

    /usr/bin/python3 tests/registry/kafkajs_e2e.py --sluice build/sluice

Exits 77 (skipped) when node or the npm packages (scripts/install-deps installs them under
tests/registry/js/node_modules) are missing.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402

SKIP = 77
JS = os.path.join(HERE, "js")
ARGS = None

ORDER_V1 = {
    "type": "record", "name": "Order", "namespace": "shop",
    "fields": [
        {"name": "order_id", "type": "long"},
        {"name": "amount", "type": "double"},
        {"name": "status", "type": {"type": "enum", "name": "Status",
                                    "symbols": ["NEW", "PAID", "SHIPPED"]}},
        {"name": "paid", "type": "boolean"},
        {"name": "coupon", "type": ["null", "string"], "default": None},
        {"name": "items", "type": {"type": "array", "items": {
            "type": "record", "name": "Item",
            "fields": [{"name": "sku", "type": "string"}, {"name": "qty", "type": "int"}]}}},
        {"name": "tags", "type": {"type": "map", "values": "string"}},
    ],
}
ORDER_V2 = json.loads(json.dumps(ORDER_V1))
ORDER_V2["fields"].append({"name": "channel", "type": "string", "default": "web"})

# Records as a kafkajs application holds them (avsc: a nullable union is the bare value).
RECORDS = [
    {"order_id": 1, "amount": 19.99, "status": "NEW", "paid": False, "coupon": None,
     "items": [{"sku": "A-1", "qty": 2}], "tags": {}},
    {"order_id": 4102444800123, "amount": -0.5, "status": "PAID", "paid": True,
     "coupon": "WELCOME10", "items": [], "tags": {"source": "app", "ünïcode": "✓"}},
    {"order_id": -42, "amount": 1e300, "status": "SHIPPED", "paid": True, "coupon": "",
     "items": [{"sku": "B", "qty": -1}, {"sku": "C", "qty": 2147483647}], "tags": {"k": ""}},
]


def avro_json(record):
    """The record in Avro's JSON encoding (what `sluice decode` prints): unions are tagged."""
    out = dict(record)
    if out["coupon"] is not None:
        out["coupon"] = {"string": out["coupon"]}
    return out


class KafkajsTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="sluice_kafkajs_")
        self.addCleanup(shutil.rmtree, self.dir, True)
        folder = tempfile.mkdtemp(prefix="sluice_sqlite_", dir=self.dir)
        self.server = harness.RegistryServer(
            ARGS.sluice, "sqlite:" + os.path.join(folder, "registry.db")).start()
        self.addCleanup(self.server.close)

    def path(self, name):
        return os.path.join(self.dir, name)

    def write(self, name, text):
        with open(self.path(name), "w", encoding="utf-8") as f:
            f.write(text)
        return self.path(name)

    def node(self, *args):
        r = subprocess.run(["node", os.path.join(JS, "client.mjs")] + list(args), cwd=JS,
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def sluice(self, *args, expect=0):
        r = subprocess.run([ARGS.sluice] + list(args), capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(r.returncode, expect, r.stdout + r.stderr)
        return r

    def read_jsonl(self, name):
        with open(self.path(name), encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]

    def test_register_and_latest(self):
        v1 = self.write("v1.avsc", json.dumps(ORDER_V1))
        first = json.loads(self.node("register", self.server.url, "orders-value", v1))["id"]
        self.assertEqual(first, 1)
        # Registering again is idempotent, and the registry holds what the client sent.
        self.assertEqual(json.loads(self.node("register", self.server.url, "orders-value", v1)),
                         {"id": 1})
        status, body = harness.http(self.server.url + "/subjects/orders-value/versions/latest")
        self.assertEqual(status, 200)
        self.assertEqual(json.loads(json.loads(body)["schema"]), ORDER_V1)
        v2 = self.write("v2.avsc", json.dumps(ORDER_V2))
        self.assertEqual(json.loads(self.node("register", self.server.url, "orders-value", v2)),
                         {"id": 2})
        self.assertEqual(json.loads(self.node("latest", self.server.url, "orders-value")),
                         {"id": 2})

    def test_messages_cross_both_ways(self):
        v1 = self.write("v1.avsc", json.dumps(ORDER_V1))
        sid = json.loads(self.node("register", self.server.url, "orders-value", v1))["id"]
        plain = self.write("plain.jsonl", "".join(json.dumps(r) + "\n" for r in RECORDS))

        # kafkajs encodes; sluice decodes with the writer schema it fetches by id.
        self.node("encode", self.server.url, str(sid), plain, self.path("kafkajs.bin"))
        self.sluice("decode", "--registry", self.server.url, self.path("kafkajs.bin"),
                    "--out", self.path("decoded.jsonl"))
        self.assertEqual(self.read_jsonl("decoded.jsonl"), [avro_json(r) for r in RECORDS])

        # sluice encodes (from Avro's JSON encoding); kafkajs decodes; the bytes are the same.
        tagged = self.write("tagged.jsonl",
                            "".join(json.dumps(avro_json(r)) + "\n" for r in RECORDS))
        self.sluice("encode", "--registry", self.server.url, "--subject", "orders-value",
                    tagged, "--out", self.path("sluice.bin"))
        self.node("decode", self.server.url, self.path("sluice.bin"), self.path("back.jsonl"))
        self.assertEqual(self.read_jsonl("back.jsonl"), RECORDS)
        with open(self.path("sluice.bin"), "rb") as a, open(self.path("kafkajs.bin"), "rb") as b:
            self.assertEqual(a.read(), b.read())

    def test_old_messages_read_with_a_newer_schema(self):
        v1 = self.write("v1.avsc", json.dumps(ORDER_V1))
        v2 = self.write("v2.avsc", json.dumps(ORDER_V2))
        self.node("register", self.server.url, "orders-value", v1)
        plain = self.write("plain.jsonl", "".join(json.dumps(r) + "\n" for r in RECORDS))
        self.node("encode", self.server.url, "1", plain, self.path("v1.bin"))
        self.node("register", self.server.url, "orders-value", v2)
        # A consumer on v2 reads v1 messages: the added field takes its default.
        self.sluice("decode", "--registry", self.server.url, "--reader-schema", v2,
                    self.path("v1.bin"), "--out", self.path("as_v2.jsonl"))
        self.assertEqual(self.read_jsonl("as_v2.jsonl"),
                         [dict(avro_json(r), channel="web") for r in RECORDS])

    def test_references(self):
        address = {"type": "record", "name": "Address", "namespace": "geo",
                   "fields": [{"name": "city", "type": "string"}]}
        customer = {"type": "record", "name": "Customer", "namespace": "geo",
                    "fields": [{"name": "id", "type": "long"},
                               {"name": "home", "type": "geo.Address"}]}
        self.node("register", self.server.url, "geo-address",
                  self.write("address.avsc", json.dumps(address)))
        refs = self.write("refs.json", json.dumps(
            [{"name": "geo.Address", "subject": "geo-address", "version": 1}]))
        sid = json.loads(self.node("register", self.server.url, "geo-customer",
                                   self.write("customer.avsc", json.dumps(customer)),
                                   refs))["id"]
        self.assertEqual(sid, 2)
        records = [{"id": 1, "home": {"city": "Lyon"}}, {"id": 2, "home": {"city": "Oslo"}}]
        plain = self.write("geo.jsonl", "".join(json.dumps(r) + "\n" for r in records))
        # kafkajs resolves the reference to encode; sluice fetches it to decode; and back.
        self.node("encode", self.server.url, str(sid), plain, self.path("kafkajs.bin"))
        self.sluice("decode", "--registry", self.server.url, self.path("kafkajs.bin"),
                    "--out", self.path("decoded.jsonl"))
        self.assertEqual(self.read_jsonl("decoded.jsonl"), records)
        self.sluice("encode", "--registry", self.server.url, "--id", str(sid), plain,
                    "--out", self.path("sluice.bin"))
        self.node("decode", self.server.url, self.path("sluice.bin"), self.path("back.jsonl"))
        self.assertEqual(self.read_jsonl("back.jsonl"), records)

    def test_unknown_schema_id_is_reported(self):
        v1 = self.write("v1.avsc", json.dumps(ORDER_V1))
        self.node("register", self.server.url, "orders-value", v1)
        plain = self.write("plain.jsonl", json.dumps(RECORDS[0]) + "\n")
        self.node("encode", self.server.url, "1", plain, self.path("one.bin"))
        with open(self.path("one.bin"), "rb") as f:
            data = bytearray(f.read())
        data[8] = 77  # the schema id's low byte (after the 4-byte length and the magic byte)
        with open(self.path("bad.bin"), "wb") as f:
            f.write(bytes(data))
        r = self.sluice("decode", "--registry", self.server.url, self.path("bad.bin"),
                        "--out", self.path("bad.jsonl"), expect=1)
        self.assertIn("77", r.stderr)


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--sluice", required=True)
    ARGS, rest = parser.parse_known_args()
    ARGS.sluice = os.path.abspath(ARGS.sluice)
    if shutil.which("node") is None:
        print("skipped: node is not installed")
        sys.exit(SKIP)
    if not os.path.isdir(os.path.join(JS, "node_modules", "@kafkajs", "confluent-schema-registry")):
        print("skipped: run scripts/install-deps to install the npm packages in tests/registry/js")
        sys.exit(SKIP)
    prog = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
    sys.exit(0 if prog.result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
