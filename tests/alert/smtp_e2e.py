#!/usr/bin/python3
"""The SMTP sender (smtp_send_tool, one SendSmtp call) against real servers on loopback.

aiosmtpd (Debian's python3-aiosmtpd) with STARTTLS, AUTH and a throwaway test CA made with the
openssl command; then raw-socket servers that misbehave: an endless multi-line reply, a 1 MB
line, garbage, silence, and plain text injected after the reply to STARTTLS.

Usage: smtp_e2e.py --tool PATH/smtp_send_tool. Exit 0 when every case passes, 1 when one fails,
77 (skipped) without aiosmtpd or the openssl command.
"""

import argparse
import base64
import email
import email.policy
import json
import logging
import os
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

try:
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult, LoginPassword
except ImportError:
    print("smtp_e2e: python3-aiosmtpd is not installed; skipped")
    sys.exit(77)

USER = "alerts@example.com"
PASSWORD = "S3cret-pw-7f2a!%"
TIMEOUT_MS = 3000
BODY = (
    "Schema drift on payments\n"
    ".\n"
    "..two dots\n"
    ".leading dot\n"
    "end.\n"
    "\n"
    "last line\n"
)

failures = []
passes = []


def check(cond, what):
    if cond:
        passes.append(what)
        print(f"  ok   {what}")
    else:
        print(f"  FAIL {what}")
        failures.append(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_certs(d):
    """A test CA, a server certificate for 127.0.0.1 and localhost, and one for another name."""
    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
            "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
            "-subj", "/CN=sluice smtp test CA", cwd=d)
    for name, san in (("server", "IP:127.0.0.1,IP:::1,DNS:localhost"), ("other", "DNS:other.example")):
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name}", cwd=d)
        with open(os.path.join(d, f"{name}.ext"), "w") as f:
            f.write(f"subjectAltName={san}\n")
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
                "-CAcreateserial", "-out", f"{name}.pem", "-days", "2",
                "-extfile", f"{name}.ext", cwd=d)


class Recorder:
    """An aiosmtpd handler that keeps every message and can refuse recipients with 451."""

    def __init__(self):
        self.messages = []
        self.mail_from_seen = 0
        self.refuse_rcpt = False

    async def handle_MAIL(self, server, session, envelope, address, mail_options):
        self.mail_from_seen += 1
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if self.refuse_rcpt:
            return "451 4.3.0 mailbox busy, try later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.messages.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.content,
                              session.ssl is not None))
        return "250 2.0.0 queued"


def authenticator(server, session, envelope, mechanism, auth_data):
    ok = (isinstance(auth_data, LoginPassword) and auth_data.login == USER.encode()
          and auth_data.password == PASSWORD.encode())
    if ok:
        return AuthResult(success=True)
    return AuthResult(success=False, handled=False,
                      message="535 5.7.8 Authentication credentials invalid")


def start_server(handler, certs, cert="server", tls=True, implicit=False, host="127.0.0.1",
                 **kwargs):
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        port = s.getsockname()[1]
    params = dict(hostname=host, port=port, server_hostname="localhost", **kwargs)
    if tls:
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        ctx.load_cert_chain(os.path.join(certs, f"{cert}.pem"), os.path.join(certs, f"{cert}.key"))
        params.update(authenticator=authenticator, auth_required=True)
        if implicit:
            # aiosmtpd 1.4 counts only STARTTLS as TLS for auth_require_tls; this is TLS.
            params.update(ssl_context=ctx, auth_require_tls=False)
        else:
            params.update(tls_context=ctx, require_starttls=True)
    controller = Controller(handler, **params)
    controller.start()
    return controller, port


def run_tool(tool, url, subject, body_file, ca=None, env_extra=None, timeout_ms=TIMEOUT_MS):
    env = {k: v for k, v in os.environ.items() if k not in ("SSL_CERT_FILE", "SSL_CERT_DIR")}
    env.update(env_extra or {})
    cmd = [tool, "--url", url, "--subject", subject, "--body-file", body_file,
           "--timeout-ms", str(timeout_ms), "--id", "alert-0042"]
    if ca:
        cmd += ["--ca-cert", ca]
    started = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    elapsed = time.monotonic() - started
    try:
        result = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        result = {"outcome": "no-json", "status": -1, "detail": p.stdout + p.stderr}
    result["exit"] = p.returncode
    result["elapsed"] = elapsed
    result["raw"] = p.stdout + p.stderr
    return result


