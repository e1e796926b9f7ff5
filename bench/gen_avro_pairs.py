#!/usr/bin/env python3
"""Seeded generator of Avro reader/writer schema pairs, one JSON object per line.

    gen_avro_pairs.py --seed 7 --pairs 10000 OUT.jsonl   random evolution pairs
    gen_avro_pairs.py --wide 2000 OUT.jsonl              one v1/v2 pair of a 2,000-field record

Each random pair is a writer schema `a` and a reader `b` made from a copy of `a` by one to four
schema-evolution mutations (promotions and narrowings, renames with and without aliases,
namespace changes, field aliases, added fields with and without defaults, removed fields, enum
symbols and enum defaults, fixed sizes, unions wrapped, unwrapped, grown and shrunk, types
replaced, logical types changed). The writer side covers nested records, arrays, maps, unions of
records (including records that share a short name in two namespaces), recursive records and
references to named types defined earlier.

Every schema is written in several spellings of the same Avro schema:
  - `a`, `b`: every named type as a short name plus a "namespace" attribute, aliases as full
    names, references as full names, records as "record";
  - `a_alt`, `b_alt`: dotted full names without namespace attributes, aliases relative to the
    type's namespace, some records written as "error";
  - on every fourth line, `a_dotted`/`b_dotted`, `a_relative_aliases`/`b_relative_aliases` and
    `a_errors`/`b_errors`: one of those changes at a time.
Java (and sluice) read every spelling as the same schema. python-avro 1.11 compares names and
aliases as written and cannot check "error" records, so only the first spelling is a fair
oracle; the others show where python-avro deviates.

Lines with "slice": "ambiguous" have a reader root record field whose name and alias both name
writer fields; Java's SchemaCompatibility throws for such a pair.
"""

import argparse
import json
import random
import sys

PRIMITIVES = ["null", "boolean", "int", "long", "float", "double", "bytes", "string"]
NAMESPACES = ["", "a", "b", "a.b", "com.acme"]
SYMBOLS = ["A", "B", "C", "D", "E", "GOLD", "SILVER", "BRONZE"]
WIDER = {"int": ["long", "float", "double"], "long": ["float", "double"], "float": ["double"],
         "string": ["bytes"], "bytes": ["string"]}
LOGICAL = {"int": [{"logicalType": "date"}, {"logicalType": "time-millis"}],
           "long": [{"logicalType": "timestamp-millis"}, {"logicalType": "timestamp-micros"},
                    {"logicalType": "local-timestamp-millis"}],
           "bytes": [{"logicalType": "decimal", "precision": 10, "scale": 2},
                     {"logicalType": "decimal", "precision": 6, "scale": 0}],
           "string": [{"logicalType": "uuid"}]}
NO_DEFAULT = object()


class Prim:
    def __init__(self, name, logical=None):
        self.name, self.logical = name, logical


class Arr:
    def __init__(self, items):
        self.items = items


class Map:
    def __init__(self, values):
        self.values = values


class Union:
    def __init__(self, branches):
        self.branches = branches


class Field:
    def __init__(self, name, type_, has_default, aliases=None):
        self.name, self.type, self.has_default = name, type_, has_default
        self.aliases = aliases or []


class Named:
    def __init__(self, kind, name, ns):
        self.kind, self.name, self.ns = kind, name, ns
        self.aliases = []        # full names
        self.fields = []         # record
        self.is_error = False    # record: written as "error" in the alt spelling
        self.symbols = []        # enum
        self.default = None      # enum default symbol
        self.size = 0            # fixed

    @property
    def full(self):
        return f"{self.ns}.{self.name}" if self.ns else self.name


