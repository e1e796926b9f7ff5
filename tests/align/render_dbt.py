#!/usr/bin/python3
"""Render a dbt model the way dbt compiles it, for a test that runs the result in DuckDB.

render_dbt.py MODEL.sql                  prints the SQL, with source() and ref() giving the bare
                                         table name and config() nothing, as dbt's context does
                                         for a relation in the default schema.
render_dbt.py --check-schema schema.yml  checks the model contract keys dbt reads; exit 77 when
                                         PyYAML is missing.
"""
import sys


def render(path):
    try:
        import jinja2
    except ImportError:
        print("python3-jinja2 is not installed", file=sys.stderr)
        sys.exit(77)
    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    env.globals.update(
        source=lambda source_name, table_name: table_name,
        ref=lambda *names: names[-1],
        config=lambda **kwargs: "",
    )
    with open(path, encoding="utf-8") as f:
        print(env.from_string(f.read()).render())


def check_schema(path):
    try:
        import yaml
    except ImportError:
        print("python3-yaml is not installed", file=sys.stderr)
        sys.exit(77)
    with open(path, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    assert doc["version"] == 2, "schema.yml: version must be 2"
    models = doc["models"]
    assert len(models) == 1, "schema.yml: one model"
    model = models[0]
    assert model["config"]["contract"]["enforced"] is True, "contract: {enforced: true}"
    columns = model["columns"]
    assert columns, "schema.yml: columns"
    for c in columns:
        assert isinstance(c["name"], str) and c["name"], "every column has a name"
        assert isinstance(c["data_type"], str) and c["data_type"], c["name"] + ": data_type"
        for t in c.get("data_tests", []):
            assert t in ("not_null", "unique") or "accepted_values" in t, c["name"] + ": test " + str(t)
    for line in (c["name"] + "\t" + c["data_type"] for c in columns):
        print(line)


if __name__ == "__main__":
    if sys.argv[1] == "--check-schema":
        check_schema(sys.argv[2])
    else:
        render(sys.argv[1])
