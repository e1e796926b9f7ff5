#!/usr/bin/python3
"""Random schema + records + the canonical rows they must read back as (stdlib only).

    /usr/bin/python3 tests/parquet/gen_random.py --seed N --rows N [--out DIR]

Writes into DIR (default: the current directory):
  schema.ddl      a Spark DDL column list using every type of sluice's model that Spark DDL
                  names: BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DECIMAL(p,s)
                  (p in 1, 9, 10, 18, 19, 38), STRING, BINARY, DATE, TIMESTAMP, TIMESTAMP_NTZ,
                  STRUCT, ARRAY, MAP (STRING or INT keys); NOT NULL sometimes; nesting to depth 5
  rows.jsonl      one JSON record per line, as `sluice validate` accepts them: timestamps as
                  "2026-03-14T09:26:53.123456Z" (no zone for TIMESTAMP_NTZ), binary as base64,
                  decimals as numbers with at most s fraction digits, NaN/Infinity as strings,
                  nulls and absent fields wherever nullable, empty arrays and maps, long and
                  non-ASCII strings; map keys are JSON object keys (INT keys small)
  expected.jsonl  the canonical row (see canonical.mjs) each record must read back as, columns
                  in schema order, absent fields as null
The same seed gives the same files.
"""

import argparse
import base64
import datetime
import json
import math
import os
import random
import struct

MAX_DEPTH = 5
DECIMAL_PRECISIONS = [1, 9, 10, 18, 19, 38]
LEAVES = ['BOOLEAN', 'TINYINT', 'SMALLINT', 'INT', 'BIGINT', 'FLOAT', 'DOUBLE', 'DECIMAL',
          'STRING', 'BINARY', 'DATE', 'TIMESTAMP', 'TIMESTAMP_NTZ']
INT_RANGES = {'TINYINT': 8, 'SMALLINT': 16, 'INT': 32, 'BIGINT': 64}


class Raw:
    """A JSON number (or other token) written as given."""

    def __init__(self, text):
        self.text = text


def dumps(v):
    if v is None:
        return 'null'
    if isinstance(v, Raw):
        return v.text
    if isinstance(v, bool):
        return 'true' if v else 'false'
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list):
        return '[' + ','.join(dumps(x) for x in v) + ']'
    if isinstance(v, dict):
        return '{' + ','.join(json.dumps(k, ensure_ascii=False) + ':' + dumps(x) for k, x in v.items()) + '}'
    raise TypeError(type(v))


# ---- schema ---------------------------------------------------------------------------------