class Gen:
    def __init__(self, rng):
        self.rng = rng
        self.counter = 0
        self.defined = []  # named types of the schema being generated

    def fresh(self, prefix):
        self.counter += 1
        return f"{prefix}{self.counter}"

    # ---- writer schemas ----------------------------------------------------------------------

    def schema(self, features):
        self.defined = []
        r = self.rng.random()
        if r < 0.80:
            return self.record(0, [], features, "")
        if r < 0.90:
            return self.union(1, [], features, "")
        return self.type(1, [], features, "")

    def namespace(self, ctx):
        # python-avro reads "namespace": "" as no namespace attribute, so a type in the null
        # namespace is only placed where the enclosing namespace is null as well.
        return self.rng.choice(NAMESPACES if not ctx else NAMESPACES[1:])

    def prim(self, features):
        name = self.rng.choice(PRIMITIVES)
        if name in LOGICAL and self.rng.random() < 0.12:
            features.add("logical type")
            return Prim(name, dict(self.rng.choice(LOGICAL[name])))
        return Prim(name)

    def type(self, depth, ancestors, features, ctx, in_union=False):
        r = self.rng.random()
        if depth >= 4 or r < 0.42:
            return self.prim(features)
        if r < 0.46 and self.defined:
            # A second use of a named type: Java memoises the pair and reports it again.
            t = self.rng.choice(self.defined)
            if t not in ancestors:
                features.add("named type used twice")
                return t
        if r < 0.57:
            return self.record(depth, ancestors, features, ctx)
        if r < 0.68:
            return self.enum(features, ctx)
        if r < 0.74:
            return self.fixed(features, ctx)
        if r < 0.82:
            features.add("array")
            return Arr(self.type(depth + 1, ancestors, features, ctx))
        if r < 0.88:
            features.add("map")
            return Map(self.type(depth + 1, ancestors, features, ctx))
        if not in_union:
            return self.union(depth + 1, ancestors, features, ctx)
        return self.prim(features)

    def record(self, depth, ancestors, features, ctx, name=None, ns=None):
        rec = Named("record", name or self.fresh("R"), self.namespace(ctx) if ns is None else ns)
        if depth > 0:
            features.add("nested record")
        if self.rng.random() < 0.15:
            rec.is_error = True
        if self.rng.random() < 0.1:
            rec.aliases.append(self.fresh_full("Old"))
        path = ancestors + [rec]
        self.defined.append(rec)
        for _ in range(self.rng.randint(0, 5)):
            rec.fields.append(Field(self.fresh("f"), self.type(depth + 1, path, features, rec.ns),
                                    self.rng.random() < 0.4))
        if ancestors and self.rng.random() < 0.35:
            target = self.rng.choice(path)
            features.add("recursive record")
            shape = self.rng.random()
            if shape < 0.5:
                t = Union([Prim("null"), target])
            elif shape < 0.8:
                t = Arr(target)
            else:
                t = Map(target)
            rec.fields.append(Field(self.fresh("f"), t, self.rng.random() < 0.7))
        return rec

    def fresh_full(self, prefix):
        ns = self.rng.choice(NAMESPACES)
        name = self.fresh(prefix)
        return f"{ns}.{name}" if ns else name

    def enum(self, features, ctx):
        e = Named("enum", self.fresh("E"), self.namespace(ctx))
        e.symbols = self.rng.sample(SYMBOLS, self.rng.randint(1, 5))
        self.defined.append(e)
        if self.rng.random() < 0.35:
            e.default = self.rng.choice(e.symbols)
            features.add("enum default")
        return e

    def fixed(self, features, ctx):
        f = Named("fixed", self.fresh("X"), self.namespace(ctx))
        f.size = self.rng.randint(1, 16)
        self.defined.append(f)
        features.add("fixed")
        return f

    def union(self, depth, ancestors, features, ctx):
        branches, keys = [], set()

        def add(t):
            k = union_key(t)
            if k not in keys:
                keys.add(k)
                branches.append(t)

        if self.rng.random() < 0.6:
            add(Prim("null"))
        for _ in range(self.rng.randint(0, 3)):
            add(self.type(depth + 1, ancestors, features, ctx, in_union=True))
        if self.rng.random() < 0.25:
            # Records that share a short name in two namespaces: Java matches them by short name.
            name = self.fresh("R")
            ns1, ns2 = self.rng.sample([n for n in NAMESPACES if n], 2)
            add(self.record(depth + 1, ancestors, features, ctx, name=name, ns=ns1))
            add(self.record(depth + 1, ancestors, features, ctx, name=name, ns=ns2))
            features.add("namesake records in a union")
        if sum(1 for b in branches if isinstance(b, Named) and b.kind == "record") >= 2:
            features.add("union of records")
        return Union(branches)

    # ---- readers: mutations of a copy ----------------------------------------------------------

    def try_mutation(self, root_holder, sites, named, features):
        rng = self.rng
        records = [n for n in named if n.kind == "record"]
        enums = [n for n in named if n.kind == "enum"]
        fixeds = [n for n in named if n.kind == "fixed"]
        m = rng.randrange(15)
        if m == 0:  # promote, narrow or swap a primitive
            prims = [s for s in sites if isinstance(get(s), Prim)]
            if not prims:
                return False
            s = rng.choice(prims)
            old = get(s).name
            if old in WIDER and rng.random() < 0.6:
                new, tag = rng.choice(WIDER[old]), "promotion"
            else:
                new, tag = rng.choice(PRIMITIVES), "primitive changed"
            if new == old:
                return False
            features.add(tag)
            return put(s, Prim(new))
        if m == 1:  # rename a named type
            if not named:
                return False
            n = rng.choice(named)
            old_full = n.full
            n.name = self.fresh(n.name[0])
            if rng.random() < 0.6:
                n.aliases.append(old_full)
                features.add("renamed type with alias")
            else:
                features.add("renamed type")
            return True
        if m == 2:  # move a named type to another namespace
            if not named:
                return False
            n = rng.choice(named)
            ns = rng.choice(NAMESPACES)
            taken = {x.full for x in named if x is not n}
            if ns == n.ns or (f"{ns}.{n.name}" if ns else n.name) in taken:
                return False
            # A reference to a null-namespace name resolves in the enclosing namespace first, so
            # it must not have a namesake there.
            if not ns and any(x.name == n.name for x in named if x is not n):
                return False
            n.ns = ns
            features.add("namespace changed")
            return True
        if m == 3:  # add a field
            if not records:
                return False
            r = rng.choice(records)
            r.fields.insert(rng.randint(0, len(r.fields)),
                            Field(self.fresh("f"), self.type(2, [], features, r.ns),
                                  rng.random() < 0.6))
            features.add("field added")
            return True
        if m == 4:  # remove a field
            rs = [r for r in records if r.fields]
            if not rs:
                return False
            r = rng.choice(rs)
            r.fields.pop(rng.randrange(len(r.fields)))
            features.add("field removed")
            return True
        if m == 5:  # rename a field
            rs = [r for r in records if r.fields]
            if not rs:
                return False
            f = rng.choice(rng.choice(rs).fields)
            old = f.name
            f.name = self.fresh("f")
            if rng.random() < 0.65:
                f.aliases.append(old)
                features.add("renamed field with alias")
            else:
                features.add("renamed field")
            return True
        if m == 6:  # toggle a field default
            rs = [r for r in records if r.fields]
            if not rs:
                return False
            f = rng.choice(rng.choice(rs).fields)
            f.has_default = not f.has_default
            features.add("field default toggled")
            return True
        if m == 7:  # reorder fields
            rs = [r for r in records if len(r.fields) > 1]
            if not rs:
                return False
            rng.shuffle(rng.choice(rs).fields)
            features.add("fields reordered")
            return True
        if m == 8:  # enum symbols and default
            if not enums:
                return False
            e = rng.choice(enums)
            op = rng.randrange(4)
            if op == 0:
                extra = [s for s in SYMBOLS if s not in e.symbols]
                if not extra:
                    return False
                e.symbols.insert(rng.randint(0, len(e.symbols)), rng.choice(extra))
                features.add("enum symbol added")
            elif op == 1:
                if len(e.symbols) < 2:
                    return False
                e.symbols.pop(rng.randrange(len(e.symbols)))
                if e.default not in e.symbols:
                    e.default = None
                features.add("enum symbol removed")
            elif op == 2:
                e.default = None if e.default else rng.choice(e.symbols)
                features.add("enum default toggled")
            else:
                rng.shuffle(e.symbols)
                features.add("enum symbols reordered")
            return True
        if m == 9:  # fixed size
            if not fixeds:
                return False
            x = rng.choice(fixeds)
            x.size = max(1, x.size + rng.choice([-2, -1, 1, 3]))
            features.add("fixed size changed")
            return True
        if m == 10:  # wrap in a union, or unwrap one
            s = rng.choice(sites)
            t = get(s)
            if isinstance(t, Union):
                if not t.branches or in_union(s):
                    return False
                features.add("union unwrapped")
                return put(s, rng.choice(t.branches))
            if in_union(s):
                return False
            features.add("wrapped in a union")
            pair = [Prim("null"), t] if rng.random() < 0.6 else [t, Prim("null")]
            if isinstance(t, Prim) and t.name == "null":
                pair = [t, Prim("string")]
            return put(s, Union(pair))
        if m == 11:  # grow, shrink or reorder a union
            unions = [s for s in sites if isinstance(get(s), Union)]
            if not unions:
                return False
            u = get(rng.choice(unions))
            op = rng.randrange(3)
            if op == 0:
                u.branches.insert(rng.randint(0, len(u.branches)),
                                  self.type(3, [], features, "a", in_union=True))
                features.add("union branch added")
            elif op == 1:
                if not u.branches:
                    return False
                u.branches.pop(rng.randrange(len(u.branches)))
                features.add("union branch removed")
            else:
                rng.shuffle(u.branches)
                features.add("union reordered")
            return True
        if m == 12:  # replace a type
            s = rng.choice(sites)
            features.add("type replaced")
            return put(s, self.type(2, [], features, "a", in_union=in_union(s)))
        if m == 13:  # logical type changed
            prims = [s for s in sites if isinstance(get(s), Prim) and get(s).name in LOGICAL]
            if not prims:
                return False
            s = rng.choice(prims)
            p = get(s)
            features.add("logical type changed")
            return put(s, Prim(p.name, dict(rng.choice(LOGICAL[p.name]))))
        # m == 14: alias that matches nothing, on a type or a field
        if rng.random() < 0.5 and named:
            rng.choice(named).aliases.append(self.fresh_full("Other"))
        else:
            rs = [r for r in records if r.fields]
            if not rs:
                return False
            rng.choice(rng.choice(rs).fields).aliases.append(self.fresh("f"))
        features.add("unrelated alias")
        return True


