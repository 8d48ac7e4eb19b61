#!/usr/bin/env bash
# Writes the retained bench's extra heap dumps (scripts/bench-retained.sh
# measures them when they are there), from the corpus's Scale workload at
# the sizes of ../shared/bench/make-bench-dumps.sh, on JDK 17, dumped with
# jcmd GC.heap_dump (live objects):
#   zgc-1g, zgc-4g: the JVM runs ZGC, whose pages lie anywhere in a range
#     many times the heap: object IDs in stretches far apart, the case of
#     the ID index's two-level form (docs/retained.md);
#   gz-4g: bench-4g's workload dumped with -gz=1, a compressed input read
#     as a stream.
#
# Usage: scripts/make-extra-bench-dumps.sh DIR [zgc-1g|zgc-4g|gz-4g ...]
#   (default: all three); writes DIR/zgc-1g.hprof, DIR/zgc-4g.hprof and
#   DIR/bench-4g.hprof.gz, each with its jcmd-histo.txt. Needs the shared
#   corpus beside the repository, ~6.5 GB of disk, and RAM for a -Xmx7g JVM.
set -euo pipefail
out=${1:?usage: scripts/make-extra-bench-dumps.sh DIR [zgc-1g|zgc-4g|gz-4g ...]}
shift
kinds=("$@")
[ ${#kinds[@]} -gt 0 ] || kinds=(zgc-1g zgc-4g gz-4g)
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
for kind in "${kinds[@]}"; do
	gc=() gz=()
	case $kind in
	zgc-1g) mb=680 xmx=3g gc=(-XX:+UseZGC) f=$out/zgc-1g.hprof ;;
	zgc-4g) mb=2750 xmx=7g gc=(-XX:+UseZGC) f=$out/zgc-4g.hprof ;;
	gz-4g) mb=2750 xmx=7g gz=(-gz=1) f=$out/bench-4g.hprof.gz ;;
	*) echo "unknown dump $kind" >&2; exit 2 ;;
	esac
	rm -f "$f"
	wl_start "$jdk" "$out/.$kind.log" "${gc[@]}" -Xmx$xmx -cp "$jar" corpus.Scale "mb=$mb" seed=1
	"$jdk/bin/jcmd" "$WL_PID" GC.heap_dump "${gz[@]}" "$f" | tail -1
	"$jdk/bin/jcmd" "$WL_PID" GC.class_histogram >"$f.jcmd-histo.txt"
	wl_stop
	chmod 644 "$f"
done
