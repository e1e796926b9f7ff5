#!/usr/bin/python3
"""Alert delivery end to end: alert_outbox_tool processes deliver to receiver.py through every
failure it can script (500, 429 with Retry-After, a hang past the timeout, a reset), while the test
kills delivering processes with SIGKILL at random moments and restarts them.

Checks, from the receiver's log of every request:
  - every enqueued alert is accepted (2xx) in the end: the distinct X-Sluice-Delivery ids of 2xx
    answers are exactly the enqueued ids, each body as enqueued;
  - an id is accepted twice only when a process that was then killed had it in flight;
  - per source, no alert is sent before the previous one of that source was accepted;
  - every request carries X-Sluice-Signature-256 = sha256=HMAC(secret, body);
  - a 429's Retry-After is honoured unless a kill came in between;
  - enqueueing a change again stores nothing.
Random seeds are printed; rerun one with --seed.
"""

import argparse
import hashlib
import hmac
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

SECRET = "e2e signing secret \u00e9"
SOURCES = ["payments", "orders", "users"]


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--tool", required=True)
    p.add_argument("--receiver", required=True)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--kills", type=int, default=24)
    p.add_argument("--changes", type=int, default=6, help="changes per source")
    return p.parse_args()


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


class Run:
    def __init__(self, args, work, rng):
        self.args = args
        self.rng = rng
        self.outbox = os.path.join(work, "outbox.db")
        self.log = os.path.join(work, "requests.jsonl")
        self.env = dict(os.environ, ALERT_E2E_SECRET=SECRET)
        self.lifetimes = []  # (start, end, killed)
        self.enqueued = {}  # id -> (source, body)
        self.order = {s: [] for s in SOURCES}
        self.receiver = None
        self.target = None

    def start_receiver(self):
        modes = ["200"] * 6 + ["500"] * 3 + ["429:1"] + ["hang:3.5"] + ["reset"] * 3
        script = [self.rng.choice(modes) for _ in range(90)]
        # Each failure at least once, early, so every run goes through all of them.
        script[1:1] = ["500", "429:1", "hang:3.5", "reset"]
        self.receiver = subprocess.Popen(
            ["/usr/bin/python3", self.args.receiver, "--log", self.log, "--script",
             ",".join(script)], stdout=subprocess.PIPE, text=True)
        port = int(self.receiver.stdout.readline())
        self.target = "webhook:http://127.0.0.1:%d/hooks/T0SECRET/drift" % port

    def tool(self, *argv):
        out = subprocess.run([self.args.tool, *argv], env=self.env, capture_output=True,
                             text=True, timeout=200)
        if out.returncode != 0:
            fail("alert_outbox_tool %s: exit %d: %s" % (argv[0], out.returncode, out.stderr))
        return json.loads(out.stdout.splitlines()[-1]) if argv[0] != "list" else [
            json.loads(line) for line in out.stdout.splitlines()]

    def enqueue(self, source, n, again=False):
        alert_id = "%s-%03d" % (source, n)
        body = json.dumps({"source": source, "change": n, "id": alert_id}, sort_keys=True)
        got = self.tool("enqueue", "--outbox", self.outbox, "--source", source, "--old",
                        "fp%d" % n, "--new", "fp%d" % (n + 1), "--target", self.target,
                        "--secret-env", "ALERT_E2E_SECRET", "--body", body, "--id", alert_id)
        want = 0 if again else 1
        if got["stored"] != want:
            fail("enqueue %s stored %d, want %d" % (alert_id, got["stored"], want))
        if not again:
            self.enqueued[alert_id] = (source, body)
            self.order[source].append(alert_id)

    def deliver_cmd(self, deadline_ms):
        return [self.args.tool, "deliver", "--outbox", self.outbox, "--deadline-ms",
                str(deadline_ms), "--timeout-ms", "1500", "--min-interval-ms", "20",
                "--initial-backoff-ms", "50", "--max-backoff-ms", "400"]

    def kill_rounds(self):
        """Store alerts, start one or two deliverers, kill them at a random moment; again until
        --kills of them died with SIGKILL (a deliverer that finished first does not count)."""
        next_change = {s: 0 for s in SOURCES}
        kills = 0
        rounds = 0
        # How long a deliverer may live before the kill: halved each time the deliverers of a
        # round all finished first (once the receiver's script is spent, every answer is a quick
        # 200), doubled again after a kill, so that the kills keep landing at random moments of
        # a deliverer's life however fast the machine is.
        cap = 0.8
        while kills < self.args.kills:
            rounds += 1
            if rounds > 20 * self.args.kills:
                fail("only %d kills in %d rounds" % (kills, rounds))
            # At least one new alert, so the deliverer has work when it is killed.
            for _ in range(self.rng.randint(1, 2)):
                s = self.rng.choice(SOURCES)
                self.enqueue(s, next_change[s])
                next_change[s] += 1
            if self.rng.random() < 0.2:
                alert_id = self.rng.choice(sorted(self.enqueued))
                source, n = alert_id.rsplit("-", 1)
                self.enqueue(source, int(n), again=True)
            procs = []
            for _ in range(2 if self.rng.random() < 0.3 else 1):
                procs.append((time.time(), subprocess.Popen(
                    self.deliver_cmd(60000), env=self.env, stdout=subprocess.DEVNULL)))
            time.sleep(self.rng.choice([0.0, 0.01, 0.05]) * cap / 0.8 + self.rng.random() * cap)
            killed = 0
            for start, p in procs:
                p.send_signal(signal.SIGKILL)
                p.wait()
                self.lifetimes.append((start, time.time(), p.returncode == -signal.SIGKILL))
                killed += p.returncode == -signal.SIGKILL
            kills += killed
            cap = min(0.8, cap * 2) if killed else max(0.002, cap / 2)
        for s in SOURCES:
            while next_change[s] < self.args.changes:
                self.enqueue(s, next_change[s])
                next_change[s] += 1
        return kills

    def finish(self):
        start = time.time()
        out = subprocess.run(self.deliver_cmd(200000), env=self.env, capture_output=True,
                             text=True, timeout=250)
        self.lifetimes.append((start, time.time(), False))
        if out.returncode != 0:
            fail("final deliver: exit %d: %s" % (out.returncode, out.stderr))
        summary = json.loads(out.stdout)
        print("final deliver:", summary, flush=True)
        if summary["pending"] != 0 or summary["failed"] != 0:
            fail("final deliver left %s" % summary)
        for entry in self.tool("list", "--outbox", self.outbox):
            if entry["state"] != "delivered":
                fail("outbox entry not delivered: %s" % entry)
            if "T0SECRET" in json.dumps(entry):
                fail("the outbox's listing shows the URL's path: %s" % entry)