def url_for(port, user=True, to="ops@example.com,oncall@example.com", extra=""):
    who = "alerts%40example.com@" if user else ""
    pw = "&password-env=SMTP_PW" if user else ""
    return f"smtp://{who}127.0.0.1:{port}?to={to}&from=sluice@example.com{pw}{extra}"


def aiosmtpd_cases(tool, certs, body_file):
    ca = os.path.join(certs, "ca.pem")
    good_pw = {"SMTP_PW": PASSWORD}

    rec = Recorder()
    ctl, port = start_server(rec, certs)
    try:
        print("(a) STARTTLS, AUTH PLAIN, the test CA")
        r = run_tool(tool, url_for(port), "Schema drift: payments", body_file, ca, good_pw)
        check(r["outcome"] == "delivered" and r["exit"] == 0 and r["status"] == 250,
              f"delivered: {r['outcome']} {r['status']} {r['detail']}")
        check(len(rec.messages) == 1, "the server got one message")
        if rec.messages:
            mail_from, rcpts, content, over_tls = rec.messages[0]
            msg = email.message_from_bytes(content, policy=email.policy.default)
            check(over_tls, "the message went over TLS")
            check(mail_from == "sluice@example.com", f"MAIL FROM {mail_from}")
            check(rcpts == ["ops@example.com", "oncall@example.com"], f"RCPT TO {rcpts}")
            check(msg["Subject"] == "Schema drift: payments", f"Subject {msg['Subject']!r}")
            check(msg["From"] == "sluice@example.com", f"From {msg['From']!r}")
            check(msg["To"] == "ops@example.com, oncall@example.com", f"To {msg['To']!r}")
            check(msg["Message-ID"] == "<alert-0042@example.com>",
                  f"Message-ID {msg['Message-ID']!r}")
            check(msg["X-Sluice-Delivery"] == "alert-0042", "X-Sluice-Delivery: the alert id")
            check(msg["MIME-Version"] == "1.0", "MIME-Version 1.0")
            check(msg.get_content_type() == "text/plain", f"Content-Type {msg['Content-Type']}")
            check(msg["Date"] is not None and msg["Date"].datetime is not None, "a Date header")
            text = msg.get_content().replace("\r\n", "\n")
            check(text == BODY, f"the body, dot-stuffed lines intact: {text!r}")
            check(b"\r\n" not in content.replace(b"\r\n", b"") and b"\n" in content,
                  "CRLF line endings, no bare CR")

        print("(a2) SSL_CERT_FILE instead of --ca-cert")
        r = run_tool(tool, url_for(port), "via SSL_CERT_FILE", body_file, None,
                     {**good_pw, "SSL_CERT_FILE": ca})
        check(r["outcome"] == "delivered", f"delivered: {r['detail']}")

        print("(b) without the test CA")
        before = len(rec.messages)
        r = run_tool(tool, url_for(port), "no CA", body_file, None, good_pw)
        check(r["outcome"] == "permanent" and r["exit"] == 1, f"permanent: {r['detail']}")
        check("verif" in r["detail"], "the detail says verification failed")
        check(len(rec.messages) == before, "nothing received")
        r = run_tool(tool, url_for(port, user=False), "auto, no CA", body_file, None)
        check(r["outcome"] == "permanent" and "starttls=off" in r["detail"],
              f"loopback auto: permanent, with a hint for a local relay: {r['detail']}")
        check(len(rec.messages) == before, "nothing received, no fallback to clear text")

        r = run_tool(tool, url_for(port), "missing CA file", body_file,
                     os.path.join(certs, "missing.pem"), good_pw)
        check(r["outcome"] == "permanent" and "missing.pem" in r["detail"],
              f"a CA file that cannot be read: permanent, named: {r['detail']}")

        print("(c) a wrong password")
        wrong = "Wr0ng-pa55word-q9"
        mails = rec.mail_from_seen
        r = run_tool(tool, url_for(port), "wrong password", body_file, ca, {"SMTP_PW": wrong})
        check(r["outcome"] == "permanent" and r["status"] == 535,
              f"permanent 535: {r['status']} {r['detail']}")
        leaked = [s for s in (wrong, base64.b64encode(wrong.encode()).decode(),
                              base64.b64encode(f"\0{USER}\0{wrong}".encode()).decode())
                  if s in r["raw"]]
        check(not leaked, "the password appears nowhere in the output")
        check(rec.mail_from_seen == mails, "no MAIL FROM after the refused AUTH")

        print("(c2) the password variable unset")
        r = run_tool(tool, url_for(port), "unset", body_file, ca, {})
        check(r["outcome"] == "permanent" and "SMTP_PW" in r["detail"],
              f"permanent, names the variable: {r['detail']}")

        print("(d) 451 to RCPT")
        rec.refuse_rcpt = True
        before = len(rec.messages)
        r = run_tool(tool, url_for(port), "busy", body_file, ca, good_pw)
        rec.refuse_rcpt = False
        check(r["outcome"] == "retry" and r["status"] == 451, f"retry 451: {r['detail']}")
        check(len(rec.messages) == before, "nothing received")

        print("(f) a non-ASCII subject and body")
        subject = "Dérive de schéma ⚠ Zahlungsströme — 支払い " * 3
        rec.messages.clear()
        body_file2 = body_file + ".utf8"
        with open(body_file2, "w", encoding="utf-8") as f:
            f.write("Spalte «betrag» geändert\n.naïve leading dot\n" + "x" * 1200 + "\n")
        r = run_tool(tool, url_for(port), subject, body_file2, ca, good_pw)
        check(r["outcome"] == "delivered", f"delivered: {r['detail']}")
        if rec.messages:
            content = rec.messages[0][2]
            msg = email.message_from_bytes(content, policy=email.policy.default)
            check(msg["Subject"] == subject, f"Subject decoded intact: {msg['Subject']!r}")
            check(all(b < 0x80 for b in content), "the message is 7-bit on the wire")
            check(max(len(x) for x in content.split(b"\r\n")) <= 998, "no line over 998 bytes")
            with open(body_file2, encoding="utf-8") as f:
                want = f.read()
            check(msg["Content-Transfer-Encoding"] == "quoted-printable", "quoted-printable")
            check(msg.get_content().replace("\r\n", "\n") == want, "the UTF-8 body decoded intact")
    finally:
        ctl.stop()

    print("(a3) AUTH LOGIN when the server offers no PLAIN")
    rec = Recorder()
    ctl, port = start_server(rec, certs, auth_exclude_mechanism=["PLAIN"])
    try:
        r = run_tool(tool, url_for(port), "login", body_file, ca, good_pw)
        check(r["outcome"] == "delivered" and len(rec.messages) == 1, f"delivered: {r['detail']}")
    finally:
        ctl.stop()

    print("(j) smtps://, TLS from the first byte")
    rec = Recorder()
    ctl, port = start_server(rec, certs, implicit=True)
    try:
        url = f"smtps://alerts%40example.com@localhost:{port}?to=a@example.com&password-env=SMTP_PW"
        r = run_tool(tool, url, "implicit", body_file, ca, good_pw)
        check(r["outcome"] == "delivered" and len(rec.messages) == 1, f"delivered: {r['detail']}")
        before = len(rec.messages)
        r = run_tool(tool, url, "implicit, no CA", body_file, None, good_pw)
        check(r["outcome"] == "permanent" and "verif" in r["detail"], f"permanent: {r['detail']}")
        check(len(rec.messages) == before, "nothing more received")
    finally:
        ctl.stop()

    print("(k) IPv6 loopback, [::1]")
    try:
        rec = Recorder()
        ctl, port = start_server(rec, certs, host="::1")
    except OSError as e:
        print(f"  skip (no IPv6 loopback: {e})")
    else:
        try:
            url = f"smtp://alerts%40example.com@[::1]:{port}?to=a@example.com&password-env=SMTP_PW"
            r = run_tool(tool, url, "v6", body_file, ca, good_pw)
            check(r["outcome"] == "delivered" and len(rec.messages) == 1,
                  f"delivered: {r['detail']}")
        finally:
            ctl.stop()

    print("(l) a subject that tries to add a header")
    rec = Recorder()
    ctl, port = start_server(rec, certs)
    try:
        r = run_tool(tool, url_for(port), "Drift\r\nBcc: evil@example.com", body_file, ca,
                     good_pw)
        check(r["outcome"] == "delivered", f"delivered: {r['detail']}")
        if rec.messages:
            msg = email.message_from_bytes(rec.messages[0][2], policy=email.policy.default)
            check(msg["Bcc"] is None and "evil" in msg["Subject"],
                  f"no Bcc header, the text stays in the subject: {msg['Subject']!r}")
    finally:
        ctl.stop()

    print("(g) a certificate for another name")
    rec = Recorder()
    ctl, port = start_server(rec, certs, cert="other")
    try:
        r = run_tool(tool, url_for(port), "wrong name", body_file, ca, good_pw)
        check(r["outcome"] == "permanent" and "verif" in r["detail"], f"permanent: {r['detail']}")
        check(not rec.messages, "nothing received")
    finally:
        ctl.stop()

    print("(e) starttls=required, a server without STARTTLS")
    rec = Recorder()
    ctl, port = start_server(rec, certs, tls=False)
    try:
        r = run_tool(tool, url_for(port, user=False, extra="&starttls=required"), "clear",
                     body_file, ca)
        check(r["outcome"] == "permanent" and "STARTTLS" in r["detail"], f"permanent: {r['detail']}")
        check(rec.mail_from_seen == 0 and not rec.messages, "nothing sent in clear")
        r = run_tool(tool, url_for(port, extra="&starttls=required"), "clear", body_file, ca,
                     good_pw)
        check(r["outcome"] == "permanent" and rec.mail_from_seen == 0, "nor with a user")
        print("(e2) a loopback host defaults to starttls=auto: plain delivery, no password")
        r = run_tool(tool, url_for(port, user=False), "loopback auto", body_file, ca)
        check(r["outcome"] == "delivered" and len(rec.messages) == 1, f"delivered: {r['detail']}")
        print("(e3) smtp://localhost resolves and delivers the same way")
        r = run_tool(tool, f"smtp://localhost:{port}?to=a@example.com", "localhost", body_file)
        check(r["outcome"] == "delivered", f"delivered: {r['detail']}")
    finally:
        ctl.stop()


