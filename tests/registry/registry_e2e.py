"""End-to-end tests of `sluice registry serve`, driven by Confluent's own Python client
(Debian's python3-confluent-kafka) and by raw HTTP, on SQLite or a real PostgreSQL 15.

    /usr/bin/python3 tests/registry/registry_e2e.py --sluice build/sluice --store sqlite|postgresql

Exits 77 (skipped) when the client library or PostgreSQL is not installed.
"""

import argparse
import concurrent.futures
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402

SKIP = 77
ARGS = None
PG = None

try:
    from confluent_kafka.schema_registry import Schema, SchemaReference, SchemaRegistryClient
    from confluent_kafka.schema_registry.error import SchemaRegistryError
except ImportError as e:  # pragma: no cover - depends on the machine
    print(f"skipped: python3-confluent-kafka is not usable: {e}")
    sys.exit(SKIP)

ORDER_V1 = json.dumps({"type": "record", "name": "Order", "namespace": "shop",
                       "fields": [{"name": "order_id", "type": "long"},
                                  {"name": "amount", "type": "double"}]})
ORDER_V2 = json.dumps({"type": "record", "name": "Order", "namespace": "shop",
                       "fields": [{"name": "order_id", "type": "long"},
                                  {"name": "amount", "type": "double"},
                                  {"name": "coupon", "type": ["null", "string"],
                                   "default": None}]})
ORDER_BREAKING = json.dumps({"type": "record", "name": "Order", "namespace": "shop",
                             "fields": [{"name": "order_id", "type": "string"},
                                        {"name": "amount", "type": "double"}]})

_stores = 0


def new_store():
    """A store spec no other server in this run uses (a fresh database or SQLite file)."""
    global _stores
    _stores += 1
    if ARGS.store == "postgresql":
        db = f"reg{os.getpid()}_{_stores}"
        PG.run("createdb", "-h", "127.0.0.1", "-p", str(PG.port), "-U", "postgres", db)
        return f"postgresql://postgres@127.0.0.1:{PG.port}/{db}"
    folder = tempfile.mkdtemp(prefix="sluice_sqlite_")
    return "sqlite:" + os.path.join(folder, "registry.db")


def serve(store=None, *extra, scheme="http"):
    return harness.RegistryServer(ARGS.sluice, store or new_store(), *extra,
                                  scheme=scheme).start()


class RegistryTestCase(unittest.TestCase):
    def setUp(self):
        self.server = serve()
        self.addCleanup(self.server.close)
        self.client = SchemaRegistryClient({"url": self.server.url})

    def call(self, method, path, body=None, headers=None):
        data = body.encode() if isinstance(body, str) else body
        return harness.http(self.server.url + path, method, data, headers)


