#!/usr/bin/python3
"""Exactly once under kill -9, for the folder source.

    kill_folder.py --sluice build/sluice [--seeds N] [--min-kills K]

For each seed: a landing folder gets files of JSON-lines orders (each record with a unique
order_id; some carry a new column, some a value of the wrong type, some are malformed), and
`sluice ingest` runs with SLUICE_INGEST_CRASH_AT=k, which makes the process kill itself with
SIGKILL at the k-th of its crash points (after planning a batch, after writing a schema version,
after staging a batch in the checkpoint, after the table commit, after marking it, after
delivering the quarantine). k is drawn from the seed; runs repeat (new files landing between
some of them) until one finishes, then a last run without a crash point. Afterwards every input
record is in the table exactly once, or in the quarantine exactly once, never both, and the
batch reports add up.
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile


def land(folder, name, records, rng):
    # Written under a hidden name and renamed, as a landing writer does: never read half-written.
    tmp = os.path.join(folder, "." + name + ".tmp")
    with open(tmp, "w") as f:
        for r in records:
            f.write(r + "\n")
    os.rename(tmp, os.path.join(folder, name))


def make_file(rng, next_id):
    """Records of one file and what each must become: ('row', id) or ('quarantine', id)."""
    lines, expect = [], []
    for _ in range(rng.randint(1, 6)):
        oid = next_id[0]
        next_id[0] += 1
        kind = rng.random()
        if kind < 0.1:
            lines.append('{"order_id": %d, "broken' % oid)
            expect.append(("quarantine", oid))
            continue
        rec = {"order_id": oid, "customer": "c%d" % oid, "amount": oid * 1.5}
        if kind < 0.25:
            rec["coupon"] = "K%d" % oid
        if kind > 0.9:
            rec["amount"] = "not a number"
        lines.append(json.dumps(rec))
        expect.append(("row", oid))
    return lines, expect


def run(sluice, args, crash_at):
    env = dict(os.environ)
    if crash_at:
        env["SLUICE_INGEST_CRASH_AT"] = str(crash_at)
    else:
        env.pop("SLUICE_INGEST_CRASH_AT", None)
    p = subprocess.run([sluice, "ingest"] + args, capture_output=True, text=True, env=env,
                       timeout=120)
    return p


def check_seed(sluice, seed, work):
    rng = random.Random(seed)
    land_dir = os.path.join(work, "land")
    os.makedirs(land_dir)
    table, ckpt = os.path.join(work, "t"), os.path.join(work, "c")
    quarantine, reports = os.path.join(work, "q.jsonl"), os.path.join(work, "r.jsonl")
    args = [land_dir, "--to", table, "--checkpoint", ckpt, "--infer-column-types",
            "--max-files-per-batch", "1", "--quarantine", quarantine, "--report", reports, "-q",
            "--threads", "1"]
    next_id = [1]
    expected = []
    files = 0

    def add_file():
        nonlocal files
        lines, expect = make_file(rng, next_id)
        land(land_dir, "orders-%03d.json" % files, lines, rng)
        files += 1
        expected.extend(expect)

    for _ in range(rng.randint(2, 4)):
        add_file()
    kills = 0
    for _ in range(40):
        p = run(sluice, args, rng.randint(1, 12))
        if p.returncode == -signal.SIGKILL:
            kills += 1
            if rng.random() < 0.3:
                add_file()
            continue
        if p.returncode != 0:
            sys.exit(f"seed {seed}: ingest failed ({p.returncode}): {p.stderr}")
        if kills >= 2 or rng.random() < 0.5:
            break
        add_file()
    p = run(sluice, args, 0)
    if p.returncode != 0:
        sys.exit(f"seed {seed}: final ingest failed ({p.returncode}): {p.stderr}")

    cat = subprocess.run([sluice, "table", "cat", table], capture_output=True, text=True)
    if cat.returncode != 0:
        sys.exit(f"seed {seed}: table cat failed: {cat.stderr}")
    rows = [json.loads(l) for l in cat.stdout.splitlines() if l.strip()]
    in_table = {}
    for r in rows:
        oid = r.get("order_id")
        if oid is None:  # a rescued order_id: find it in the rescued data
            oid = json.loads(r["_rescued_data"])["order_id"]
        in_table[oid] = in_table.get(oid, 0) + 1
    quarantined = {}
    if os.path.exists(quarantine):
        for l in open(quarantine):
            raw = json.loads(l)["raw"]
            oid = int(raw.split(":")[1].split(",")[0])
            quarantined[oid] = quarantined.get(oid, 0) + 1
    for where, oid in expected:
        got_t, got_q = in_table.get(oid, 0), quarantined.get(oid, 0)
        want = (1, 0) if where == "row" else (0, 1)
        if (got_t, got_q) != want:
            sys.exit(f"seed {seed}: order {oid} is {got_t}x in the table and {got_q}x in "
                     f"quarantine, expected {want}")
    if len(rows) != sum(1 for w, _ in expected if w == "row"):
        sys.exit(f"seed {seed}: {len(rows)} rows in the table, expected "
                 f"{sum(1 for w, _ in expected if w == 'row')}")
    batches = [json.loads(l) for l in open(reports)] if os.path.exists(reports) else []
    seen = [b["batch"] for b in batches]
    if len(seen) != len(set(seen)):
        sys.exit(f"seed {seed}: a batch reported twice: {seen}")
    for b in batches:
        if b["recordsIn"] != b["written"] + b["quarantined"]:
            sys.exit(f"seed {seed}: batch {b['batch']} does not add up: {b}")
    return kills


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sluice", required=True)
    ap.add_argument("--seeds", type=int, default=40)
    ap.add_argument("--min-kills", type=int, default=80)
    a = ap.parse_args()
    total = 0
    for seed in range(a.seeds):
        work = tempfile.mkdtemp(prefix="sluice-kill-")
        try:
            total += check_seed(a.sluice, seed, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    print(f"kill_folder: {a.seeds} seeds, {total} kill points, every record exactly once")
    if total < a.min_kills:
        sys.exit(f"only {total} kill points were hit (wanted {a.min_kills})")


if __name__ == "__main__":
    main()
