#!/bin/sh
# Attack: the segment reachability check (segment_unreachable) runs at every engine build
# (launch, each fetched configuration: EngineSnapshot) and compares every pair of segments
# test by test, each `in` list as a set. 20 tests a predicate (the cap meant to keep it cheap)
# times 1000 values a list leaves it quadratic in both: 99 segments of `all` of 20
# `custom.k in [250 values]` tests (2.5 MB, under the 4 MiB limit), most of them sharing one
# set, cost 75 s of CPU in `mediate validate` (debug build, loaded 2-core machine), against
# 2.5 s for the same file whose tests name distinct keys (the check returns at once): the
# app's launch blocks that long in MediationEngine.init. Fixed: a work budget (SegmentReachability.workBudget;
# past it the check says nothing: sound, not complete): 2.55 s of CPU.
# Usage: Tests/attacks/segment-reachability-cpu.sh [path/to/mediate]   (exit 1 = bug present)
set -eu
MEDIATE=${1:-.build/debug/mediate}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
python3 - "$DIR/reach.json" <<'PY'
import json, sys
base = json.load(open("Config/mediation.json"))
values = ["%x" % k for k in range(250)]
segments = []
for i in range(99):
    tests = [{"custom.k": {"in": values}} for _ in range(19)] + [{"custom.k": {"in": values[:-1] + ["m%d" % i]}}]
    segments.append({"id": "s%d" % i, "when": {"all": tests}})
segments.append({"id": "default"})
base["placements"]["level_end"]["segments"] = segments
open(sys.argv[1], "w").write(json.dumps(base, separators=(",", ":")))
PY
/usr/bin/time -f '%U' -o "$DIR/cpu" "$MEDIATE" validate --config "$DIR/reach.json" >/dev/null 2>&1 || true
CPU=$(tail -1 "$DIR/cpu")
echo "mediate validate: ${CPU} s of CPU for 99 segments of 20 tests of 250 values"
if [ "$(python3 -c "print(int(float('$CPU') > 10))")" = 1 ]; then echo "FAIL: above 10 s of CPU"; exit 1; fi
echo PASS