class ConfluentClientTest(RegistryTestCase):
    """Every SchemaRegistryClient call a producer, consumer or CI job makes."""

    def test_register_get_lookup_versions(self):
        v1 = Schema(ORDER_V1, "AVRO")
        id1 = self.client.register_schema("orders-value", v1)
        self.assertEqual(id1, 1)
        # Registering again gives the same id and no new version.
        self.assertEqual(self.client.register_schema("orders-value", v1), id1)
        got = self.client.get_schema(id1)
        self.assertEqual(got.schema_type, "AVRO")
        self.assertEqual(json.loads(got.schema_str), json.loads(ORDER_V1))
        id2 = self.client.register_schema("orders-value", Schema(ORDER_V2, "AVRO"))
        self.assertEqual(id2, 2)
        found = self.client.lookup_schema("orders-value", v1)
        self.assertEqual((found.schema_id, found.version, found.subject), (1, 1, "orders-value"))
        latest = self.client.get_latest_version("orders-value")
        self.assertEqual((latest.schema_id, latest.version), (2, 2))
        self.assertEqual(self.client.get_versions("orders-value"), [1, 2])
        self.assertEqual(self.client.get_version("orders-value", 1).schema_id, 1)
        self.assertEqual(self.client.get_subjects(), ["orders-value"])

    def test_same_schema_same_id_across_subjects(self):
        a = self.client.register_schema("a-value", Schema(ORDER_V1, "AVRO"))
        b = self.client.register_schema("b-value", Schema(ORDER_V1, "AVRO"))
        self.assertEqual(a, b)

    def test_compatibility(self):
        self.client.register_schema("orders-value", Schema(ORDER_V1, "AVRO"))
        self.assertTrue(self.client.test_compatibility("orders-value", Schema(ORDER_V2, "AVRO")))
        self.assertFalse(self.client.test_compatibility("orders-value",
                                                        Schema(ORDER_BREAKING, "AVRO")))
        with self.assertRaises(SchemaRegistryError) as e:
            self.client.register_schema("orders-value", Schema(ORDER_BREAKING, "AVRO"))
        self.assertEqual(e.exception.http_status_code, 409)
        self.assertEqual(e.exception.error_code, 409)
        self.assertIn("TYPE_MISMATCH", e.exception.error_message)

    def test_set_and_get_compatibility(self):
        self.assertEqual(self.client.get_compatibility(), "BACKWARD")
        self.assertEqual(self.client.set_compatibility("orders-value", "FULL"),
                         {"compatibility": "FULL"})
        self.assertEqual(self.client.get_compatibility("orders-value"), "FULL")
        self.client.set_compatibility(level="NONE")
        self.assertEqual(self.client.get_compatibility(), "NONE")
        with self.assertRaises(SchemaRegistryError) as e:
            self.client.set_compatibility("orders-value", "SIDEWAYS")
        self.assertEqual(e.exception.error_code, 42203)

    def test_delete_subject_soft_then_permanent(self):
        self.client.register_schema("gone-value", Schema(ORDER_V1, "AVRO"))
        self.client.register_schema("gone-value", Schema(ORDER_V2, "AVRO"))
        self.assertEqual(self.client.delete_subject("gone-value"), [1, 2])
        self.assertEqual(self.client.get_subjects(), [])
        # The ids still resolve after a soft delete: old messages stay readable. (Raw HTTP: the
        # client would answer from its own cache.)
        status, body = self.call("GET", "/schemas/ids/1")
        self.assertEqual((status, json.loads(json.loads(body)["schema"])),
                         (200, json.loads(ORDER_V1)))
        status, body = self.call("DELETE", "/subjects/gone-value?permanent=true")
        self.assertEqual((status, json.loads(body)), (200, [1, 2]))
        status, body = self.call("GET", "/schemas/ids/1")
        self.assertEqual((status, json.loads(body)["error_code"]), (404, 40403))
        # Ids are never reused, even after a hard delete. (A fresh client: this one remembers
        # the id it registered the schema under.)
        fresh = SchemaRegistryClient({"url": self.server.url})
        self.assertEqual(fresh.register_schema("gone-value", Schema(ORDER_V1, "AVRO")), 3)
        # The client's own permanent delete (a soft delete, then a hard one) works too.
        self.assertEqual(fresh.delete_subject("gone-value", permanent=True), [1])
        status, body = self.call("GET", "/subjects/gone-value/versions?deleted=true")
        self.assertEqual((status, json.loads(body)["error_code"]), (404, 40401))

    def test_references(self):
        address = json.dumps({"type": "record", "name": "Address", "namespace": "shop",
                              "fields": [{"name": "city", "type": "string"}]})
        customer = json.dumps({"type": "record", "name": "Customer", "namespace": "shop",
                               "fields": [{"name": "home", "type": "shop.Address"}]})
        self.assertEqual(self.client.register_schema("address", Schema(address, "AVRO")), 1)
        refs = [SchemaReference("shop.Address", "address", 1)]
        sid = self.client.register_schema("customer-value", Schema(customer, "AVRO", refs))
        self.assertEqual(sid, 2)
        fresh = SchemaRegistryClient({"url": self.server.url})  # no cached answers
        got = fresh.get_schema(sid)
        self.assertEqual(json.loads(got.schema_str), json.loads(customer))
        self.assertEqual([(r.name, r.subject, r.version) for r in got.references],
                         [("shop.Address", "address", 1)])
        latest = fresh.get_latest_version("customer-value")
        self.assertEqual((latest.schema_id, latest.version), (2, 1))
        self.assertEqual(fresh.lookup_schema("customer-value",
                                             Schema(customer, "AVRO", refs)).schema_id, 2)
        # The type is only known through the reference.
        with self.assertRaises(SchemaRegistryError) as e:
            fresh.register_schema("other-value", Schema(customer, "AVRO"))
        self.assertEqual(e.exception.error_code, 42201)
        status, body = self.call("GET", "/subjects/address/versions/1/referencedby")
        self.assertEqual((status, json.loads(body)), (200, [2]))
        with self.assertRaises(SchemaRegistryError) as e:
            fresh.delete_subject("address")
        self.assertEqual(e.exception.error_code, 42206)
        # JSON Schema references: `$ref` by the reference's name.
        city = json.dumps({"type": "object", "properties": {"name": {"type": "string"}}})
        self.assertEqual(self.client.register_schema("city-json", Schema(city, "JSON")), 3)
        person = json.dumps({"type": "object", "properties": {"city": {"$ref": "city.json"}}})
        jrefs = [SchemaReference("city.json", "city-json", 1)]
        self.assertEqual(self.client.register_schema("person-json",
                                                     Schema(person, "JSON", jrefs)), 4)
        got = SchemaRegistryClient({"url": self.server.url}).get_schema(4)
        self.assertEqual((got.schema_type, [r.name for r in got.references]),
                         ("JSON", ["city.json"]))

    def test_json_schema(self):
        js = json.dumps({"type": "object", "properties": {"id": {"type": "integer"}}})
        i = self.client.register_schema("events-value", Schema(js, "JSON"))
        got = self.client.get_schema(i)
        self.assertEqual(got.schema_type, "JSON")
        self.assertEqual(json.loads(got.schema_str), json.loads(js))

    def test_protobuf_is_a_clear_422(self):
        with self.assertRaises(SchemaRegistryError) as e:
            self.client.register_schema(
                "p-value", Schema('syntax = "proto3"; message M { int32 a = 1; }', "PROTOBUF"))
        self.assertEqual(e.exception.http_status_code, 422)
        self.assertIn("not supported yet", e.exception.error_message)

    def test_restart_loses_nothing(self):
        self.client.register_schema("orders-value", Schema(ORDER_V1, "AVRO"))
        self.client.set_compatibility("orders-value", "FULL")
        self.server.stop()
        self.server.start()
        client = SchemaRegistryClient({"url": self.server.url})
        self.assertEqual(client.get_versions("orders-value"), [1])
        self.assertEqual(client.get_compatibility("orders-value"), "FULL")
        self.assertEqual(client.register_schema("orders-value", Schema(ORDER_V2, "AVRO")), 2)


