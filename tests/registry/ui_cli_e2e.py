"""End-to-end: `sluice registry serve --ui` and `sluice ui --registry` as a user runs them: the
UI's URL on stderr, the page and its session, a table named on the command line, CSRF on the
REST API, and the REST API forwarded with the caller's credentials."""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import RegistryServer  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
TYPE = "application/vnd.schemaregistry.v1+json"


def call(url, method="GET", body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers=dict(headers or {}))
    if data is not None:
        req.add_header("Content-Type", TYPE)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode()


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def start_ui(sluice, work, *args):
    port_file = os.path.join(work, "ui-port")
    log = open(os.path.join(work, "ui-log"), "wb")
    proc = subprocess.Popen([sluice, "ui", "--listen", "127.0.0.1:0", "--port-file", port_file]
                            + list(args), stdout=log, stderr=log)
    deadline = time.time() + 20
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError("sluice ui exited")
        if os.path.exists(port_file) and open(port_file).read().strip():
            return proc, "http://127.0.0.1:" + open(port_file).read().strip()
        time.sleep(0.02)
    raise RuntimeError("sluice ui did not start")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="sluice_ui_e2e_")
    table = os.path.join(work, "users")
    subprocess.run([a.sluice, "table", "append", table,
                    os.path.join(REPO, "examples", "users_v1.jsonl"), "-q"], check=True)
    reg = RegistryServer(a.sluice, "sqlite:" + os.path.join(work, "reg.db"),
                         "--ui", "--ui-table", table)
    ui = None
    try:
        reg.start()
        time.sleep(0.1)
        check(reg.url + "/ui/" in reg.read_log(), "the UI's URL on stderr: " + reg.read_log())
        status, headers, page = call(reg.url + "/ui/subjects/x")
        check(status == 200 and "<html" in page.lower(), "the page at a client route")
        check("frame-ancestors 'none'" in headers["Content-Security-Policy"], "the CSP")
        status, _, body = call(reg.url + "/ui/api/session")
        session = json.loads(body)
        check(session["tables"] == [{"name": "users", "path": table}], body)
        status, _, body = call(reg.url + "/ui/api/tables")
        check(json.loads(body)[0]["version"] == 0, body)

        schema = {"schema": json.dumps({"type": "record", "name": "r",
                                        "fields": [{"name": "a", "type": "string"}]})}
        status, _, body = call(reg.url + "/subjects/s/versions", "POST", schema,
                               {"Origin": "http://evil.example"})
        check(status == 403 and "CSRF" in body, f"a foreign page's write: {status} {body}")
        status, _, body = call(reg.url + "/subjects/s/versions", "POST", schema,
                               {"Origin": reg.url, "X-Sluice-CSRF": session["csrfToken"]})
        check(status == 200, f"the page's write: {status} {body}")
        status, _, body = call(reg.url + "/subjects/s/versions", "POST", schema)
        check(status == 200, f"a plain client's write: {status} {body}")

        ui, ui_url = start_ui(a.sluice, work, "--registry", reg.url, "--table", "t=" + table)
        time.sleep(0.1)
        log = open(os.path.join(work, "ui-log")).read()
        check(ui_url + "/ui/" in log, "sluice ui's URL on stderr: " + log)
        status, _, body = call(ui_url + "/subjects")
        check(status == 200 and json.loads(body) == ["s"], f"forwarded: {status} {body}")
        status, _, body = call(ui_url + "/ui/api/subjects/s/versions/1/tree")
        check(status == 200 and json.loads(body)["fields"][0]["path"] == "a", body)
        status, _, body = call(ui_url + "/ui/api/session")
        check(json.loads(body)["registry"] is True, body)
        check(json.loads(body)["tables"][0]["name"] == "t", body)
        print("ok")
        return 0
    finally:
        if ui:
            ui.send_signal(signal.SIGTERM)
            ui.wait(timeout=20)
        reg.stop()
        reg.close()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