# A site is (holder, key, in_union): the place of a type, replaced through get() and put().


class Holder:
    """Wraps the root so it can be replaced like any other site."""

    def __init__(self, root):
        self.items = [root]


def get(site):
    holder, key, _ = site
    return holder[key] if isinstance(holder, list) else holder.type


def put(site, t):
    holder, key, _ = site
    if isinstance(holder, list):
        holder[key] = t
    else:
        holder.type = t
    return True


def in_union(site):
    return site[2]


def collect_sites(holder):
    """Every place a type sits, depth first, each named type's inside visited once."""
    sites, seen = [], set()

    def visit(t, site):
        sites.append(site)
        if isinstance(t, Named):
            if id(t) in seen:
                return
            seen.add(id(t))
            for f in t.fields:
                visit(f.type, (f, None, False))
        elif isinstance(t, Arr):
            visit(t.items, (ArrHolder(t), 0, False))
        elif isinstance(t, Map):
            visit(t.values, (MapHolder(t), 0, False))
        elif isinstance(t, Union):
            for i, b in enumerate(t.branches):
                visit(b, (t.branches, i, True))

    visit(holder.items[0], (holder.items, 0, False))
    return sites


class ArrHolder(list):
    def __init__(self, arr):
        super().__init__([arr.items])
        self.arr = arr

    def __setitem__(self, key, value):
        self.arr.items = value


