#!/bin/sh
# Attack: a caps.clock state file whose checksum is valid but whose cap_ms is near Int64.max
# (9223372036854775000) crashes the engine with "arithmetic overflow" at the first auction of a
# placement with caps (CapKeeper.cappedSources: `now + horizon`, CapKeeper.swift:157), and again
# on every relaunch: the app crash-loops until its data is cleared.
# docs/caps.md: "Stored cap state is untrusted input" ... discarded with a warning; the file's
# checksum "is not meant to stop a person with write access" (it is a plain SHA-256 of the
# record, recomputed below). StoredCaps.Clock.problem only refuses a negative cap_ms, and
# CapTimeline.resumed keeps a cap_ms that does not overflow when the wall-clock gain is added.
# Expected: the clock is refused (or clamped) with a warning and the run ends normally (exit 0).
# Happens: exit 132 (SIGILL), "Swift runtime failure: arithmetic overflow".
# Usage: Tests/attacks/stored-cap-clock-overflow-crash.sh [path/to/mediate]   (exit 1 = bug present)
set -eu
MEDIATE=${1:-.build/debug/mediate}
DIR=$(mktemp -d)
PORT=$((20000 + $$ % 20000))
python3 - "$DIR" <<'PY'
import json, sys
d = sys.argv[1]
c = json.load(open("Config/mediation.json"))
c["placements"]["home_banner"]["caps"] = [{"impressions": 2, "per_seconds": 7200}]
json.dump(c, open(d + "/config.json", "w"))
PY
"$MEDIATE" config keygen --out "$DIR/key" >/dev/null
mkdir "$DIR/srv"
"$MEDIATE" config sign --key "$DIR/key" --version 1 "$DIR/config.json" > "$DIR/srv/config.signed"
(cd "$DIR/srv" && exec python3 -m http.server "$PORT" --bind 127.0.0.1 >/dev/null 2>&1) &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; rm -rf "$DIR"' EXIT
sleep 1
mkdir -p "$DIR/state/virtual-time"
python3 - "$DIR/state/virtual-time/caps.clock.state" <<'PY'
import hashlib, sys, time
key, value = b"caps.clock", ('{"cap_ms":9223372036854775000,"version":1,"wall_ms":%d}' % int(time.time() * 1000)).encode()
record = b"MEDSTATE" + bytes([1]) + len(key).to_bytes(2, "big") + key + len(value).to_bytes(4, "big") + value
open(sys.argv[1], "wb").write(record + hashlib.sha256(record).digest())
PY
set +e
"$MEDIATE" --placement home_banner --config "$DIR/config.json" --config-url "http://localhost:$PORT/config.signed" \
    --public-key "$DIR/key.pub" --state-dir "$DIR/state" --watch --fast --duration 60 >"$DIR/out" 2>&1
RC=$?
set -e
grep -m1 "runtime failure" "$DIR/out" || true
echo "exit status $RC"
if [ "$RC" -ne 0 ]; then echo "FAIL: a tampered caps.clock crashed the run"; exit 1; fi
echo PASS