class BadInputTest(RegistryTestCase):
    """Hostile requests get the right 4xx and the server keeps serving."""

    def assertServing(self):
        status, body = self.call("GET", "/subjects")
        self.assertEqual(status, 200, body)

    def test_bad_bodies(self):
        cases = [
            ("{not json", 400, 400),
            ("", 400, 400),
            ("[1,2]", 422, 422),
            ('{"schema": 5}', 422, 422),
            ('{"schema": "{\\"type\\": \\"recordz\\"}"}', 422, 42201),
            ('{"schema": "\\"int\\"", "schemaType": "XML"}', 422, 42201),
            ('{"schema": ""}', 422, 42201),
            ('{"schema": "' + "[" * 300 + "]" * 300 + '"}', 422, 42201),
        ]
        for body, status, code in cases:
            with self.subTest(body=body[:40]):
                got_status, got = self.call("POST", "/subjects/s/versions", body)
                self.assertEqual(got_status, status, got)
                self.assertEqual(json.loads(got)["error_code"], code)
                self.assertServing()

    def test_unknown_fields_are_ignored(self):
        status, body = self.call("POST", "/subjects/s/versions",
                                 json.dumps({"schema": '"int"', "colour": "blue"}))
        self.assertEqual((status, body), (200, '{"id":1}'))

    def test_bad_paths_and_versions(self):
        self.assertEqual(self.call("GET", "/subjects/nope/versions")[0], 404)
        status, body = self.call("GET", "/subjects/s/versions/0")
        self.assertEqual((status, json.loads(body)["error_code"]), (422, 42202))
        self.assertEqual(self.call("GET", "/no/such/route")[0], 404)
        self.assertEqual(self.call("PATCH", "/subjects")[0], 405)
        self.assertServing()

    def test_huge_body_is_413(self):
        status, body = self.call("POST", "/subjects/s/versions", b"x" * (17 << 20))
        self.assertEqual(status, 413)
        self.assertEqual(json.loads(body)["error_code"], 413)
        self.assertServing()

    def test_slow_and_broken_clients(self):
        slow = serve(None, "--read-timeout", "1")
        self.addCleanup(slow.close)
        host, port = "127.0.0.1", int(slow.url.rsplit(":", 1)[1])
        # A client that sends half a request and stalls is dropped after the timeout.
        stalled = socket.create_connection((host, port))
        stalled.sendall(b"POST /subjects/s/versions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
        # One that sends garbage gets a 400.
        garbage = socket.create_connection((host, port))
        garbage.sendall(b"\x16\x03\x01 not http at all\r\n\r\n")
        reply = garbage.recv(4096)
        self.assertTrue(reply.startswith(b"HTTP/1.1 400"), reply)
        garbage.close()
        status, _ = harness.http(slow.url + "/subjects")
        self.assertEqual(status, 200)
        stalled.settimeout(5)
        start = time.time()
        try:
            data = stalled.recv(4096)
        except (ConnectionResetError, socket.timeout):
            data = b""
        self.assertLess(time.time() - start, 4.5)
        self.assertFalse(data.startswith(b"HTTP/1.1 200"), data)
        stalled.close()
        self.assertEqual(harness.http(slow.url + "/subjects")[0], 200)


class AuthTest(unittest.TestCase):
    """Basic auth from a users file, with per-prefix permissions; and TLS."""

    @classmethod
    def setUpClass(cls):
        cls.dir = tempfile.mkdtemp(prefix="sluice_auth_")

        def hash_of(password):
            out = subprocess.run([ARGS.sluice, "registry", "hash-password", "--iterations",
                                  "2000"], input=password + "\n", capture_output=True,
                                 text=True, check=True)
            return out.stdout.strip()

        users = {"users": [
            {"name": "admin", "password": hash_of("root-pw"),
             "permissions": [{"prefix": "*", "permission": "admin"}]},
            {"name": "orders-ci", "password": hash_of("ci-pw"),
             "permissions": [{"prefix": "orders-", "permission": "write"}]},
            {"name": "reader", "password": hash_of("read-pw"),
             "permissions": [{"prefix": "orders-", "permission": "read"}]},
        ]}
        cls.users = os.path.join(cls.dir, "users.json")
        with open(cls.users, "w") as f:
            json.dump(users, f)

    def test_permissions(self):
        server = serve(None, "--auth", self.users)
        self.addCleanup(server.close)

        def as_user(user_info):
            conf = {"url": server.url}
            if user_info:
                conf["basic.auth.user.info"] = user_info
            return SchemaRegistryClient(conf)

        with self.assertRaises(SchemaRegistryError) as e:
            as_user(None).get_subjects()
        self.assertEqual(e.exception.http_status_code, 401)
        with self.assertRaises(SchemaRegistryError) as e:
            as_user("orders-ci:wrong").get_subjects()
        self.assertEqual(e.exception.http_status_code, 401)
        ci = as_user("orders-ci:ci-pw")
        self.assertEqual(ci.register_schema("orders-value", Schema(ORDER_V1, "AVRO")), 1)
        with self.assertRaises(SchemaRegistryError) as e:
            ci.register_schema("users-value", Schema(ORDER_V1, "AVRO"))
        self.assertEqual(e.exception.http_status_code, 403)
        with self.assertRaises(SchemaRegistryError) as e:
            ci.set_compatibility(level="NONE")  # global config needs admin
        self.assertEqual(e.exception.http_status_code, 403)
        reader = as_user("reader:read-pw")
        self.assertEqual(reader.get_latest_version("orders-value").schema_id, 1)
        with self.assertRaises(SchemaRegistryError) as e:
            reader.register_schema("orders-value", Schema(ORDER_V2, "AVRO"))
        self.assertEqual(e.exception.http_status_code, 403)
        admin = as_user("admin:root-pw")
        admin.register_schema("users-value", Schema(ORDER_V2, "AVRO"))
        self.assertEqual(reader.get_subjects(), ["orders-value"])  # only what it may read
        self.assertEqual(admin.delete_subject("users-value"), [1])

    def test_tls(self):
        # A private CA and a server certificate it signed, as an operator would set it up.
        ca_key, ca = (os.path.join(self.dir, n) for n in ("ca-key.pem", "ca.pem"))
        key, csr, cert = (os.path.join(self.dir, n) for n in ("key.pem", "req.pem", "cert.pem"))
        ext = os.path.join(self.dir, "ext.cnf")
        with open(ext, "w") as f:
            f.write("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\n")

        def openssl(*args):
            subprocess.run(["openssl"] + list(args), check=True, capture_output=True)

        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca,
                "-days", "2", "-subj", "/CN=sluice test CA")
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr,
                "-subj", "/CN=127.0.0.1")
        openssl("x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial",
                "-out", cert, "-days", "2", "-extfile", ext)
        # requests lets REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE override the client's own CA file,
        # so take them out of the environment for this test.
        for var in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"):
            if var in os.environ:
                self.addCleanup(os.environ.__setitem__, var, os.environ.pop(var))
        server = serve(None, "--tls-cert", cert, "--tls-key", key, scheme="https")
        self.addCleanup(server.close)
        client = SchemaRegistryClient({"url": server.url, "ssl.ca.location": ca})
        self.assertEqual(client.register_schema("t-value", Schema(ORDER_V1, "AVRO")), 1)
        # Plain HTTP to the TLS port does not get an answer.
        plain = server.url.replace("https://", "http://")
        with self.assertRaises(Exception):
            harness.http(plain + "/subjects")
        ctx = ssl.create_default_context(cafile=ca)
        self.assertEqual(harness.http(server.url + "/subjects", context=ctx),
                         (200, '["t-value"]'))


