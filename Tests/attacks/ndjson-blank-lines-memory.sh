#!/bin/sh
# Attack: an NDJSON events log of blank lines makes `mediate experiment report --events`
# (and `optimize --events`) use ~36 bytes of memory per byte of input: the reader splits the
# whole file into an array of line slices before looking at any line. docs/experiments.md:
# "Memory grows with the exposed users kept (about 40 bytes each), not with the rows read";
# each file may be 256 MiB, i.e. ~9 GB here. Measured (debug build): 8 MiB -> 317 MB peak,
# 64 MiB -> 2.3 GB peak, 35 s. Expected: refused (no events) with a peak near the baseline.
# Usage: Tests/attacks/ndjson-blank-lines-memory.sh [path/to/mediate]   (exit 1 = bug present)
set -eu
MEDIATE=${1:-.build/debug/mediate}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
cat > "$DIR/config.json" <<'JSON'
{ "experiments": [ { "id": "x", "variants": [ { "id": "A", "weight_bp": 5000 }, { "id": "B", "weight_bp": 5000 } ] } ] }
JSON
python3 -c "open('$DIR/blank.ndjson','wb').write(b'\n' * (32 << 20))"
for args in "experiment report --config $DIR/config.json --events $DIR/blank.ndjson" \
            "optimize --config Config/mediation.json --reports Config/sample-revenue-report.csv --events $DIR/blank.ndjson"; do
  /usr/bin/time -f '%M' -o "$DIR/rss" "$MEDIATE" $args >/dev/null 2>&1 || true
  RSS=$(tail -1 "$DIR/rss")
  echo "mediate $args: peak ${RSS} KB for a 32 MiB file of blank lines"
  if [ "$RSS" -gt 262144 ]; then echo "FAIL: peak memory above 256 MB"; FAILED=1; fi
done
[ -z "${FAILED:-}" ] || exit 1
echo PASS