class RawServer:
    """One-connection TCP server on loopback that runs `script(conn)` and then closes."""

    def __init__(self, script):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        self.received = b""
        self.thread = threading.Thread(target=self._run, args=(script,), daemon=True)
        self.thread.start()

    def _run(self, script):
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        conn.settimeout(15)
        try:
            script(conn, self)
        except OSError:
            pass
        finally:
            conn.close()
            self.sock.close()

    def read_line(self, conn):
        data = b""
        while not data.endswith(b"\n"):
            chunk = conn.recv(1)
            if not chunk:
                break
            data += chunk
        self.received += data
        return data


def endless(conn, srv):
    line = b"220-" + b"x" * 70 + b"\r\n"
    while True:
        conn.sendall(line * 100)


def huge_line(conn, srv):
    conn.sendall(b"220 " + b"y" * (1 << 20))
    time.sleep(10)


def garbage(conn, srv):
    conn.sendall(b"\x00\xffHTTP/1.1 400 Bad Request\r\n\r\n")
    time.sleep(5)


def silent(conn, srv):
    time.sleep(10)


def injection(conn, srv):
    conn.sendall(b"220 hi\r\n")
    srv.read_line(conn)
    conn.sendall(b"250-hi\r\n250 STARTTLS\r\n")
    srv.read_line(conn)
    conn.sendall(b"220 go ahead\r\n250 injected\r\n")
    time.sleep(5)