def check(run):
    with open(run.log, encoding="utf-8") as f:
        requests = [json.loads(line) for line in f]
    answers = {r["answer"].split(":")[0] for r in requests}
    for mode in ("200", "500", "429", "hang", "reset"):
        if mode not in answers:
            fail("the receiver never answered %s" % mode)
    accepted = {}  # id -> times of 2xx answers
    first_request = {}
    for r in requests:
        h = {k.lower(): v for k, v in r["headers"].items()}
        alert_id = h.get("x-sluice-delivery")
        if alert_id not in run.enqueued:
            fail("request with unknown delivery id %r" % alert_id)
        if r["body"] != run.enqueued[alert_id][1]:
            fail("%s: body %r, enqueued %r" % (alert_id, r["body"], run.enqueued[alert_id][1]))
        want = "sha256=" + hmac.new(SECRET.encode(), r["body"].encode(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(h.get("x-sluice-signature-256", ""), want):
            fail("%s: bad signature %r" % (alert_id, h.get("x-sluice-signature-256")))
        first_request.setdefault(alert_id, r["t"])
        if r["status"] is not None and 200 <= r["status"] < 300:
            accepted.setdefault(alert_id, []).append(r["t"])

    missing = sorted(set(run.enqueued) - set(accepted))
    if missing:
        fail("never accepted: %s" % missing)
    killed = [(a, b) for a, b, k in run.lifetimes if k]
    duplicates = 0
    for alert_id, times in accepted.items():
        for t in times[:-1]:
            duplicates += 1
            # The earlier acceptance must have been in flight in a process killed right after.
            # The receiver logs when it has read the request, which may be just after the kill of
            # the process that wrote it: allow it half a second.
            if not any(a <= t <= b + 0.5 for a, b in killed):
                near = [(round(a - t, 3), round(b - t, 3), k) for a, b, k in run.lifetimes
                        if a - 2 <= t <= b + 2]
                seen = [(round(r["t"] - t, 3), r["answer"]) for r in requests
                        if r["headers"].get("X-Sluice-Delivery") == alert_id]
                fail("%s accepted twice (at %s) with no kill in between; processes around "
                     "(start, end, killed) relative: %s; its requests: %s" %
                     (alert_id, times, near, seen))
    for source, ids in run.order.items():
        for prev, cur in zip(ids, ids[1:]):
            if first_request[cur] < accepted[prev][0]:
                fail("%s was sent before %s was accepted" % (cur, prev))
    kill_times = [b for _, b, k in run.lifetimes if k]
    for i, r in enumerate(requests):
        if not r["answer"].startswith("429"):
            continue
        alert_id = r["headers"].get("X-Sluice-Delivery")
        later = [q for q in requests[i + 1:] if q["headers"].get("X-Sluice-Delivery") == alert_id]
        if later and not any(r["t"] <= k <= later[0]["t"] for k in kill_times):
            if later[0]["t"] - r["t"] < 0.95:
                fail("%s retried %.3f s after a 429 with Retry-After: 1" %
                     (alert_id, later[0]["t"] - r["t"]))
    print("%d alerts, %d requests, %d accepted twice after a kill" %
          (len(run.enqueued), len(requests), duplicates), flush=True)


def main():
    args = parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 32)
    print("seed %d (rerun with --seed %d)" % (seed, seed), flush=True)
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="sluice-alert-e2e-") as work:
        run = Run(args, work, rng)
        run.start_receiver()
        try:
            kills = run.kill_rounds()
            print("%d deliver processes killed with SIGKILL" % kills, flush=True)
            if kills < args.kills:
                fail("only %d kills" % kills)
            run.finish()
        finally:
            run.receiver.kill()
            run.receiver.wait()
        check(run)
    print("PASS", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