class MetricsTest(RegistryTestCase):
    def test_prometheus_text(self):
        self.client.register_schema("m-value", Schema(ORDER_V1, "AVRO"))
        self.call("GET", "/schemas/ids/1")
        self.call("GET", "/schemas/ids/99")
        status, text = self.call("GET", "/metrics")
        self.assertEqual(status, 200)
        self.assertIn('sluice_registry_requests_total{route="POST /subjects/{subject}/versions",'
                      'status="200"} 1', text)
        self.assertIn('sluice_registry_requests_total{route="GET /schemas/ids/{id}",'
                      'status="404"} 1', text)
        self.assertIn('sluice_registry_request_seconds_bucket{route="GET /schemas/ids/{id}",'
                      'le="+Inf"} 2', text)
        self.assertIn("sluice_registry_subjects 1\n", text)
        self.assertIn("sluice_registry_schemas 1\n", text)


class CliTest(RegistryTestCase):
    """`sluice registry ...` as a CI job uses it: exit 1 when a schema file is incompatible."""

    def run_cli(self, *args):
        return subprocess.run([ARGS.sluice, "registry"] + list(args) + ["--url", self.server.url],
                              capture_output=True, text=True)

    def test_register_and_check(self):
        d = tempfile.mkdtemp()
        files = {}
        for name, text in (("v1", ORDER_V1), ("v2", ORDER_V2), ("bad", ORDER_BREAKING)):
            files[name] = os.path.join(d, name + ".avsc")
            with open(files[name], "w") as f:
                f.write(text)
        r = self.run_cli("register", "orders-value", files["v1"])
        self.assertEqual((r.returncode, r.stdout.strip()), (0, '{"id":1}'), r.stderr)
        r = self.run_cli("compat", "orders-value", files["v2"])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        r = self.run_cli("compat", "orders-value", files["bad"])
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("TYPE_MISMATCH", r.stdout)
        r = self.run_cli("register", "orders-value", files["bad"])
        self.assertEqual(r.returncode, 1, r.stderr)
        r = self.run_cli("versions", "orders-value")
        self.assertEqual(r.stdout.strip(), "[1]")
        r = self.run_cli("config", "orders-value", "--set", "NONE")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = self.run_cli("get", "orders-value", "--schema-only")
        self.assertEqual(json.loads(r.stdout), json.loads(ORDER_V1))
        r = self.run_cli("delete", "orders-value")
        self.assertEqual(r.stdout.strip(), "[1]")
        r = self.run_cli("get", "--id", "42")
        self.assertEqual(r.returncode, 2)
        self.assertIn("40403", r.stderr)


