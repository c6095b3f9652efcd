#!/usr/bin/env python3
"""Checks docs/seed-rules.md, the table of the three networks' off-device rules.

For every row whose id is `E<n>`, `N<n>` or `Q<n>` (the Elo, Nitx and Qartvelo rules):
- the row has five cells: id, rule, where, test, status;
- ids are unique and numbered without gaps per network;
- the status is `kept`, `kept by the engine` or `not offered` (no rule is left partly honoured
  or open);
- the test cell cites at least one test as `File.swift › functionName`, and each cited function
  is declared (`func functionName(`) in a file of that name under Tests/. A `not offered` row
  (a rule about an SDK call the engine does not offer, since no host or engine path would call
  it) has no code to test: it cites no test, and its where cell says why the call is absent.
Every such rule also has one reading: a two-cell row `| E<n> | ... |` in its network's
"Readings" table, saying where the document is ambiguous, what the code does and why (or that
the document is exact). A reading must not be empty and must name a rule of the table.
Rows of the on-device table (ids such as `ED1`) are not checked against tests.

Usage: .ci/check-seed-rules.py [ROOT]   (ROOT: the repository, default: the parent of .ci/)
Exit status: 0 when every row passes, 1 otherwise (each problem is printed).
"""

import os
import re
import sys

# `not offered`: the rule concerns an SDK call the engine leaves out (nothing would call it).
STATUSES = {"kept", "kept by the engine", "not offered"}
NOT_OFFERED = "not offered"
ROW_ID = re.compile(r"^([ENQ])(\d+)$")
CITATION = re.compile(r"`([A-Za-z0-9_+]+\.swift) › ([A-Za-z_][A-Za-z0-9_]*)`")


def test_functions(tests_root):
    """{file name: set of function names declared in it} for every Swift file under Tests/."""
    functions = {}
    for directory, _, files in os.walk(tests_root):
        for name in files:
            if not name.endswith(".swift"):
                continue
            with open(os.path.join(directory, name), encoding="utf-8") as handle:
                declared = set(re.findall(r"\bfunc\s+([A-Za-z_][A-Za-z0-9_]*)\s*[(<]", handle.read()))
            functions.setdefault(name, set()).update(declared)
    return functions


def cells(line):
    """The cells of a Markdown table row (pipes inside backticks do not split)."""
    parts, current, in_code = [], "", False
    for char in line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]:
        if char == "`":
            in_code = not in_code
        if char == "|" and not in_code:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    parts.append(current.strip())
    return parts


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    document = os.path.join(root, "docs", "seed-rules.md")
    functions = test_functions(os.path.join(root, "Tests"))
    problems, seen, counts = [], {}, {"E": 0, "N": 0, "Q": 0}
    readings = {}
    with open(document, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    for number, line in enumerate(lines, 1):
        if not line.startswith("| "):
            continue
        row = cells(line)
        match = ROW_ID.match(row[0])
        if not match:
            continue
        rule_id, where = row[0], f"docs/seed-rules.md:{number} {row[0]}"
        if len(row) == 2:
            if rule_id in readings:
                problems.append(f"{where}: a second reading (first at line {readings[rule_id]})")
            readings[rule_id] = number
            if not row[1]:
                problems.append(f"{where}: the reading is empty")
            continue
        if rule_id in seen:
            problems.append(f"{where}: duplicate id (first at line {seen[rule_id]})")
        seen[rule_id] = number
        counts[match.group(1)] += 1
        if len(row) != 5:
            problems.append(f"{where}: expected 5 cells (id, rule, where, test, status), found {len(row)}")
            continue
        _, rule, code, tests, status = row
        if not rule or not code:
            problems.append(f"{where}: the rule and where the code honours it must not be empty")
        if status not in STATUSES:
            problems.append(f"{where}: status is {status!r}; every rule must be 'kept', 'kept by the engine' or 'not offered'")
        citations = CITATION.findall(tests)
        if status == NOT_OFFERED:
            if citations:
                problems.append(f"{where}: a rule the engine does not offer cites no test")
            continue
        if not citations:
            problems.append(f"{where}: no test cited as `File.swift › functionName`")
        for file_name, function in citations:
            if file_name not in functions:
                problems.append(f"{where}: no test file {file_name} under Tests/")
            elif function not in functions[file_name]:
                problems.append(f"{where}: no func {function} in {file_name}")
    for prefix, count in counts.items():
        for index in range(1, count + 1):
            if f"{prefix}{index}" not in seen:
                problems.append(f"docs/seed-rules.md: {prefix}{index} is not in the table (ids must run from {prefix}1 without gaps)")
    for rule_id in sorted(seen, key=lambda i: (i[0], int(i[1:]))):
        if rule_id not in readings:
            problems.append(f"docs/seed-rules.md:{seen[rule_id]} {rule_id}: no reading (a two-cell row in the network's Readings table)")
    for rule_id in sorted(readings):
        if rule_id not in seen:
            problems.append(f"docs/seed-rules.md:{readings[rule_id]} {rule_id}: a reading of a rule that is not in the table")
    for problem in problems:
        print(problem)
    total = sum(counts.values())
    print(f"check-seed-rules: {total} rules (Elo {counts['E']}, Nitx {counts['N']}, Qartvelo {counts['Q']}), {len(readings)} readings, {len(problems)} problems")
    return 1 if problems or total == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
