"""End-to-end tests of `sluice decode` and `sluice encode` against `sluice registry serve`, with
Debian's python3-avro as the other side: python-avro encodes, frames (Confluent's wire format)
and length-prefixes messages that `sluice decode` turns into JSON lines; `sluice encode` turns
JSON lines into messages that python-avro decodes.

    /usr/bin/python3 tests/registry/wire_e2e.py --sluice build/sluice

Exits 77 (skipped) when python3-avro is not installed.
"""

import argparse
import datetime
import decimal
import io
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

SKIP = 77
ARGS = None

try:
    import avro.io
    import avro.schema
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"skipped: python3-avro is not usable: {e}")
    sys.exit(SKIP)

# python-avro warns about every datum it writes for a logical type without the Python type.
warnings.simplefilter("ignore")

ORDER_V1 = {
    "type": "record", "name": "Order", "namespace": "shop",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "customer", "type": "string"},
        {"name": "coupon", "type": ["null", "string"], "default": None},
        {"name": "status", "type": {"type": "enum", "name": "Status",
                                    "symbols": ["NEW", "PAID", "SHIPPED"]}},
        {"name": "items", "type": {"type": "array", "items": {
            "type": "record", "name": "Item",
            "fields": [{"name": "sku", "type": "string"},
                       {"name": "qty", "type": "int"},
                       {"name": "price", "type": "double"}]}}},
        {"name": "attributes", "type": {"type": "map", "values": "string"}},
        {"name": "weight", "type": "float"},
        {"name": "gift", "type": "boolean"},
        {"name": "checksum", "type": {"type": "fixed", "name": "Md5", "size": 4}},
        {"name": "raw", "type": "bytes"},
        {"name": "total", "type": {"type": "bytes", "logicalType": "decimal",
                                   "precision": 9, "scale": 2}},
        {"name": "placed_at", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "payment", "type": ["null", {
            "type": "record", "name": "Card",
            "fields": [{"name": "last4", "type": "string"}]}], "default": None},
    ],
}

# v2 adds a field with a default: BACKWARD compatible, readers of v2 read v1 data.
ORDER_V2 = json.loads(json.dumps(ORDER_V1))
ORDER_V2["fields"].append({"name": "channel", "type": "string", "default": "web"})

UTC = datetime.timezone.utc
PLACED = datetime.datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=UTC)
PLACED_MILLIS = 1704164645678


