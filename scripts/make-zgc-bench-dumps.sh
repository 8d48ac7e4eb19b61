#!/usr/bin/env bash
# Writes heap dumps whose object IDs cluster in stretches far apart, the
# case of the ID index's two-level form (docs/retained.md): the corpus's
# Scale workload, as in ../shared/bench/make-bench-dumps.sh, on JDK 17 with
# ZGC (its pages lie anywhere in a range many times the heap), dumped with
# jcmd GC.heap_dump (live objects).
#
# Usage: scripts/make-zgc-bench-dumps.sh DIR [SIZE...]
#   SIZE: 1g or 4g (default: both); writes DIR/zgc-SIZE.hprof and
#   DIR/zgc-SIZE.hprof.jcmd-histo.txt. Needs the shared corpus beside the
#   repository, ~5.2 GB of disk, and RAM for a -Xmx7g JVM (4g).
set -euo pipefail
out=${1:?usage: scripts/make-zgc-bench-dumps.sh DIR [1g|4g ...]}
shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1g 4g)
root=$(cd "$(dirname "$0")/.." && pwd)
workloads=$root/../shared/corpus/workloads
[ -d "$workloads" ] || { echo "no $workloads" >&2; exit 1; }
jdk=$("$root/scripts/setup-jdk.sh" | tail -1)
mkdir -p "$out"
out=$(cd "$out" && pwd)
build=$(mktemp -d)
jar=$("$workloads/build.sh" "$build" | tail -1)
. "$workloads/wl.sh"
trap 'wl_stop; rm -rf "$build"' EXIT
for size in "${sizes[@]}"; do
	case $size in
	1g) mb=680 xmx=3g ;; # the sizes of make-bench-dumps.sh's bench-1g and bench-4g
	4g) mb=2750 xmx=7g ;;
	*) echo "unknown size $size" >&2; exit 2 ;;
	esac
	f=$out/zgc-$size.hprof
	rm -f "$f"
	wl_start "$jdk" "$out/.zgc-$size.log" -XX:+UseZGC -Xmx$xmx -cp "$jar" corpus.Scale "mb=$mb" seed=1
	"$jdk/bin/jcmd" "$WL_PID" GC.heap_dump "$f" | tail -1
	"$jdk/bin/jcmd" "$WL_PID" GC.class_histogram >"$f.jcmd-histo.txt"
	wl_stop
	chmod 644 "$f"
done
