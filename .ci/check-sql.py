#!/usr/bin/env python3
"""Runs the warehouse SQL (sql/*.sql) on chDB (ClickHouse in-process) against the fixture events
log and checks, field for field, that it gives what `mediate` computes from the same NDJSON:

1. sql/user_day.sql equals the per-user-day totals counted here from the NDJSON;
2. `mediate experiment report --json` from that CSV (--user-days) equals the report from the
   NDJSON (--events), every field (numbers to 1e-9 relative: the sums are added in another order);
3. sql/line_item_day.sql equals the per-ad-unit totals counted here from the NDJSON, and
   `mediate optimize --reports` reads it and counts each line item's impressions as the log's
   shown events.

Usage: .ci/check-sql.py [MEDIATE]   (default: .build/debug/mediate, built by `swift build`)"""
import collections, json, math, os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EVENTS = os.path.join(ROOT, "sql", "fixture", "events.ndjson")
EXPERIMENTS = os.path.join(ROOT, "sql", "fixture", "config.json")
CONFIG = os.path.join(ROOT, "Config", "mediation.json")
MEDIATE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug", "mediate")
failures = []


def fail(message):
    failures.append(message)
    print("check-sql: " + message, file=sys.stderr)


def statements(text):
    """The statements of a SQL file, comments removed."""
    text = re.sub(r"--[^\n]*", "", text)
    return [part.strip() for part in text.split(";") if part.strip()]


def run_sql():
    from chdb import session
    db = session.Session()
    with open(os.path.join(ROOT, "sql", "events.sql")) as f:
        load = f.read().replace("file('events.ndjson'", "file('%s'" % EVENTS.replace("'", "\\'"))
    for statement in statements(load):
        db.query(statement)
    out = {}
    for name in ["user_day", "line_item_day"]:
        with open(os.path.join(ROOT, "sql", name + ".sql")) as f:
            (query,) = statements(f.read())
        out[name] = str(db.query(query, "CSV"))
    return out


def parse_csv(text):
    import csv, io
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], rows[1:]


def close(a, b):
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def same(a, b, path="$"):
    """Compares two JSON values, numbers to 1e-9 relative."""
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            fail(f"{path}: keys differ: {sorted(set(a) ^ set(b))}")
        for key in set(a) & set(b):
            same(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            fail(f"{path}: {len(a)} items against {len(b)}")
        for index, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{index}]")
    elif isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool):
        if not close(a, b):
            fail(f"{path}: {a} against {b}")
    elif a != b:
        fail(f"{path}: {a!r} against {b!r}")


