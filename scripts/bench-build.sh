# Sourced by the bench scripts: builds hprof2pprof as `make build` does
# into a temporary $bin, makes a scratch directory $out, and removes both
# on exit; machine prints the tables' first line. Needs $root (the module root).
bin=$(mktemp -d)/hprof2pprof
out=$(mktemp -d)
trap 'rm -rf "$(dirname "$bin")" "$out"' EXIT
tags=""
[ -f /usr/include/libdeflate.h ] && tags=libdeflate # as `make build` does
(cd "$root" && go build -tags "$tags" -o "$bin" ./cmd/hprof2pprof)

# machine prints the line the benchmark tables start with.
machine() {
	echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); $(go version | cut -d' ' -f3); build tags: ${tags:-none}"
}
