"""The web UI in headless Chromium: builds a lake (seed 000's users table with its mergeSchema
commit, an ingest checkpoint with a quarantined line, drift alerts in two outboxes), starts
`sluice registry serve --ui` with basic auth on a free loopback port, and runs ui_e2e.mjs
(puppeteer-core driving Debian's /usr/bin/chromium) against it.

    /usr/bin/python3 tests/ui/run_ui_e2e.py --sluice build/sluice [--screenshots DIR]

Screenshots go to a temporary folder unless --screenshots names one (UPDATE_SCREENSHOTS=1 means
docs/images/ of this checkout). Exits 77 (skipped) when node, chromium or tests/ui/node_modules
(scripts/install-deps installs them) is missing.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "registry"))
import harness  # noqa: E402

SKIP = 77
CHROMIUM = os.environ.get("SLUICE_CHROMIUM", "/usr/bin/chromium")
USERS = {"ana": ("ana-secret-1", [{"prefix": "*", "permission": "admin"}]),
         "rob": ("rob-secret-2", [{"prefix": "", "permission": "read"}])}


def run(cmd, **kw):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stdout}{r.stderr}")
    return r.stdout


def users_file(sluice, folder):
    users = []
    for name, (password, grants) in USERS.items():
        digest = run([sluice, "registry", "hash-password"], input=password + "\n").strip()
        users.append({"name": name, "password": digest, "permissions": grants})
    path = os.path.join(folder, "users.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"users": users}, f)
    return path


def lake(sluice, folder):
    """Seed 000's users table (create, append, append with --merge-schema) and an ingest of the
    landing example in two batches (the second adds coupon_code and quarantines a cut line)."""
    ex = os.path.join(ROOT, "examples")
    table = os.path.join(folder, "users")
    run([sluice, "table", "create", table, "--schema", os.path.join(ex, "users_table.ddl"), "-q"])
    run([sluice, "table", "append", table, os.path.join(ex, "users_v1.jsonl"), "-q"])
    run([sluice, "table", "append", table, os.path.join(ex, "users_v2.jsonl"), "--merge-schema",
         "-q"])
    land = os.path.join(folder, "landing")
    os.mkdir(land)
    ckpt = os.path.join(folder, "ckpt-orders")
    sink = os.path.join(folder, "delivered-alerts.jsonl")
    for name in ("orders-001.json", "orders-002.json"):
        shutil.copy(os.path.join(ex, "landing", name), land)
        run([sluice, "ingest", land, "--to", os.path.join(folder, "silver-orders"),
             "--checkpoint", ckpt, "--infer-column-types", "--notify", "file:" + sink, "-q"])
    return table, ckpt, sink


class StandaloneUi:
    """`sluice ui --registry URL`: the UI alone, forwarding the registry's REST paths."""

    def __init__(self, proc, url, log):
        self.proc, self.url, self.log = proc, url, log

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def start_ui(sluice, folder, registry_url, table):
    port_file = os.path.join(folder, "ui-port")
    log = open(os.path.join(folder, "ui-log"), "ab")
    proc = subprocess.Popen(
        [sluice, "ui", "--listen", "127.0.0.1:0", "--port-file", port_file,
         "--registry", registry_url, "--auth", os.path.join(folder, "users.json"),
         "--table", "users=" + table],
        stdout=log, stderr=log)
    deadline = time.time() + 20
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("sluice ui exited with " + str(proc.returncode))
        if os.path.exists(port_file):
            with open(port_file) as f:
                port = f.read().strip()
            if port:
                return StandaloneUi(proc, f"http://127.0.0.1:{port}", log)
        time.sleep(0.02)
    proc.kill()
    raise RuntimeError("sluice ui did not start")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--sluice", required=True)
    p.add_argument("--screenshots", help="folder for the PNGs (default: a temporary one)")
    args = p.parse_args()
    sluice = os.path.abspath(args.sluice)

    node = shutil.which("node")
    if not node or not os.access(CHROMIUM, os.X_OK):
        print(f"skipped: needs node and {CHROMIUM} (Debian's chromium)")
        return SKIP
    if not os.path.isdir(os.path.join(HERE, "node_modules", "puppeteer-core")):
        print("skipped: tests/ui/node_modules is missing (scripts/install-deps runs npm ci)")
        return SKIP

    shots = args.screenshots
    if not shots and os.environ.get("UPDATE_SCREENSHOTS") == "1":
        shots = os.path.join(ROOT, "docs", "images")
    # The pages show the lake's paths: the screenshots of the docs show a short, stable one.
    # (Only when that folder is free: another run may be using it.)
    folder = None
    if shots:
        try:
            os.mkdir("/tmp/sluice-demo")
            folder = "/tmp/sluice-demo"
        except FileExistsError:
            pass
    if folder is None:
        folder = tempfile.mkdtemp(prefix="sluice_ui_")
    server = None
    standalone = None
    failed = True
    try:
        if not shots:
            shots = os.path.join(folder, "screenshots")
        os.makedirs(shots, exist_ok=True)

        table, ckpt, sink = lake(sluice, folder)
        outbox = os.path.join(folder, "registry-alerts.db")
        server = harness.RegistryServer(
            sluice, "sqlite:" + os.path.join(folder, "registry.db"),
            "--auth", users_file(sluice, folder), "--ui",
            "--ui-table", "users=" + table,
            "--ui-ingest", "orders=" + ckpt,
            "--ui-alerts", "ingest=" + os.path.join(ckpt, ".sluice-alerts.db"),
            "--ui-alerts", "registry=" + outbox,
            "--notify", "file:" + sink, "--outbox", outbox).start()
        # `sluice ui` alone in front of that registry, as the same users.
        standalone = start_ui(sluice, folder, server.url, table)
        env = dict(os.environ,
                   SLUICE_UI_URL=server.url,
                   SLUICE_UI_STANDALONE_URL=standalone.url,
                   SLUICE_UI_USERS=json.dumps({k: v[0] for k, v in USERS.items()}),
                   SLUICE_UI_SCREENSHOTS=os.path.abspath(shots),
                   SLUICE_UI_EXAMPLES=os.path.join(ROOT, "examples"),
                   SLUICE_CHROMIUM=CHROMIUM)
        r = subprocess.run([node, "--test", "--test-reporter=spec", "--test-concurrency=1",
                            os.path.join(HERE, "ui_e2e.mjs")], cwd=HERE, env=env, timeout=540)
        failed = r.returncode != 0
        if failed:
            print("--- server log ---\n" + server.read_log()[-4000:])
        print(f"screenshots in {shots}")
        return 1 if failed else 0
    finally:
        if standalone:
            standalone.stop()
        if server:
            server.close()
        # A failed run keeps its lake and screenshots to look at.
        if not failed or shots != os.path.join(folder, "screenshots"):
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