class MapHolder(list):
    def __init__(self, m):
        super().__init__([m.values])
        self.m = m

    def __setitem__(self, key, value):
        self.m.values = value


def collect_named(root):
    out, seen = [], set()

    def visit(t):
        if isinstance(t, Named):
            if id(t) in seen:
                return
            seen.add(id(t))
            out.append(t)
            for f in t.fields:
                visit(f.type)
        elif isinstance(t, Arr):
            visit(t.items)
        elif isinstance(t, Map):
            visit(t.values)
        elif isinstance(t, Union):
            for b in t.branches:
                visit(b)

    visit(root)
    return out


def copy_type(t, memo):
    if isinstance(t, Prim):
        return Prim(t.name, dict(t.logical) if t.logical else None)
    if isinstance(t, Arr):
        return Arr(copy_type(t.items, memo))
    if isinstance(t, Map):
        return Map(copy_type(t.values, memo))
    if isinstance(t, Union):
        return Union([copy_type(b, memo) for b in t.branches])
    if id(t) in memo:
        return memo[id(t)]
    n = Named(t.kind, t.name, t.ns)
    memo[id(t)] = n
    n.aliases, n.is_error = list(t.aliases), t.is_error
    n.symbols, n.default, n.size = list(t.symbols), t.default, t.size
    n.fields = [Field(f.name, copy_type(f.type, memo), f.has_default, list(f.aliases))
                for f in t.fields]
    return n