def main():
    events = [json.loads(line) for line in open(EVENTS) if line.strip()]
    out = run_sql()

    # 1. Per user and day, counted here.
    expected = collections.defaultdict(lambda: [0, 0, 0.0])
    latest_day = {}
    for e in events:
        if e.get("experiment") and e["event"] in ("exposure", "auction_started", "shown"):
            # A request has no day: the user's latest day before it (docs/experiments.md).
            key = (e["experiment"], e["unit"])
            if e.get("day"):
                latest_day[key] = e["day"]
            row = expected[(latest_day[key], e["experiment"], e["variant"], e["unit"])]
            row[0] += e["event"] == "auction_started"
            row[1] += e["event"] == "shown"
            row[2] += e.get("revenue_usd", 0) if e["event"] == "shown" else 0
    header, rows = parse_csv(out["user_day"])
    if header != ["day", "experiment", "variant", "unit", "requests", "impressions", "revenue_usd"]:
        fail(f"user_day.sql header {header}")
    got = {tuple(r[:4]): (int(r[4]), int(r[5]), float(r[6])) for r in rows}
    if set(got) != set(expected):
        fail(f"user_day.sql rows differ: {sorted(set(got) ^ set(expected))[:5]}")
    for key in set(got) & set(expected):
        g, x = got[key], expected[key]
        if g[:2] != tuple(x[:2]) or not math.isclose(g[2], x[2], abs_tol=1e-12):
            fail(f"user_day.sql {key}: {g} against {tuple(x)}")

    with tempfile.TemporaryDirectory() as tmp:
        user_days = os.path.join(tmp, "user_day.csv")
        line_items = os.path.join(tmp, "line_item_day.csv")
        open(user_days, "w").write(out["user_day"])
        open(line_items, "w").write(out["line_item_day"])

        # 2. The report from the SQL's CSV equals the report from the NDJSON.
        def report(*args):
            result = subprocess.run([MEDIATE, "experiment", "report", "--config", EXPERIMENTS, "--json", *args], capture_output=True, text=True)
            if result.returncode != 0:
                fail(f"mediate experiment report {' '.join(args)} exited {result.returncode}: {result.stderr.strip()}")
                return None
            return json.loads(result.stdout)
        from_events, from_sql = report("--events", EVENTS), report("--user-days", user_days)
        if from_events and from_sql:
            same(from_events, from_sql)
            # and its per-variant totals are the CSV's.
            totals = collections.defaultdict(lambda: [set(), 0, 0, 0.0])
            for (day, experiment, variant, unit), (requests, impressions, revenue) in got.items():
                t = totals[(experiment, variant)]
                t[0].add(unit); t[1] += requests; t[2] += impressions; t[3] += revenue
            for experiment in from_sql["experiments"]:
                for variant in experiment["variants"]:
                    users, requests, impressions, revenue = totals[(experiment["experiment"], variant["id"])]
                    if (variant["users"], variant["requests"], variant["impressions"]) != (len(users), requests, impressions) or not close(variant["revenue_usd"], revenue):
                        fail(f"report variant {variant['id']}: {variant} against the CSV's {len(users), requests, impressions, revenue}")

        # 3. Per day, network, ad unit and country, counted here; optimize reads it.
        ad_unit = {}
        for e in events:
            if e["event"] == "auction_finished":
                for source in e["trace"].get("sources", []):
                    ad_unit.setdefault((e["placement"], source["line_item"]), source["ad_unit_id"])
        expected_items = collections.defaultdict(lambda: [0, 0.0])
        shown_per_line_item = collections.Counter()
        for e in events:
            if e["event"] == "shown" and e.get("day"):
                country = e.get("country") or ""
                country = country if re.fullmatch(r"[A-Z]{2}", country) else ""
                unit = ad_unit.get((e["placement"], e["ad"]["lineItemID"])) or e["ad"]["lineItemID"]
                row = expected_items[(e["day"], e["ad"]["network"], unit, country)]
                row[0] += 1
                row[1] += e["revenue_usd"]
                shown_per_line_item[e["ad"]["lineItemID"]] += 1
        header, rows = parse_csv(out["line_item_day"])
        if header != ["day", "network", "ad_unit_id", "country", "impressions", "revenue", "currency"]:
            fail(f"line_item_day.sql header {header}")
        got_items = {tuple(r[:4]): (int(r[4]), float(r[5]), r[6]) for r in rows}
        if set(got_items) != set(expected_items):
            fail(f"line_item_day.sql rows differ: {sorted(set(got_items) ^ set(expected_items))[:5]}")
        for key in set(got_items) & set(expected_items):
            g, x = got_items[key], expected_items[key]
            if g[0] != x[0] or not math.isclose(g[1], x[1], abs_tol=1e-12) or g[2] != "USD":
                fail(f"line_item_day.sql {key}: {g} against {tuple(x)}")
        result = subprocess.run([MEDIATE, "optimize", "--config", CONFIG, "--reports", line_items, "--json"], capture_output=True, text=True)
        if result.returncode != 0:
            fail(f"mediate optimize --reports line_item_day.csv exited {result.returncode}: {result.stderr.strip()}")
        else:
            learned = {item["line_item"]: item["impressions"] for item in json.loads(result.stdout)["line_items"]}
            for line_item, count in shown_per_line_item.items():
                if learned.get(line_item) != count:
                    fail(f"optimize counts {learned.get(line_item)} impressions of {line_item}, the log shows {count}")

    if failures:
        sys.exit(1)
    print(f"check-sql: ok ({len(events)} events, {len(got)} user-days, {len(got_items)} ad-unit rows; the report from the SQL equals the report from the NDJSON)")


main()
