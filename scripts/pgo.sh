#!/usr/bin/env bash
# Remakes cmd/hprof2pprof/default.pgo, the CPU profile `go build` uses for
# profile-guided optimization of the binary (Go's -pgo=auto: no flag
# needed, `go install` included). The profile is of our own benchmarks:
# the retained and heap views of the 1 GB benchmark dump, every view and
# the -gz path of the repository's dumps, and the Parquet writer.
#
# Usage: scripts/pgo.sh [DIR]
#   DIR holds bench-1g.hprof (../shared/bench/make-bench-dumps.sh DIR 1g);
#   without it, only the repository's own dumps are profiled.
# Remake the profile when the hot paths change much (docs/benchmarks.md).
set -euo pipefail
dir=${1:-}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tags=""
[ -f /usr/include/libdeflate.h ] && tags=libdeflate # as `make build` does

profile() { # profile NAME PKG BENCH BENCHTIME [ENV...]
	local name=$1 pkg=$2 bench=$3 n=$4
	shift 4
	env "$@" go test -tags "$tags" -run XXX -bench "^$bench\$" -benchtime "$n" \
		-cpuprofile "$tmp/$name.prof" -o "$tmp/$name.test" "$pkg" >"$tmp/$name.log" ||
		{ cat "$tmp/$name.log"; exit 1; }
	echo "profiled $name" >&2
}

profile all ./convert BenchmarkAllViews 20x
profile gzip ./convert BenchmarkHeapViewGzip 20x
profile parquet ./parquet BenchmarkWriter 5x
if [ -n "$dir" ]; then
	profile retained ./convert BenchmarkRetained 3x HPROF_BENCH_DUMP="$dir/bench-1g.hprof"
	profile heap ./convert BenchmarkBigDump 10x HPROF_BENCH_DUMP="$dir/bench-1g.hprof"
fi
go tool pprof -proto "$tmp"/*.prof >cmd/hprof2pprof/default.pgo 2>/dev/null
echo "wrote cmd/hprof2pprof/default.pgo ($(wc -c <cmd/hprof2pprof/default.pgo) bytes)" >&2