def union_key(t):
    if isinstance(t, Prim):
        return t.name
    if isinstance(t, Arr):
        return "array"
    if isinstance(t, Map):
        return "map"
    if isinstance(t, Union):
        return "union"
    return t.full


def valid(root):
    """Union rules and unique full names, which mutations can break."""
    named = collect_named(root)
    fulls = [n.full for n in named]
    if len(set(fulls)) != len(fulls):
        return False
    for n in named:
        names = [f.name for f in n.fields]
        if len(set(names)) != len(names):
            return False
    ok = True
    seen = set()

    def visit(t):
        nonlocal ok
        if isinstance(t, Named):
            if id(t) in seen:
                return
            seen.add(id(t))
            for f in t.fields:
                visit(f.type)
        elif isinstance(t, Arr):
            visit(t.items)
        elif isinstance(t, Map):
            visit(t.values)
        elif isinstance(t, Union):
            keys = [union_key(b) for b in t.branches]
            if "union" in keys or len(set(keys)) != len(keys):
                ok = False
            for b in t.branches:
                visit(b)

    visit(root)
    return ok


def default_for(t, depth=0):
    if depth > 6:
        return NO_DEFAULT
    if isinstance(t, Prim):
        if t.logical and t.logical["logicalType"] == "uuid":
            return "00000000-0000-4000-8000-000000000000"
        return {"null": None, "boolean": True, "int": 7, "long": 7, "float": 1.5, "double": 2.5,
                "bytes": "\u00ff", "string": "s"}[t.name]
    if isinstance(t, Arr):
        return []
    if isinstance(t, Map):
        return {}
    if isinstance(t, Union):
        return default_for(t.branches[0], depth + 1) if t.branches else NO_DEFAULT
    if t.kind == "enum":
        return t.symbols[0]
    if t.kind == "fixed":
        return "x" * t.size
    out = {}
    for f in t.fields:
        v = default_for(f.type, depth + 1)
        if v is NO_DEFAULT:
            return NO_DEFAULT
        out[f.name] = v
    return out


def relative(alias, ns):
    if ns and alias.startswith(ns + ".") and "." not in alias[len(ns) + 1:]:
        return alias[len(ns) + 1:]
    return alias


class NotPortable(Exception):
    """The schema cannot be spelled so that python-avro reads it as Java does."""


def write(root, dotted=False, relative_aliases=False, errors=False):
    """The schema as JSON text. Every spelling is the same schema for Java: `dotted` writes
    full names without namespace attributes, `relative_aliases` writes aliases relative to the
    type's namespace, `errors` writes some records as "error"."""
    emitted = set()
    ctx = [""]

    def w(t):
        if isinstance(t, Prim):
            if t.logical:
                return {"type": t.name, **t.logical}
            return t.name
        if isinstance(t, Arr):
            return {"type": "array", "items": w(t.items)}
        if isinstance(t, Map):
            return {"type": "map", "values": w(t.values)}
        if isinstance(t, Union):
            return [w(b) for b in t.branches]
        if not t.ns and ctx[-1]:
            raise NotPortable()
        if id(t) in emitted:
            return t.full
        emitted.add(id(t))
        kind = "error" if (errors and t.kind == "record" and t.is_error) else t.kind
        out = {"type": kind}
        if dotted:
            out["name"] = t.full
            if not t.ns:
                out["namespace"] = ""
        else:
            out["name"] = t.name
            out["namespace"] = t.ns
        aliases = [relative(a, t.ns) for a in t.aliases] if relative_aliases else list(t.aliases)
        if t.ns and not relative_aliases and any("." not in a for a in t.aliases):
            # Java reads a dot-less alias relative to the type's namespace, so an old name in the
            # null namespace cannot be an alias of a namespaced type; python-avro compares it as
            # written. Such a pair has no fair spelling.
            raise NotPortable()
        if aliases:
            out["aliases"] = aliases
        if t.kind == "record":
            fields = []
            ctx.append(t.ns)
            for f in t.fields:
                fo = {"name": f.name, "type": w(f.type)}
                if f.has_default:
                    d = default_for(f.type)
                    if d is not NO_DEFAULT:
                        fo["default"] = d
                if f.aliases:
                    fo["aliases"] = f.aliases
                fields.append(fo)
            ctx.pop()
            out["fields"] = fields
        elif t.kind == "enum":
            out["symbols"] = t.symbols
            if t.default is not None:
                out["default"] = t.default
        else:
            out["size"] = t.size
        return out

    return json.dumps(w(root), separators=(",", ":"))


