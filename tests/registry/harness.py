"""Helpers for the registry's end-to-end tests: start `sluice registry serve` on a free loopback
port, and a throwaway PostgreSQL 15 cluster (initdb/pg_ctl as an unprivileged user)."""

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request

PG_BIN = "/usr/lib/postgresql/15/bin"
PG_USER = "sluice-pg"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RegistryServer:
    """One `sluice registry serve` process. `url` is set once it answers."""

    def __init__(self, sluice, store, *extra, scheme="http"):
        self.sluice = sluice
        self.store = store
        self.extra = list(extra)
        self.scheme = scheme
        self.proc = None
        self.url = None
        self.dir = tempfile.mkdtemp(prefix="sluice_reg_")

    def start(self):
        port_file = os.path.join(self.dir, "port")
        if os.path.exists(port_file):
            os.remove(port_file)
        self.log = open(os.path.join(self.dir, "log"), "ab")
        self.proc = subprocess.Popen(
            [self.sluice, "registry", "serve", "--listen", "127.0.0.1:0", "--port-file",
             port_file, "--store", self.store,
             # Idle connections close after 1 s, so a stop does not wait the default 5 s.
             "--keep-alive-timeout", "1"] + self.extra,
            stdout=self.log, stderr=self.log)
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("sluice registry serve exited: " + self.read_log())
            if os.path.exists(port_file):
                with open(port_file) as f:
                    text = f.read().strip()
                if text:
                    self.url = f"{self.scheme}://127.0.0.1:{text}"
                    return self
            time.sleep(0.02)
        raise RuntimeError("sluice registry serve did not start: " + self.read_log())

    def read_log(self):
        try:
            with open(os.path.join(self.dir, "log"), errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def stop(self, sig=signal.SIGTERM):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
        if getattr(self, "log", None):
            self.log.close()
            self.log = None

    def close(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class TempPostgres:
    """A PostgreSQL 15 cluster in a temporary folder, started with pg_ctl and removed on stop.
    As root, the server runs as the unprivileged user `sluice-pg` (created if missing), since
    PostgreSQL refuses to run as root."""

    @staticmethod
    def available():
        return os.path.exists(os.path.join(PG_BIN, "initdb"))

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="sluice_pg_")
        os.chmod(self.dir, 0o755)
        self.data = os.path.join(self.dir, "data")
        self.port = free_port()
        self.as_user = []
        if os.geteuid() == 0:
            try:
                pwd.getpwnam(PG_USER)
            except KeyError:
                subprocess.run(["useradd", "--system", "--no-create-home", "--shell",
                                "/usr/sbin/nologin", PG_USER], check=True)
            shutil.chown(self.dir, PG_USER)
            self.as_user = ["runuser", "-u", PG_USER, "--"]

    def run(self, *cmd):
        return subprocess.run(self.as_user + [os.path.join(PG_BIN, cmd[0])] + list(cmd[1:]),
                              check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              cwd=self.dir)

    def start(self):
        self.run("initdb", "-D", self.data, "-A", "trust", "-U", "postgres", "--no-sync")
        opts = (f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.dir} "
                "-c fsync=on -c max_connections=300")
        self.run("pg_ctl", "-D", self.data, "-o", opts, "-l",
                 os.path.join(self.dir, "log"), "-w", "-t", "60", "start")
        return self

    @property
    def uri(self):
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def stop(self):
        try:
            self.run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)


def http(url, method="GET", body=None, headers=None, context=None):
    """(status, body text) of one request; HTTP errors are answers too."""
    req = urllib.request.Request(url, method=method, data=body, headers=headers or {})
    if body is not None and "Content-Type" not in (headers or {}):
        req.add_header("Content-Type", "application/vnd.schemaregistry.v1+json")
    try:
        with urllib.request.urlopen(req, timeout=30, context=context) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
