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
./convert/hprof FuzzHeapPaths
./convert FuzzConvert
./convert FuzzGzip
./convert FuzzGzipChunked
./convert/text FuzzParse
./convert FuzzStream
./convert FuzzRetained
./otlp FuzzBuild
./otlp FuzzSplit
./agent/hsperf FuzzParse
"

status=0
while read -r pkg target; do
	[ -n "$pkg" ] || continue
	if [ -n "$only" ] && [[ "$target" != *"$only"* ]]; then
		continue
	fi
	echo "== $target ($pkg, $fuzztime)"
	corpus="$pkg/testdata/fuzz/$target"
	before=$(ls "$corpus" 2>/dev/null | sort || true)
	log=$(mktemp)
	if go test "$pkg" -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" -fuzzminimizetime "$minimize" 2>&1 | tee "$log"; [ "${PIPESTATUS[0]}" -eq 0 ]; then
		rm -f "$log"
		continue
	fi
	after=$(ls "$corpus" 2>/dev/null | sort || true)
	# Go 1.26's fuzz coordinator can report "context deadline exceeded"
	# when -fuzztime runs out mid-execution, without any failing input
	# (go.dev/issue/75804, fixed in Go 1.27). A real failure always
	# writes its input under testdata/fuzz/<Target>/.
	if [ "$before" = "$after" ] && grep -q "context deadline exceeded" "$log"; then
		echo "== $target: the fuzz time ran out mid-run (go.dev/issue/75804); no failing input was found"
	else
		status=1
	fi
	rm -f "$log"
done <<<"$targets"
exit $status