def random_pairs(seed, count, out):
    rng = random.Random(seed)
    gen = Gen(rng)
    n = 0
    while n < count:
        features = set()
        a = gen.schema(features)
        b_holder = Holder(copy_type(a, {}))
        for _ in range(rng.randint(1, 4)):
            sites = collect_sites(b_holder)
            named = collect_named(b_holder.items[0])
            for _attempt in range(8):
                if gen.try_mutation(b_holder, sites, named, features):
                    break
        b = b_holder.items[0]
        slice_ = "normal"
        if n % 50 == 49:
            # Java throws when a reader field's name and alias both name writer fields.
            b = copy_type(a, {})
            if not (isinstance(b, Named) and b.kind == "record" and len(b.fields) >= 2):
                continue
            b.fields[0].aliases.append(b.fields[1].name)
            slice_ = "ambiguous"
            features = {"ambiguous field alias"}
        if not valid(a) or not valid(b):
            continue
        if any(isinstance(x, Named) and x.kind == "record" and x.is_error
               for x in collect_named(a) + collect_named(b)):
            features.add("error record (alt spelling)")
        try:
            line = {"id": n, "slice": slice_, "features": sorted(features),
                    "a": write(a), "b": write(b),
                    "a_alt": write(a, True, True, True), "b_alt": write(b, True, True, True)}
            if n % 4 == 0:
                # One deviation of python-avro at a time, for the oracle to show each.
                for key, style in (("dotted", dict(dotted=True)),
                                   ("relative_aliases", dict(relative_aliases=True)),
                                   ("errors", dict(errors=True))):
                    line["a_" + key], line["b_" + key] = write(a, **style), write(b, **style)
        except NotPortable:
            continue
        out.write(json.dumps(line) + "\n")
        n += 1


def wide_pair(fields, out):
    """v1: `fields` fields of mixed types; v2: every tenth int widened to long, every
    twentieth string to bytes, and one new field with a default after every hundredth."""
    kinds = ["int", "string", "long", "double", "boolean", ["null", "string"]]
    v1, v2 = [], []
    for i in range(fields):
        t = kinds[i % len(kinds)]
        f1 = {"name": f"field_{i}", "type": t}
        if isinstance(t, list):
            f1["default"] = None
        v1.append(f1)
        t2 = t
        if t == "int" and i % 10 == 0:
            t2 = "long"
        if t == "string" and i % 20 == 1:
            t2 = "bytes"
        f2 = dict(f1, type=t2)
        v2.append(f2)
        if i % 100 == 99:
            v2.append({"name": f"added_{i}", "type": ["null", "long"], "default": None})
    a = {"type": "record", "name": "Wide", "namespace": "bench", "fields": v1}
    b = {"type": "record", "name": "Wide", "namespace": "bench", "fields": v2}
    line = {"id": 0, "slice": "wide", "features": [], "a": json.dumps(a), "b": json.dumps(b),
            "a_alt": json.dumps(a), "b_alt": json.dumps(b)}
    out.write(json.dumps(line) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--pairs", type=int, default=10000)
    p.add_argument("--wide", type=int, default=0, help="write one pair of records this wide")
    p.add_argument("out")
    args = p.parse_args()
    with open(args.out, "w") as out:
        if args.wide:
            wide_pair(args.wide, out)
        else:
            random_pairs(args.seed, args.pairs, out)


if __name__ == "__main__":
    sys.exit(main())
