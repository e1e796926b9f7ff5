#!/usr/bin/python3
"""`sluice drift` end to end, seed 000's scenario first: a baseline recorded from the payments
data, `settlement_method` appears (one Slack-shaped message, "compatible"), a second run sends
nothing, amount turning from long to string alerts as breaking; the seed's own bare MD5 file is
read as a baseline. Then the hooks: `registry serve --notify`, `ingest --notify` and `table
append --notify` each send one alert per schema change. Alerts go to a loopback HTTP receiver."""

import argparse
import email
import email.policy
import hashlib
import http.server
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "registry"))
from harness import RegistryServer, free_port  # noqa: E402


class Receiver:
    """A loopback HTTP server that answers 200 and records every POST (path, headers, JSON)."""

    def __init__(self):
        self.requests = []
        self.lock = threading.Lock()
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                n = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(n)
                with outer.lock:
                    outer.requests.append({"path": self.path, "headers": dict(self.headers),
                                           "body": json.loads(body)})
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def take(self):
        with self.lock:
            out, self.requests = self.requests, []
        return out

    def wait_for(self, count, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            with self.lock:
                if len(self.requests) >= count:
                    break
            time.sleep(0.05)
        return self.take()


def run(sluice, *args, env=None, expect=None):
    proc = subprocess.run([sluice, *args], capture_output=True, text=True, env=env, timeout=120)
    if expect is not None and proc.returncode != expect:
        raise AssertionError(f"sluice {' '.join(args)}: exit {proc.returncode}, expected "
                             f"{expect}\nstdout: {proc.stdout}\nstderr: {proc.stderr}")
    return proc


def write_jsonl(path, records):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")


def check(cond, message):
    if not cond:
        raise AssertionError(message)


def pyspark_md5(fields):
    """hashlib.md5(df.schema.json().encode()).hexdigest(), as the seed computes it, for a
    struct of (name, type, nullable) fields."""
    doc = {"type": "struct", "fields": [
        {"name": n, "type": t, "nullable": nullable, "metadata": {}} for n, t, nullable in fields]}
    return hashlib.md5(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def slack_text(message):
    """Every text of a Block Kit message, flattened, to look for words in it."""
    return json.dumps(message)


def seed_scenario(sluice, work, receiver):
    env = dict(os.environ, SLACK_WEBHOOK_URL=receiver.url + "/services/T000/B000/XXXX")
    data = os.path.join(work, "payments")
    baseline = os.path.join(work, "baselines", "payments.json")
    write_jsonl(os.path.join(data, "part-0.jsonl"),
                [{"transaction_id": i, "amount": 100 * i, "timestamp": 1700000000 + i}
                 for i in range(1, 6)])
    check_args = ["drift", "check", data, "--baseline", baseline,
                  "--notify", "slack:env:SLACK_WEBHOOK_URL"]

    # First run: the baseline is recorded, nothing is sent.
    first = run(sluice, *check_args, env=env, expect=0)
    check("recorded" in first.stdout, first.stdout)
    check(os.path.exists(baseline), "no baseline written")
    with open(baseline) as f:
        recorded = json.load(f)
    # Spark infers JSON fields sorted by name, every one nullable.
    seed_md5 = pyspark_md5([("amount", "long", True), ("timestamp", "long", True),
                            ("transaction_id", "long", True)])
    check(recorded["fingerprints"]["sparkMd5"] == seed_md5, recorded["fingerprints"])
    check(receiver.wait_for(1, timeout=1) == [], "the first run sent an alert")

    # Unchanged: exit 0, silent.
    same = run(sluice, *check_args, env=env, expect=0)
    check(same.stdout == "", same.stdout)

    # settlement_method appears: one Slack message, compatible, exit 1.
    write_jsonl(os.path.join(data, "part-1.jsonl"),
                [{"transaction_id": 6, "amount": 600, "timestamp": 1700000006,
                  "settlement_method": "card"}])
    changed = run(sluice, *check_args, env=env, expect=1)
    check("settlement_method" in changed.stdout and "compatible" in changed.stdout,
          changed.stdout)
    got = receiver.wait_for(1)
    check(len(got) == 1, f"{len(got)} messages for one change")
    msg = got[0]
    check(msg["path"] == "/services/T000/B000/XXXX", msg["path"])
    check("blocks" in msg["body"] and "text" in msg["body"], msg["body"])
    text = slack_text(msg["body"])
    check("settlement_method" in text and "compatible" in text, text)
    check(recorded["fingerprints"]["sha256"][:12] in text, "old fingerprint not in the message")

    # The same change found again: exit 1 (still not accepted), nothing sent.
    again = run(sluice, *check_args, env=env, expect=1)
    check("settlement_method" in again.stdout, again.stdout)
    check(receiver.wait_for(1, timeout=1.5) == [], "a second run alerted again")

    # amount long -> string: breaking, one more message.
    write_jsonl(os.path.join(data, "part-2.jsonl"),
                [{"transaction_id": 7, "amount": "7.00", "timestamp": 1700000007,
                  "settlement_method": "cash"}])
    breaking = run(sluice, *check_args, env=env, expect=1)
    check("breaking" in breaking.stdout and "amount" in breaking.stdout, breaking.stdout)
    got = receiver.wait_for(1)
    check(len(got) == 1 and "breaking" in slack_text(got[0]["body"]), got)

    # JSON output carries the verdict and the changes.
    as_json = run(sluice, *check_args, "--format", "json", env=env, expect=1)
    doc = json.loads(as_json.stdout)
    check(doc["verdict"] == "breaking", doc)
    check(any(c["path"] == "amount" for c in doc["changes"]), doc["changes"])
    check(receiver.wait_for(1, timeout=1) == [], "a JSON run alerted again")

    # --accept moves the baseline, recording who; the next run is silent.
    accepted = run(sluice, *check_args, "--accept", env=dict(env, SLUICE_USER="ana"), expect=1)
    with open(baseline) as f:
        moved = json.load(f)
    check(moved["recordedBy"] == "ana" and moved["reason"] == "accepted", moved)
    check(moved["previous"]["fingerprints"]["sha256"] == recorded["fingerprints"]["sha256"],
          moved["previous"])
    receiver.take()
    run(sluice, *check_args, env=env, expect=0)
    del accepted

    # The seed's own baseline file: a bare MD5 of PySpark's schema.json(), read as is.
    v1 = os.path.join(work, "payments_v1")
    write_jsonl(os.path.join(v1, "part-0.jsonl"),
                [{"transaction_id": 1, "amount": 100, "timestamp": 1700000001}])
    md5_file = os.path.join(work, "last_schema.txt")
    with open(md5_file, "w") as f:
        f.write(seed_md5)
    run(sluice, "drift", "check", v1, "--baseline", md5_file, expect=0)
    fp = run(sluice, "drift", "check", data, "--baseline", md5_file, "--format", "json",
             expect=1)
    doc = json.loads(fp.stdout)
    check(doc["verdict"] == "unknown" and doc["baselineKind"] == "md5", doc)
    check(doc["before"]["sparkMd5"] == seed_md5, doc["before"])
    check([f["name"] for f in doc["fields"]] ==
          ["amount", "settlement_method", "timestamp", "transaction_id"], doc["fields"])
    # --accept while it still matches turns the MD5 file into a sluice baseline.
    run(sluice, "drift", "check", v1, "--baseline", md5_file, "--accept", expect=0)
    with open(md5_file) as f:
        upgraded = json.load(f)
    check(upgraded["fingerprints"]["sparkMd5"] == seed_md5, upgraded)
    print("seed 000 scenario: ok")


def registry_hook(sluice, work, receiver):
    store = "sqlite:" + os.path.join(work, "registry.db")
    server = RegistryServer(sluice, store, "--notify", f"webhook:{receiver.url}/registry",
                            "--outbox", os.path.join(work, "registry-alerts.db"))
    server.start()
    try:
        def register(schema):
            req = urllib.request.Request(
                server.url + "/subjects/payments-value/versions",
                data=json.dumps({"schema": json.dumps(schema)}).encode(),
                headers={"Content-Type": "application/vnd.schemaregistry.v1+json"})
            with urllib.request.urlopen(req, timeout=10) as r:
                return json.load(r)

        v1 = {"type": "record", "name": "Payment", "fields": [
            {"name": "transaction_id", "type": "long"}, {"name": "amount", "type": "long"}]}
        v2 = dict(v1, fields=v1["fields"] + [
            {"name": "settlement_method", "type": ["null", "string"], "default": None}])
        register(v1)
        register(v2)
        register(v2)  # the same schema again: no new version, no alert
        got = receiver.wait_for(1)
        time.sleep(1.0)
        got += receiver.take()
        check(len(got) == 1, f"registry: {len(got)} alerts for one new version")
        body = got[0]["body"]
        check(body["verdict"] == "compatible" and body["sourceKind"] == "registry", body)
        check(body["source"].endswith("/payments-value"), body["source"])
        check("BACKWARD" in body["rulesDetail"], body["rulesDetail"])
        check(got[0]["headers"].get("X-Sluice-Delivery") == body["alertId"], got[0]["headers"])

        # The subject as a baseline: a producer's next schema, judged under BACKWARD.
        authority = server.url[len("http://"):]
        ref = f"registry://{authority}/payments-value"
        v3 = os.path.join(work, "payment_v3.avsc")
        with open(v3, "w") as f:
            json.dump(dict(v2, fields=v2["fields"] + [{"name": "fee", "type": "long"}]), f)
        proc = run(sluice, "drift", "check", v3, "--baseline", ref, "--format", "json", expect=1)
        doc = json.loads(proc.stdout)
        check(doc["verdict"] == "breaking" and doc["baselineKind"] == "registry", doc)
        check(doc["rules"] == "registry" and "BACKWARD" in doc["rulesDetail"], doc)
        check(doc["reasons"] and doc["reasons"][0]["rule"], doc["reasons"])
        v3ok = os.path.join(work, "payment_v3ok.avsc")
        with open(v3ok, "w") as f:
            json.dump(dict(v2, fields=v2["fields"] + [
                {"name": "fee", "type": "long", "default": 0}]), f)
        proc = run(sluice, "drift", "check", v3ok, "--baseline", ref, "--format", "json", expect=1)
        check(json.loads(proc.stdout)["verdict"] == "compatible", proc.stdout)
        # The subject as the source, against a baseline file: the first run records it.
        base = os.path.join(work, "subject-baseline.json")
        run(sluice, "drift", "check", ref, "--baseline", base, expect=0)
        run(sluice, "drift", "check", ref, "--baseline", base, expect=0)
    finally:
        server.stop()
        server.close()
    print("registry hook: ok")


def ingest_hook(sluice, work, receiver):
    landing = os.path.join(work, "landing")
    table = os.path.join(work, "bronze")
    ckpt = os.path.join(work, "ckpt")
    common = ["ingest", landing, "--to", table, "--checkpoint", ckpt, "--once", "-q",
              "--notify", f"webhook:{receiver.url}/ingest"]
    write_jsonl(os.path.join(landing, "a.jsonl"), [{"transaction_id": 1, "amount": 10}])
    run(sluice, *common, expect=0)
    check(receiver.wait_for(1, timeout=1) == [], "ingest alerted on creating the table")
    write_jsonl(os.path.join(landing, "b.jsonl"),
                [{"transaction_id": 2, "amount": 20, "settlement_method": "card"}])
    run(sluice, *common, expect=0)
    got = receiver.wait_for(1)
    time.sleep(0.5)
    got += receiver.take()
    check(len(got) == 1, f"ingest: {len(got)} alerts for one evolution")
    body = got[0]["body"]
    check(body["sourceKind"] == "ingest", body)
    check(any(c["path"] == "settlement_method" and c["kind"] == "field_added"
              for c in body["changes"]), body["changes"])
    # Nothing new: nothing sent.
    run(sluice, *common, expect=0)
    check(receiver.wait_for(1, timeout=1) == [], "ingest alerted without a change")
    print("ingest hook: ok")


def table_hook(sluice, work, receiver):
    table = os.path.join(work, "silver")
    v1 = os.path.join(work, "t1.jsonl")
    v2 = os.path.join(work, "t2.jsonl")
    write_jsonl(v1, [{"id": 1, "amount": 5}])
    write_jsonl(v2, [{"id": 2, "amount": 6, "channel": "web"}])
    notify = ["--notify", f"webhook:{receiver.url}/table"]
    run(sluice, "table", "append", table, v1, *notify, expect=0)
    run(sluice, "table", "append", table, v1, *notify, expect=0)
    check(receiver.wait_for(1, timeout=1) == [], "table alerted without a schema change")
    run(sluice, "table", "append", table, v2, "--merge-schema", *notify, expect=0)
    got = receiver.wait_for(1)
    check(len(got) == 1, f"table: {len(got)} alerts for one schema change")
    body = got[0]["body"]
    check(body["verdict"] == "compatible" and body["sourceKind"] == "delta", body)
    check(any(c["path"] == "channel" for c in body["changes"]), body["changes"])

    # The table against itself at a version: Delta's rules with the table's properties.
    proc = run(sluice, "drift", "check", table, "--baseline", table + "@v1", "--format", "json",
               expect=1)
    doc = json.loads(proc.stdout)
    check(doc["verdict"] == "compatible" and doc["rules"] == "delta", doc)
    check(doc["sourceKind"] == "delta" and doc["baselineKind"] == "delta", doc)
    run(sluice, "drift", "check", table, "--baseline", table + "@v2", expect=0)
    print("table hook: ok")


def secrets_stay_secret(sluice, work):
    """A webhook URL is a secret: a delivery that fails must not print it, nor must errors."""
    data = os.path.join(work, "secret-src")
    write_jsonl(os.path.join(data, "a.jsonl"), [{"id": 1}])
    baseline = os.path.join(work, "secret", "b.json")
    run(sluice, "drift", "check", data, "--baseline", baseline, expect=0)
    write_jsonl(os.path.join(data, "b.jsonl"), [{"id": 2, "extra": "x"}])
    secret = "T0SECRET/B0SECRET/XXSECRETXX"
    env = dict(os.environ, HOOK_URL=f"http://127.0.0.1:1/services/{secret}?token=SECRETQ")
    proc = run(sluice, "drift", "check", data, "--baseline", baseline, "--notify",
               f"slack:http://127.0.0.1:1/services/{secret}", "--notify", "webhook:env:HOOK_URL",
               "--webhook-secret-env", "NO_SUCH_SECRET_VAR", "--deliver-timeout", "2",
               env=env, expect=1)
    out = proc.stdout + proc.stderr
    check("SECRET" not in out, "a secret was printed:\n" + out)
    check("still waiting" in out or "not delivered" in out, out)
    bad = run(sluice, "drift", "check", data, "--baseline", baseline, "--notify",
              "slack:ftp://user:SECRETPW@example.com/x", env=env, expect=2)
    check("SECRETPW" not in bad.stdout + bad.stderr, bad.stderr)
    print("secrets: ok")


def watch_loop(sluice, work, receiver):
    """`drift watch`: --once for cron, then a long-running watcher that alerts on a change
    made while it runs and stops cleanly on SIGTERM."""
    a = os.path.join(work, "watch", "a")
    b = os.path.join(work, "watch", "b")
    write_jsonl(os.path.join(a, "1.jsonl"), [{"id": 1}])
    write_jsonl(os.path.join(b, "1.jsonl"), [{"k": "x"}])
    config = os.path.join(work, "watch", "drift.yaml")
    with open(config, "w") as f:
        f.write(f"""defaults:
  interval: 1s
  notify: [webhook:{receiver.url}/watch]
sources:
  - name: a
    source: a
    baseline: baselines/a.json
  - name: b
    source: b
    baseline: baselines/b.json
    notify: [webhook:{receiver.url}/watch-b, file:alerts-b.jsonl]
""")
    run(sluice, "drift", "watch", config, "--once", expect=0)
    check(os.path.exists(os.path.join(work, "watch", "baselines", "a.json")), "no baseline a")
    write_jsonl(os.path.join(b, "2.jsonl"), [{"k": "y", "new": 1}])
    once = run(sluice, "drift", "watch", config, "--once", expect=1)
    check("new" in once.stdout, once.stdout)
    got = receiver.wait_for(1)
    check(len(got) == 1 and got[0]["path"] == "/watch-b", got)
    with open(os.path.join(work, "watch", "alerts-b.jsonl")) as f:
        check(len(f.readlines()) == 1, "file target")
    # A long-running watcher: a change made while it runs is alerted once.
    proc = subprocess.Popen([sluice, "drift", "watch", config, "-q"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1.5)
        write_jsonl(os.path.join(a, "2.jsonl"), [{"id": 2, "note": "n"}])
        got = receiver.wait_for(1, timeout=20)
        time.sleep(2.5)  # more rounds: nothing more is sent for the same change
        got += receiver.take()
        check(len(got) == 1 and got[0]["body"]["source"].endswith("/watch/a"), got)
    finally:
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=30)
    check(proc.returncode in (0, 1), f"watch exited {proc.returncode}: {err}")
    print("watch: ok")


def email_pipeline(sluice, work):
    """The whole path to an inbox: drift check -> outbox -> SMTP (aiosmtpd on loopback)."""
    try:
        from aiosmtpd.controller import Controller
    except ImportError:
        print("email: python3-aiosmtpd missing; skipped")
        return
    inbox = []

    class Handler:
        async def handle_DATA(self, server, session, envelope):
            inbox.append(envelope)
            return "250 OK"

    port = free_port()
    controller = Controller(Handler(), hostname="127.0.0.1", port=port)
    controller.start()
    try:
        data = os.path.join(work, "mail-src")
        write_jsonl(os.path.join(data, "a.jsonl"), [{"id": 1, "amount": 5}])
        baseline = os.path.join(work, "mail", "b.json")
        target = f"email:smtp://127.0.0.1:{port}?to=data-team@example.com&from=sluice@example.com"
        run(sluice, "drift", "check", data, "--baseline", baseline, "--notify", target, expect=0)
        write_jsonl(os.path.join(data, "b.jsonl"), [{"id": 2, "amount": "5.00"}])
        run(sluice, "drift", "check", data, "--baseline", baseline, "--notify", target, expect=1)
        deadline = time.time() + 10
        while not inbox and time.time() < deadline:
            time.sleep(0.05)
        check(len(inbox) == 1, f"{len(inbox)} emails")
        env = inbox[0]
        check(env.rcpt_tos == ["data-team@example.com"], env.rcpt_tos)
        msg = email.message_from_bytes(env.original_content, policy=email.policy.default)
        check("breaking" in msg["Subject"], msg["Subject"])
        check("amount" in msg.get_content(), msg.get_content())
    finally:
        controller.stop()
    print("email: ok")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="sluice_drift_")
    receiver = Receiver()
    try:
        seed_scenario(args.sluice, os.path.join(work, "seed"), receiver)
        registry_hook(args.sluice, work, receiver)
        ingest_hook(args.sluice, work, receiver)
        table_hook(args.sluice, work, receiver)
        secrets_stay_secret(args.sluice, work)
        watch_loop(args.sluice, work, receiver)
        email_pipeline(args.sluice, work)
    finally:
        receiver.server.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