def register_many(url, subject_of, count, acked, errors):
    """Register `count` distinct schemas; record (subject, schema text, id) once acknowledged."""
    client = SchemaRegistryClient({"url": url})
    for i in range(count):
        subject = subject_of(i)
        text = json.dumps({"type": "record", "name": f"R{threading.get_ident()}_{i}",
                           "fields": [{"name": "a", "type": "int"}]})
        try:
            sid = client.register_schema(subject, Schema(text, "AVRO"))
            acked.append((subject, text, sid))
        except Exception as e:  # a server being killed mid-request
            errors.append(repr(e))


def allow_any_change(url):
    """Global compatibility NONE: the stress tests register unrelated schemas under one subject."""
    status, _ = harness.http(url + "/config", "PUT", b'{"compatibility": "NONE"}',
                             {"Content-Type": "application/vnd.schemaregistry.v1+json"})
    assert status == 200, status


class ConcurrencyTest(unittest.TestCase):
    def test_concurrent_registrations_get_unique_ids(self):
        store = new_store()
        servers = [serve(store)]
        if ARGS.store == "postgresql":
            servers.append(serve(store))  # two servers on one database
        for s in servers:
            self.addCleanup(s.close)
        allow_any_change(servers[0].url)
        acked, errors = [], []
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            for t in range(8):
                url = servers[t % len(servers)].url
                pool.submit(register_many, url, lambda i, t=t: f"s{(t + i) % 3}", 15, acked,
                            errors)
        self.assertEqual(errors, [])
        ids = [sid for _, _, sid in acked]
        self.assertEqual(len(ids), 120)
        self.assertEqual(len(set(ids)), 120, "an id was given to two schemas")
        # Every server gives the same answers, and every subject's versions are 1..n.
        answers = []
        for s in servers:
            client = SchemaRegistryClient({"url": s.url})
            per_server = {}
            for subject in ("s0", "s1", "s2"):
                versions = client.get_versions(subject)
                self.assertEqual(versions, list(range(1, len(versions) + 1)))
                per_server[subject] = [client.get_version(subject, v).schema_id for v in versions]
            answers.append(per_server)
            for subject, text, sid in acked:
                self.assertEqual(json.loads(client.get_schema(sid).schema_str), json.loads(text))
        self.assertEqual(sum(len(v) for v in answers[0].values()), 120)
        for other in answers[1:]:
            self.assertEqual(other, answers[0])


