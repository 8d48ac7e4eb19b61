#!/usr/bin/env bash
# Measures the heap view on big dumps beside the I/O and inflate floors, in
# one run, and the default conversion (heap and threads views, what
# `convert` without --view makes), and prints a markdown table
# (docs/benchmarks.md).
#
# Usage: scripts/bench.sh DIR        # DIR holds bench-1g.hprof[.gz] (and bench-4g.hprof if made)
# Make the dumps with ../shared/bench/make-bench-dumps.sh DIR 1g 4g.
set -euo pipefail
dir=${1:?usage: scripts/bench.sh DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/bench-build.sh"

run() { # run NAME FILE CMD...: two timed runs, one table row each
	local name=$1 file=$2; shift 2
	for i in 1 2; do
		/usr/bin/time -f "%e %U %S %M" -o "$out/t" "$@" >/dev/null 2>&1 || { echo "| $name | $(basename "$file") | failed | | | |"; continue; }
		read -r wall user sys rss <"$out/t"
		local size; size=$(stat -L -c %s "$file")
		printf '| %s | %s | %.2f | %.2f | %d | %.2f |\n' "$name" "$(basename "$file")" "$wall" "$(echo "$user + $sys" | bc)" "$((rss / 1024))" \
			"$(echo "scale=2; $size / 1000000000 / $wall" | bc)"
	done
}

machine
echo
echo "| tool | input | wall s | CPU s | max RSS MiB | input GB/s |"
echo "|---|---|---|---|---|---|"
for f in "$dir"/bench-1g.hprof "$dir"/bench-4g.hprof; do
	[ -f "$f" ] || continue
	cat "$f" >/dev/null # into the page cache
	run "cat (floor)" "$f" cat "$f"
	run "hprof2pprof --view heap" "$f" "$bin" convert -q --view heap -o "$out/h.pb.gz" "$f"
	run "hprof2pprof (default views)" "$f" "$bin" convert -q -o "$out/d.pb.gz" "$f"
done
gz="$dir/bench-1g.hprof.gz"
if [ -f "$gz" ]; then
	cat "$gz" >/dev/null
	run "gzip -dc (floor)" "$gz" gzip -dc "$gz"
	run "hprof2pprof --view heap" "$gz" "$bin" convert -q --view heap -o "$out/h.pb.gz" "$gz"
	run "hprof2pprof (default views)" "$gz" "$bin" convert -q -o "$out/d.pb.gz" "$gz"
fi