def order(n):
    """(python-avro datum, the JSON line sluice decode prints for it)."""
    datum = {
        "id": n,
        "customer": "cust-\u00e9-%d" % n,
        "coupon": None if n % 2 else "SPRING%d" % n,
        "status": ["NEW", "PAID", "SHIPPED"][n % 3],
        "items": [{"sku": "sku-%d" % i, "qty": i - 1, "price": i * 1.25} for i in range(n % 3)],
        "attributes": {"color": "red", "n": str(n)} if n % 2 else {},
        "weight": 0.5 + n,
        "gift": n % 2 == 0,
        "checksum": bytes([n & 0xFF, 0, 0x80, 0xFF]),
        "raw": bytes(range(n % 5)),
        "total": decimal.Decimal("12.34") * n,
        "placed_at": PLACED,
        "payment": {"last4": "%04d" % n} if n % 3 == 0 else None,
    }
    unscaled = int(datum["total"].scaleb(2))
    total_bytes = unscaled.to_bytes((unscaled.bit_length() + 8) // 8, "big", signed=True)
    expected = {
        "id": n,
        "customer": datum["customer"],
        "coupon": None if datum["coupon"] is None else {"string": datum["coupon"]},
        "status": datum["status"],
        "items": datum["items"],
        "attributes": datum["attributes"],
        "weight": datum["weight"],
        "gift": datum["gift"],
        "checksum": datum["checksum"].decode("latin-1"),
        "raw": datum["raw"].decode("latin-1"),
        "total": total_bytes.decode("latin-1"),
        "placed_at": PLACED_MILLIS,
        "payment": None if datum["payment"] is None else {"shop.Card": datum["payment"]},
    }
    return datum, expected


def avro_encode(schema, datum):
    out = io.BytesIO()
    avro.io.DatumWriter(schema).write(datum, avro.io.BinaryEncoder(out))
    return out.getvalue()


def avro_decode(schema, payload):
    return avro.io.DatumReader(schema).read(avro.io.BinaryDecoder(io.BytesIO(payload)))


def frame(schema_id, payload):
    return b"\x00" + struct.pack(">I", schema_id) + payload


def message_file(messages):
    return b"".join(struct.pack(">I", len(m)) + m for m in messages)


def read_message_file(data):
    messages, pos = [], 0
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        messages.append(data[pos + 4:pos + 4 + n])
        pos += 4 + n
    return messages


def unframe(message):
    assert message[0] == 0, message[:5]
    (schema_id,) = struct.unpack(">I", message[1:5])
    return schema_id, message[5:]


class WireTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = harness.RegistryServer(ARGS.sluice, "sqlite::memory:").start()
        cls.v1_id = cls.register("orders-value", ORDER_V1)
        cls.v2_id = cls.register("orders-value", ORDER_V2)
        cls.v1 = avro.schema.parse(json.dumps(ORDER_V1))
        cls.v2 = avro.schema.parse(json.dumps(ORDER_V2))

    @classmethod
    def tearDownClass(cls):
        cls.server.close()

    @classmethod
    def register(cls, subject, schema):
        status, body = harness.http(cls.server.url + "/subjects/%s/versions" % subject, "POST",
                                    json.dumps({"schema": json.dumps(schema)}).encode())
        assert status == 200, (status, body)
        return json.loads(body)["id"]

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="sluice_wire_")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def path(self, name):
        return os.path.join(self.dir, name)

    def sluice(self, *args, env=None, stdin=None):
        full_env = dict(os.environ)
        full_env.pop("SLUICE_REGISTRY_URL", None)
        full_env.update(env or {})
        return subprocess.run([ARGS.sluice] + list(args), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=full_env, input=stdin, timeout=60)

    def write(self, name, data):
        with open(self.path(name), "wb") as f:
            f.write(data)
        return self.path(name)

    def json_lines(self, data):
        return [json.loads(line) for line in data.decode().splitlines()]

    # ---- python-avro writes, sluice decode reads ----

    def test_schemas_with_references_are_fetched_whole(self):
        address = {"type": "record", "name": "Address", "namespace": "geo",
                   "fields": [{"name": "city", "type": "string"}]}
        customer = {"type": "record", "name": "Customer", "namespace": "geo",
                    "fields": [{"name": "id", "type": "long"},
                               {"name": "home", "type": "geo.Address"}]}
        self.register("geo-address", address)
        body = {"schema": json.dumps(customer),
                "references": [{"name": "geo.Address", "subject": "geo-address",
                                "version": 1}]}
        status, text = harness.http(self.server.url + "/subjects/geo-customer/versions", "POST",
                                    json.dumps(body).encode())
        self.assertEqual(status, 200, text)
        sid = json.loads(text)["id"]
        # What a producer's serializer writes with the schema and its reference together.
        whole = json.loads(json.dumps(customer))
        whole["fields"][1]["type"] = address
        schema = avro.schema.parse(json.dumps(whole))
        datum = {"id": 7, "home": {"city": "Lyon"}}
        path = self.write("geo.bin", message_file([frame(sid, avro_encode(schema, datum))]))
        r = self.sluice("decode", "--registry", self.server.url, path)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertEqual(self.json_lines(r.stdout), [datum])
        lines = self.write("geo.jsonl", (json.dumps(datum) + "\n").encode())
        r = self.sluice("encode", "--registry", self.server.url, "--subject", "geo-customer",
                        lines, "--out", self.path("geo-out.bin"))
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        with open(self.path("geo-out.bin"), "rb") as f:
            self.assertEqual(f.read(), message_file([frame(sid, avro_encode(schema, datum))]))

    def test_decode_prints_avro_json_of_python_avro_messages(self):
        pairs = [order(n) for n in range(1, 13)]
        path = self.write("orders.bin", message_file(
            [frame(self.v1_id, avro_encode(self.v1, d)) for d, _ in pairs]))
        r = self.sluice("decode", "--registry", self.server.url, path)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertEqual(self.json_lines(r.stdout), [e for _, e in pairs])
        self.assertIn(b"12 messages: 12 decoded, 0 failed", r.stderr)

    def test_decode_takes_each_writer_schema_by_id_and_resolves_to_a_reader(self):
        (d1, e1), (d2, e2) = order(4), order(5)
        d2 = dict(d2, channel="app")
        path = self.write("mixed.bin", message_file([
            frame(self.v1_id, avro_encode(self.v1, d1)),
            frame(self.v2_id, avro_encode(self.v2, d2)),
        ]))
        r = self.sluice("decode", "--registry", self.server.url, "--with-meta", path)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        lines = self.json_lines(r.stdout)
        self.assertEqual([(x["index"], x["schema_id"]) for x in lines],
                         [(1, self.v1_id), (2, self.v2_id)])
        self.assertEqual(lines[0]["offset"], 0)
        self.assertEqual(lines[0]["value"], e1)
        self.assertEqual(lines[1]["value"], dict(e2, channel="app"))

        reader = self.write("v2.avsc", json.dumps(ORDER_V2).encode())
        r = self.sluice("decode", "--registry", self.server.url, "--reader-schema", reader,
                        "--out", self.path("out.jsonl"), path)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        with open(self.path("out.jsonl"), "rb") as f:
            lines = self.json_lines(f.read())
        self.assertEqual(lines, [dict(e1, channel="web"), dict(e2, channel="app")])

    def test_decode_reports_each_bad_message_and_keeps_going(self):
        good = frame(self.v1_id, avro_encode(self.v1, order(1)[0]))
        path = self.write("bad.bin", message_file([
            good,
            b"\x01\x00\x00\x00\x01\x02",             # bad magic byte
            frame(424242, b"\x02"),                   # unknown schema id
            frame(self.v1_id, good[5:25]),            # truncated payload
            frame(self.v1_id, good[5:] + b"\x00"),    # trailing byte
            good,
        ]))
        r = self.sluice("decode", "--registry", self.server.url, path)
        self.assertEqual(r.returncode, 1, r.stderr.decode())
        self.assertEqual(len(self.json_lines(r.stdout)), 2)
        err = r.stderr.decode()
        self.assertIn("message 2 at byte %d: bad magic byte 0x01" % (len(good) + 4), err)
        self.assertIn("message 3 at byte", err)
        self.assertIn("schema id 424242", err)
        self.assertIn("message 4 at byte", err)
        self.assertIn("Avro payload byte", err)
        self.assertIn("message 5 at byte", err)
        self.assertIn("1 byte after the datum", err)
        self.assertIn("6 messages: 2 decoded, 4 failed", err)

    def test_decode_a_cut_file_is_an_input_error_after_the_good_messages(self):
        good = frame(self.v1_id, avro_encode(self.v1, order(2)[0]))
        data = message_file([good]) + struct.pack(">I", 1000) + b"xyz"
        r = self.sluice("decode", "--registry", self.server.url, self.write("cut.bin", data))
        self.assertEqual(r.returncode, 2, r.stderr.decode())
        self.assertEqual(self.json_lines(r.stdout), [order(2)[1]])
        self.assertIn("byte %d: the record's length is 1000 bytes" % (len(good) + 4),
                      r.stderr.decode())

    def test_decode_refuses_an_incompatible_reader_schema(self):
        path = self.write("one.bin", message_file(
            [frame(self.v1_id, avro_encode(self.v1, order(3)[0]))]))
        incompatible = dict(ORDER_V1, fields=ORDER_V1["fields"] + [
            {"name": "required_new", "type": "string"}])
        reader = self.write("bad.avsc", json.dumps(incompatible).encode())
        r = self.sluice("decode", "--registry", self.server.url, "--reader-schema", reader, path)
        self.assertEqual(r.returncode, 1, r.stderr.decode())
        self.assertIn("READER_FIELD_MISSING_DEFAULT_VALUE", r.stderr.decode())

    def test_registry_url_from_the_environment(self):
        path = self.write("env.bin", message_file(
            [frame(self.v1_id, avro_encode(self.v1, order(6)[0]))]))
        r = self.sluice("decode", "-q", path, env={"SLUICE_REGISTRY_URL": self.server.url})
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertEqual(self.json_lines(r.stdout), [order(6)[1]])
        self.assertEqual(r.stderr, b"")

    def test_usage_errors_exit_2(self):
        r = self.sluice("decode", "--registry", self.server.url, self.path("missing.bin"))
        self.assertEqual(r.returncode, 2)
        r = self.sluice("encode", "--registry", self.server.url, "--subject", "orders-value",
                        "--id", "1", "-", stdin=b"")
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"give --subject or --id, not both", r.stderr)
        r = self.sluice("encode", "--registry", self.server.url, "--subject", "nope-value",
                        "--out", self.path("x.bin"), "-", stdin=b"{}\n")
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"Subject 'nope-value' not found", r.stderr)
        # A registry that cannot be reached is an input error of the run.
        path = self.write("one.bin", message_file(
            [frame(self.v1_id, avro_encode(self.v1, order(1)[0]))]))
        r = self.sluice("decode", "--registry", "http://127.0.0.1:%d" % harness.free_port(), path)
        self.assertEqual(r.returncode, 2, r.stderr.decode())
        self.assertIn(b"cannot reach the registry", r.stderr)

    # ---- sluice encode writes, python-avro reads ----

    def test_encode_writes_messages_python_avro_reads(self):
        pairs = [order(n) for n in range(1, 10)]
        jsonl = "".join(json.dumps(e) + "\n" for _, e in pairs).encode()
        out = self.path("enc.bin")
        r = self.sluice("encode", "--registry", self.server.url, "--subject", "orders-value",
                        "--version", "1", "--out", out, self.write("in.jsonl", jsonl))
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        with open(out, "rb") as f:
            messages = read_message_file(f.read())
        self.assertEqual(len(messages), len(pairs))
        for message, (datum, _) in zip(messages, pairs):
            schema_id, payload = unframe(message)
            self.assertEqual(schema_id, self.v1_id)
            self.assertEqual(avro_decode(self.v1, payload), datum)
            # Byte for byte what python-avro writes.
            self.assertEqual(payload, avro_encode(self.v1, datum))

    def test_encode_by_id_and_latest_and_round_trip_through_decode(self):
        _, e = order(7)
        line = json.dumps(dict(e, channel="pos")) + "\n"
        r = self.sluice("encode", "--registry", self.server.url, "--subject", "orders-value", "-",
                        stdin=line.encode() + b"\n  \n")
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        schema_id, payload = unframe(read_message_file(r.stdout)[0])
        self.assertEqual(schema_id, self.v2_id)
        self.assertEqual(avro_decode(self.v2, payload)["channel"], "pos")
        r = self.sluice("encode", "--registry", self.server.url, "--id", str(self.v1_id),
                        "-q", "-", stdin=json.dumps(e).encode())
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        encoded = r.stdout
        self.assertEqual(unframe(read_message_file(encoded)[0])[0], self.v1_id)
        r = self.sluice("decode", "--registry", self.server.url, "-q", "-", stdin=encoded)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertEqual(self.json_lines(r.stdout), [e])

    def test_encode_skips_bad_lines_and_names_them(self):
        _, good = order(8)
        lines = [json.dumps(good), "{not json", json.dumps(dict(good, status="LOST")),
                 json.dumps(dict(good, items=[{"sku": "a", "qty": "two", "price": 1.0}])),
                 json.dumps(good)]
        out = self.path("partial.bin")
        r = self.sluice("encode", "--registry", self.server.url, "--subject", "orders-value",
                        "--version", "1", "--out", out,
                        self.write("bad.jsonl", ("\n".join(lines) + "\n").encode()))
        self.assertEqual(r.returncode, 1, r.stderr.decode())
        err = r.stderr.decode()
        self.assertIn("line 2:", err)
        self.assertIn("line 3: status: \"LOST\" is not a symbol of enum shop.Status", err)
        self.assertIn("line 4: items[0].qty: expected int, got string \"two\"", err)
        self.assertIn("2 records encoded with schema id %d, 3 failed" % self.v1_id, err)
        with open(out, "rb") as f:
            messages = read_message_file(f.read())
        self.assertEqual(len(messages), 2)
        for m in messages:
            self.assertEqual(avro_decode(self.v1, unframe(m)[1]), order(8)[0])


def main():
    global ARGS
    parser = argparse.ArgumentParser()
    parser.add_argument("--sluice", required=True)
    ARGS, rest = parser.parse_known_args()
    ARGS.sluice = os.path.abspath(ARGS.sluice)
    # "ignore": python-avro warns about every logical-type datum it writes without its type.
    prog = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2, warnings="ignore")
    sys.exit(0 if prog.result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
