#!/usr/bin/env bash
# Runs every native Go fuzz target for a short time each.
#
#   scripts/fuzz.sh              # 20s per target (what CI runs)
#   FUZZTIME=30m scripts/fuzz.sh # longer; see docs/robustness.md
#   scripts/fuzz.sh FuzzHeap     # only the targets whose name matches
#
# New failing inputs land in <package>/testdata/fuzz/<Target>/ and then
# run as ordinary tests with `go test`; commit them with the fix.
set -euo pipefail
cd "$(dirname "$0")/.."

fuzztime=${FUZZTIME:-20s}
# Minimizing a new interesting input runs outside the time budget and
# can stall a short run; keep it short.
minimize=${FUZZMINIMIZETIME:-200x}
only=${1:-}

# package target, one per line. Add new targets here.
targets="
./convert/hprof FuzzRecords
./convert/hprof FuzzHeap
./convert FuzzConvert
./convert FuzzGzip
./convert/text FuzzParse
./convert FuzzStream
"

status=0
while read -r pkg target; do
	[ -n "$pkg" ] || continue
	if [ -n "$only" ] && [[ "$target" != *"$only"* ]]; then
		continue
	fi
	echo "== $target ($pkg, $fuzztime)"
	if ! go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize"; then
		status=1
	fi
done <<<"$targets"
exit $status