def different_codes(conn, srv):
    conn.sendall(b"220-hi\r\n250 mixed\r\n")
    time.sleep(5)


def trickle(conn, srv):
    for b in b"220 a greeting that takes far longer than the timeout to arrive\r\n":
        conn.sendall(bytes([b]))
        time.sleep(0.2)


def mini_smtp(replies=None, greeting=b"220 mini\r\n"):
    """A plain SMTP server in a few lines: `replies` maps a verb to its reply (or to a function
    of the command line); DATA's content lands in srv.data."""
    table = {b"EHLO": b"250-mini\r\n250 8BITMIME\r\n", b"HELO": b"250 mini\r\n",
             b"MAIL": b"250 ok\r\n", b"RCPT": b"250 ok\r\n", b"DATA": b"354 go\r\n",
             b"QUIT": b"221 bye\r\n", b"RSET": b"250 ok\r\n"}
    table.update(replies or {})

    def script(conn, srv):
        conn.sendall(greeting)
        srv.data = None
        while True:
            line = srv.read_line(conn)
            if not line:
                return
            verb = line.split(b" ")[0].split(b":")[0].strip().upper()
            reply = table.get(verb, b"500 unknown\r\n")
            if callable(reply):
                reply = reply(line)
            conn.sendall(reply)
            if verb == b"QUIT":
                return
            if verb == b"DATA" and reply.startswith(b"354"):
                data = b""
                while not data.endswith(b"\r\n.\r\n"):
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                srv.data = data
                conn.sendall(b"250 2.0.0 queued\r\n")
    return script