def gen_type(rnd, depth):
    """A type as a dict: {'kind': LEAF | 'STRUCT' | 'ARRAY' | 'MAP', ...}."""
    nested = depth < MAX_DEPTH and rnd.random() < 0.35
    if not nested:
        kind = rnd.choice(LEAVES)
        if kind == 'DECIMAL':
            p = rnd.choice(DECIMAL_PRECISIONS)
            s = rnd.choice(sorted({0, p // 2, p, rnd.randint(0, p)}))
            return {'kind': 'DECIMAL', 'p': p, 's': s}
        return {'kind': kind}
    kind = rnd.choice(['STRUCT', 'ARRAY', 'MAP'])
    if kind == 'STRUCT':
        return {'kind': 'STRUCT', 'fields': gen_fields(rnd, depth + 1, rnd.randint(1, 4))}
    if kind == 'ARRAY':
        return {'kind': 'ARRAY', 'element': gen_type(rnd, depth + 1)}
    return {'kind': 'MAP', 'key': {'kind': rnd.choice(['STRING', 'INT'])},
            'value': gen_type(rnd, depth + 1)}


def gen_fields(rnd, depth, n):
    names = set()
    fields = []
    for i in range(n):
        name = rnd.choice(['f', 'col', 'x', 'value', 'Name']) + '_' + str(i)
        while name in names:
            name += '_'
        names.add(name)
        fields.append({'name': name, 'type': gen_type(rnd, depth), 'nullable': rnd.random() < 0.75})
    return fields


def ddl_type(t):
    k = t['kind']
    if k == 'DECIMAL':
        return 'DECIMAL(%d,%d)' % (t['p'], t['s'])
    if k == 'STRUCT':
        return 'STRUCT<' + ', '.join(ddl_field(f, ': ') for f in t['fields']) + '>'
    if k == 'ARRAY':
        return 'ARRAY<' + ddl_type(t['element']) + '>'
    if k == 'MAP':
        return 'MAP<' + ddl_type(t['key']) + ', ' + ddl_type(t['value']) + '>'
    return k


def ddl_field(f, sep=' '):
    return '`' + f['name'] + '`' + sep + ddl_type(f['type']) + ('' if f['nullable'] else ' NOT NULL')


# ---- values ---------------------------------------------------------------------------------
# gen_value returns (record value, canonical value).

TEXT_POOL = ['', 'a', 'hello', 'ünïcødé', '日本語テキスト', 'emoji 😀🎉', 'quote " and \\ backslash',
             'tab\tnewline\n', 'ctl\u0001\u001f', 'Ωmega', 'zero', 'x' * 40]


def gen_string(rnd):
    r = rnd.random()
    if r < 0.05:
        return (rnd.choice(TEXT_POOL) + ' long ') * rnd.randint(200, 800)
    if r < 0.5:
        return rnd.choice(TEXT_POOL)
    alphabet = 'abcdefghijklmnopqrstuvwxyz ABC0123456789-_éßø€中文😀'
    return ''.join(rnd.choice(alphabet) for _ in range(rnd.randint(0, 30)))


def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]


def shortest_f32(x):
    """The shortest decimal text that reads back as the float32 x."""
    for p in range(1, 10):
        s = '%.*g' % (p, x)
        if f32(float(s)) == x:
            return s
    return repr(x)


def gen_float(rnd, single):
    r = rnd.random()
    if r < 0.04:
        return 'NaN', 'NaN'
    if r < 0.07:
        return 'Infinity', 'Infinity'
    if r < 0.10:
        return '-Infinity', '-Infinity'
    if r < 0.13:
        return Raw('-0.0'), Raw('-0')
    if single:
        # At most 6 significant digits, so text -> double -> float and text -> float agree.
        mant = rnd.randint(-999999, 999999)
        x = float('%de%d' % (mant, rnd.randint(-40, 30)))
        if x != 0 and (abs(x) < 1.2e-38 or abs(x) > 3.4e38):
            x = float(mant)
        text = repr(x)
        return Raw(text), Raw(shortest_f32(f32(x)))
    if r < 0.5:
        x = rnd.uniform(-1e6, 1e6)
    elif r < 0.7:
        x = float(rnd.randint(-(1 << 53), 1 << 53))
    else:
        x = math.ldexp(rnd.uniform(-1, 1), rnd.randint(-1070, 1023))
    return Raw(repr(x)), Raw(repr(x))


def gen_decimal(rnd, p, s):
    digits = rnd.choice([p, rnd.randint(1, p)])
    unscaled = rnd.randint(0, 10 ** digits - 1)
    if rnd.random() < 0.1:
        unscaled = 10 ** p - 1
    neg = rnd.random() < 0.4 and unscaled != 0
    text = str(unscaled).rjust(s + 1, '0')
    int_part, frac = (text[:len(text) - s], text[len(text) - s:]) if s else (text, '')
    canonical = ('-' if neg else '') + int_part + ('.' + frac if s else '')
    # The record may drop trailing fraction zeros: still <= s digits, same value.
    short = frac.rstrip('0') if rnd.random() < 0.5 else frac
    record = ('-' if neg else '') + int_part + ('.' + short if short else '')
    return Raw(record), Raw(canonical)


EPOCH = datetime.datetime(1970, 1, 1)
MIN_US = int((datetime.datetime(1, 1, 1) - EPOCH).total_seconds()) * 1000000
MAX_US = int((datetime.datetime(9999, 12, 31, 23, 59, 59) - EPOCH).total_seconds()) * 1000000 + 999999


def gen_micros(rnd):
    r = rnd.random()
    if r < 0.05:
        return MIN_US
    if r < 0.1:
        return MAX_US
    if r < 0.3:
        return rnd.randint(-10 ** 12, 10 ** 12)  # around 1970, both sides of the epoch
    us = rnd.randint(MIN_US, MAX_US)
    return us - us % rnd.choice([1, 1000, 1000000, 1])


def format_micros(us, zone):
    days, rem = divmod(us, 86400 * 1000000)
    secs, frac = divmod(rem, 1000000)
    d = datetime.date(1970, 1, 1) + datetime.timedelta(days=days)
    base = '%04d-%02d-%02dT%02d:%02d:%02d' % (d.year, d.month, d.day, secs // 3600, secs // 60 % 60, secs % 60)
    full = base + '.%06d' % frac
    canonical = base + (('.%06d' % frac).rstrip('0') if frac else '')
    return full + zone, canonical + zone


def gen_leaf(rnd, t):
    k = t['kind']
    if k == 'BOOLEAN':
        v = rnd.random() < 0.5
        return v, v
    if k in INT_RANGES:
        bits = INT_RANGES[k]
        lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
        v = rnd.choice([lo, hi, 0, -1, 1, rnd.randint(lo, hi), rnd.randint(max(lo, -1000), min(hi, 1000))])
        return Raw(str(v)), Raw(str(v))
    if k == 'FLOAT':
        return gen_float(rnd, True)
    if k == 'DOUBLE':
        return gen_float(rnd, False)
    if k == 'DECIMAL':
        return gen_decimal(rnd, t['p'], t['s'])
    if k == 'STRING':
        v = gen_string(rnd)
        return v, v
    if k == 'BINARY':
        b = bytes(rnd.randint(0, 255) for _ in range(rnd.choice([0, 1, 2, 3, 16, rnd.randint(0, 300)])))
        v = base64.b64encode(b).decode('ascii')
        return v, v
    if k == 'DATE':
        d = datetime.date(1, 1, 1) + datetime.timedelta(days=rnd.randint(0, 3652058))
        v = '%04d-%02d-%02d' % (d.year, d.month, d.day)
        return v, v
    if k == 'TIMESTAMP':
        return format_micros(gen_micros(rnd), 'Z')
    if k == 'TIMESTAMP_NTZ':
        return format_micros(gen_micros(rnd), '')
    raise ValueError(k)


def gen_map_key(rnd, t, used):
    for _ in range(100):
        if t['kind'] == 'INT':
            k = rnd.randint(-9, 99)
            key, canonical = str(k), Raw(str(k))
        else:
            key = rnd.choice(['', 'a', 'b', 'key', 'ü', '😀', 'k' + str(rnd.randint(0, 50))])
            canonical = key
        if key not in used:
            used.add(key)
            return key, canonical
    return None


def gen_value(rnd, t, nullable):
    """(record value, canonical value); record value None means JSON null."""
    if nullable and rnd.random() < 0.15:
        return None, None
    k = t['kind']
    if k == 'STRUCT':
        rec, can = gen_struct(rnd, t['fields'])
        return rec, can
    if k == 'ARRAY':
        n = rnd.choice([0, 0, 1, 2, 3, rnd.randint(0, 6)])
        pairs = [gen_value(rnd, t['element'], True) for _ in range(n)]
        return [p[0] for p in pairs], [p[1] for p in pairs]
    if k == 'MAP':
        n = rnd.choice([0, 0, 1, 2, 3, rnd.randint(0, 5)])
        rec, can, used = {}, [], set()
        for _ in range(n):
            key = gen_map_key(rnd, t['key'], used)
            if key is None:
                break
            vr, vc = gen_value(rnd, t['value'], True)
            rec[key[0]] = vr
            can.append({'key': key[1], 'value': vc})
        return rec, can
    return gen_leaf(rnd, t)


def gen_struct(rnd, fields):
    rec, can = {}, {}
    for f in fields:
        vr, vc = gen_value(rnd, f['type'], f['nullable'])
        can[f['name']] = vc
        # An absent nullable field reads as null.
        if not (vr is None and rnd.random() < 0.5):
            rec[f['name']] = vr
    return rec, can


def ensure_all_leaves(rnd, fields):
    """Add top-level columns for the leaf kinds and decimal precisions the draw missed."""
    seen = set()

    def walk(t):
        k = t['kind']
        if k == 'DECIMAL':
            seen.add(('DECIMAL', t['p']))
        elif k == 'STRUCT':
            for f in t['fields']:
                walk(f['type'])
        elif k == 'ARRAY':
            walk(t['element'])
        elif k == 'MAP':
            seen.add(('MAP', t['key']['kind']))
            walk(t['value'])
        else:
            seen.add(k)
    for f in fields:
        walk(f['type'])
    extra = []
    for k in LEAVES:
        if k != 'DECIMAL' and k not in seen:
            extra.append({'kind': k})
    for p in DECIMAL_PRECISIONS:
        if ('DECIMAL', p) not in seen:
            extra.append({'kind': 'DECIMAL', 'p': p, 's': rnd.randint(0, p)})
    for kk in ['STRING', 'INT']:
        if ('MAP', kk) not in seen:
            extra.append({'kind': 'MAP', 'key': {'kind': kk}, 'value': gen_type(rnd, MAX_DEPTH - 1)})
    # One column nested to the full depth, through every nested kind.
    chain = [rnd.choice(['STRUCT', 'ARRAY', 'MAP']) for _ in range(MAX_DEPTH - 1)]
    if not {'STRUCT', 'ARRAY', 'MAP'} <= set(chain):
        chain[:3] = rnd.sample(['STRUCT', 'ARRAY', 'MAP'], 3)
    t = gen_type(rnd, MAX_DEPTH)
    for kind in reversed(chain):
        if kind == 'STRUCT':
            others = gen_fields(rnd, MAX_DEPTH, rnd.randint(0, 2))
            t = {'kind': 'STRUCT', 'fields': [{'name': 'deep', 'type': t, 'nullable': True}] + [
                dict(f, name=f['name'] + '_s') for f in others]}
        elif kind == 'ARRAY':
            t = {'kind': 'ARRAY', 'element': t}
        else:
            t = {'kind': 'MAP', 'key': {'kind': rnd.choice(['STRING', 'INT'])}, 'value': t}
    extra.append(t)
    base = len(fields)
    for i, t in enumerate(extra):
        fields.append({'name': 'c_extra_%d' % (base + i), 'type': t, 'nullable': rnd.random() < 0.75})


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--seed', type=int, required=True)
    ap.add_argument('--rows', type=int, required=True)
    ap.add_argument('--out', default='.')
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    fields = gen_fields(rnd, 1, rnd.randint(3, 12))
    ensure_all_leaves(rnd, fields)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, 'schema.ddl'), 'w', encoding='utf-8') as f:
        f.write(', '.join(ddl_field(x) for x in fields) + '\n')
    with open(os.path.join(args.out, 'rows.jsonl'), 'w', encoding='utf-8') as rows, \
            open(os.path.join(args.out, 'expected.jsonl'), 'w', encoding='utf-8') as expected:
        for _ in range(args.rows):
            rec, can = gen_struct(rnd, fields)
            rows.write(dumps(rec) + '\n')
            expected.write(dumps(can) + '\n')


if __name__ == '__main__':
    main()
