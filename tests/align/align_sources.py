#!/usr/bin/python3
"""`sluice align` over versions that are not schema files: a Delta table at two versions
(`PATH@vN` and `--version N`) and a registry subject's versions (`registry://HOST:PORT/SUBJECT/
versions/N`, `latest`) served by `sluice registry serve`.

    align_sources.py --sluice build/sluice --source .
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time


def run(cmd, want=0):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != want:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}, wanted {want}\n{p.stdout}{p.stderr}")
    return p.stdout


def expect(text, needle, what):
    if needle not in text:
        sys.exit(f"{what}: {needle!r} not in:\n{text}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--source", required=True)
    a = ap.parse_args()
    s = a.sluice
    tmp = tempfile.mkdtemp(prefix="sluice-align-")
    registry = None
    try:
        # A Delta table at version 0 and, after an added column, version 1.
        table = os.path.join(tmp, "activity")
        ddl = os.path.join(tmp, "v0.ddl")
        with open(ddl, "w") as f:
            f.write("user_id BIGINT, movie_id INT\n")
        run([s, "table", "create", table, "--schema", ddl, "-q"])
        run([s, "table", "alter", table, "--add-column", "rating FLOAT", "-q"])
        out = run([s, "align", table + "@v0", table, "--dialect", "spark", "-q"])
        expect(out, "CAST(NULL AS FLOAT) AS rating,\n  'activity_v0' AS _schema_version\n"
               "FROM activity_v0", "table@v0")
        expect(out, "'activity_v1' AS _schema_version\nFROM activity_v1", "latest table")
        same = run([s, "align", table, table, "--version", "0", "--version", "1", "--dialect",
                    "spark", "-q"])
        if same != out:
            sys.exit("--version N gives another query than PATH@vN:\n" + same)
        err = subprocess.run([s, "align", table + "@v7", table, "--dialect", "spark"],
                             capture_output=True, text=True)
        if err.returncode != 2 or "version 7" not in err.stderr:
            sys.exit(f"a missing table version: exit {err.returncode}: {err.stderr}")

        # A registry subject's versions.
        port_file = os.path.join(tmp, "port")
        registry = subprocess.Popen([s, "registry", "serve", "--listen", "127.0.0.1:0",
                                     "--port-file", port_file, "--store",
                                     "sqlite:" + os.path.join(tmp, "r.db")],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(100):
            if os.path.exists(port_file) and open(port_file).read().strip():
                break
            time.sleep(0.1)
        url = "http://127.0.0.1:" + open(port_file).read().strip()
        ex = os.path.join(a.source, "examples")
        subject = "user_movie_activity-value"
        run([s, "registry", "config", subject, "--set", "NONE", "--url", url])
        for v in ("v1", "v2"):
            run([s, "registry", "register", subject,
                 os.path.join(ex, f"user_movie_activity_{v}.avsc"), "--url", url])
        base = "registry://" + url[len("http://"):] + "/" + subject + "/versions/"
        out = run([s, "align", base + "1", base + "latest", "--dialect", "duckdb", "-q"])
        expect(out, "'user_movie_activity_value_v1' AS _schema_version", "registry v1")
        expect(out, "'user_movie_activity_value_v2' AS _schema_version", "registry latest")
        expect(out, "CAST(x.movie_id AS VARCHAR)", "registry v1 cast")
        files = run([s, "align", os.path.join(ex, "user_movie_activity_v1.avsc"),
                     os.path.join(ex, "user_movie_activity_v2.avsc"), "--dialect", "duckdb",
                     "--relation", "user_movie_activity_value_v1", "--relation",
                     "user_movie_activity_value_v2", "-q"])
        if files.replace("'user_movie_activity_v1'", "'user_movie_activity_value_v1'").replace(
                "'user_movie_activity_v2'", "'user_movie_activity_value_v2'") != out:
            sys.exit("the registry's versions give another query than the same schema files")
        err = subprocess.run([s, "align", base + "9", base + "1", "--dialect", "spark"],
                             capture_output=True, text=True)
        if err.returncode != 2 or "404" not in err.stderr:
            sys.exit(f"a missing registry version: exit {err.returncode}: {err.stderr}")
        print("align_sources: Delta table versions and registry versions aligned")
    finally:
        if registry is not None:
            registry.terminate()
            registry.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