def dialogue_cases(tool, body_file):
    print("(m) no ESMTP: HELO after 502 to EHLO, a multi-line greeting")
    srv = RawServer(mini_smtp({b"EHLO": b"502 5.5.1 what\r\n"},
                              greeting=b"220-mini\r\n220-still mini\r\n220 ready\r\n"))
    r = run_tool(tool, f"smtp://127.0.0.1:{srv.port}?to=a@example.com", "helo", body_file)
    srv.thread.join(5)
    check(r["outcome"] == "delivered", f"delivered: {r['detail']}")
    check(b"HELO " in srv.received and srv.data is not None, "HELO, then the message")
    check(b"QUIT" in srv.received, "QUIT at the end")

    print("(n) 554 greeting: permanent, 554")
    srv = RawServer(mini_smtp(greeting=b"554 5.3.2 no service here\r\n"))
    r = run_tool(tool, f"smtp://127.0.0.1:{srv.port}?to=a@example.com", "554", body_file)
    check(r["outcome"] == "permanent" and r["status"] == 554, f"permanent 554: {r['detail']}")

    print("(o) the second recipient refused with 550: nobody gets the message")
    def rcpt(line):
        return b"550 5.1.1 no such user\r\n" if b"bad@" in line else b"250 ok\r\n"
    srv = RawServer(mini_smtp({b"RCPT": rcpt}))
    url = f"smtp://127.0.0.1:{srv.port}?to=good@example.com,bad@example.com"
    r = run_tool(tool, url, "550", body_file)
    srv.thread.join(5)
    check(r["outcome"] == "permanent" and r["status"] == 550, f"permanent 550: {r['detail']}")
    check(b"DATA" not in srv.received and srv.data is None, "no DATA")
    check(b"QUIT" in srv.received, "QUIT after the refusal")

    print("(p) 452 at the end of DATA: retry")
    def data_452(conn, s):
        conn.sendall(b"220 mini\r\n")
        for reply in (b"250 mini\r\n", b"250 ok\r\n", b"250 ok\r\n", b"354 go\r\n"):
            s.read_line(conn)
            conn.sendall(reply)
        data = b""
        while not data.endswith(b"\r\n.\r\n"):
            chunk = conn.recv(65536)
            if not chunk:
                return
            data += chunk
        conn.sendall(b"452 4.3.1 insufficient storage\r\n")
        s.read_line(conn)
    srv = RawServer(data_452)
    r = run_tool(tool, f"smtp://127.0.0.1:{srv.port}?to=a@example.com", "452", body_file)
    check(r["outcome"] == "retry" and r["status"] == 452, f"retry 452: {r['detail']}")

    print("(q) bad URLs are refused before connecting, without their query")
    for url, expect in (
            ("smtp://127.0.0.1:25", "no recipient"),
            ("smtp://127.0.0.1:25?to=a@example.com&cc=b@example.com", "unknown"),
            ("smtp://127.0.0.1:99999?to=a@example.com", "port"),
            ("smtps://127.0.0.1?to=a@example.com&starttls=off", "starttls"),
            ("smtp://u@127.0.0.1?to=a@example.com", "password-env"),
            ("smtp://127.0.0.1?to=a@example.com%0d%0aRCPT%20TO:x@y", "recipient"),
            ("http://127.0.0.1?to=a@example.com", "smtp://")):
        r = run_tool(tool, url, "bad", body_file)
        check(r["outcome"] == "permanent" and expect in r["detail"] and "?" not in r["detail"],
              f"{expect}: {r['detail']}")