class CrashTest(unittest.TestCase):
    def test_kill_9_loses_no_acknowledged_registration(self):
        store = new_store()
        server = serve(store)
        self.addCleanup(server.close)
        allow_any_change(server.url)
        acked, errors = [], []
        threads = [threading.Thread(target=register_many,
                                    args=(server.url, lambda i, t=t: f"c{t}", 400, acked,
                                          errors))
                   for t in range(4)]
        for t in threads:
            t.start()
        # Kill the server once registrations are flowing.
        deadline = time.time() + 30
        while len(acked) < 40 and time.time() < deadline:
            time.sleep(0.01)
        server.stop(signal.SIGKILL)
        for t in threads:
            t.join()
        self.assertGreaterEqual(len(acked), 40)
        before_ids = {sid for _, _, sid in acked}
        server.start()
        client = SchemaRegistryClient({"url": server.url})
        for subject, text, sid in acked:
            self.assertEqual(json.loads(client.get_schema(sid).schema_str), json.loads(text))
            self.assertEqual(client.lookup_schema(subject, Schema(text, "AVRO")).schema_id, sid)
        # A new schema after the restart gets an id above every one handed out before.
        fresh = client.register_schema("after-crash", Schema(
            json.dumps({"type": "fixed", "name": "F", "size": 3}), "AVRO"))
        self.assertGreater(fresh, max(before_ids))


def main():
    global ARGS, PG
    parser = argparse.ArgumentParser()
    parser.add_argument("--sluice", required=True)
    parser.add_argument("--store", choices=["sqlite", "postgresql"], default="sqlite")
    ARGS, rest = parser.parse_known_args()
    ARGS.sluice = os.path.abspath(ARGS.sluice)
    if ARGS.store == "postgresql":
        if not harness.TempPostgres.available():
            print("skipped: PostgreSQL 15 (postgresql-15) is not installed")
            sys.exit(SKIP)
        PG = harness.TempPostgres().start()
    try:
        prog = unittest.main(argv=[sys.argv[0]] + rest, exit=False, verbosity=2)
        ok = prog.result.wasSuccessful()
    finally:
        if PG:
            PG.stop()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