def stops_reading(conn, srv):
    conn.sendall(b"220 mini\r\n")
    for reply in (b"250 mini\r\n", b"250 ok\r\n", b"250 ok\r\n", b"354 go\r\n"):
        srv.read_line(conn)
        conn.sendall(reply)
    time.sleep(10)


def hostile_cases(tool, body_file):
    print("(h) hostile: a server that stops reading in the middle of DATA")
    big = body_file + ".big"
    with open(big, "w") as f:
        f.write(("x" * 99 + "\n") * 300000)  # 30 MB, more than the socket buffers hold
    srv = RawServer(stops_reading)
    r = run_tool(tool, f"smtp://127.0.0.1:{srv.port}?to=a@example.com", "big", big,
                 timeout_ms=2000)
    check(r["outcome"] == "retry" and "timed out" in r["detail"] and "sending" in r["detail"],
          f"retry, timed out sending: {r['detail']}")
    check(r["elapsed"] < 8, f"within the timeout ({r['elapsed']:.1f} s)")

    cases = [
        ("an endless multi-line reply", endless, "64 KiB"),
        ("a 1 MB line", huge_line, "64 KiB"),
        ("garbage", garbage, "malformed"),
        ("lines with different codes", different_codes, "different codes"),
        ("plain text after the reply to STARTTLS", injection, "injection"),
        ("silence", silent, "timed out"),
        ("a reply trickling in byte by byte", trickle, "timed out"),
    ]
    for name, script, expect in cases:
        print(f"(h) hostile: {name}")
        srv = RawServer(script)
        url = f"smtp://127.0.0.1:{srv.port}?to=a@example.com"
        r = run_tool(tool, url, "hostile", body_file, timeout_ms=2000)
        check(r["exit"] == 1, f"exit 1, no crash (exit {r['exit']})")
        check(expect in r["detail"], f"a clear error: {r['detail']}")
        check(r["elapsed"] < 6, f"within the timeout ({r['elapsed']:.1f} s)")
        check(b"MAIL" not in srv.received, "no MAIL FROM sent")
        want = "retry" if script in (silent, trickle) else "permanent"
        check(r["outcome"] == want, f"outcome {want}: {r['outcome']}")
    print("(h) a refused connection")
    port = free_port()
    r = run_tool(tool, f"smtp://127.0.0.1:{port}?to=a@example.com", "refused", body_file)
    check(r["outcome"] == "retry" and r["exit"] == 1, f"retry: {r['detail']}")
    print("(i) a bad URL: the query never shows")
    r = run_tool(tool, "smtp://u:hunter2@127.0.0.1:25?to=a@example.com", "x", body_file)
    check(r["outcome"] == "permanent" and "hunter2" not in r["raw"], f"permanent: {r['detail']}")


def main():
    # aiosmtpd logs the handshakes the tests make fail on purpose, with tracebacks.
    logging.getLogger("mail.log").setLevel(logging.CRITICAL)
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    args = ap.parse_args()
    if shutil.which("openssl") is None:
        print("smtp_e2e: the openssl command is missing; skipped")
        return 77
    with tempfile.TemporaryDirectory(prefix="sluice-smtp-") as d:
        make_certs(d)
        body_file = os.path.join(d, "body.txt")
        with open(body_file, "w") as f:
            f.write(BODY)
        aiosmtpd_cases(args.tool, d, body_file)
        dialogue_cases(args.tool, body_file)
        hostile_cases(args.tool, body_file)
    if failures:
        print(f"smtp_e2e: {len(failures)} of {len(passes) + len(failures)} checks failed:")
        for f in failures:
            print(f"  {f}")
        return 1
    print(f"smtp_e2e: all {len(passes)} checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
