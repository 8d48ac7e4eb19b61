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

# timed CMD... runs CMD and prints "wall_s cpu_s max_rss_MB" (or "failed");
# its standard output goes to $out/stdout, its standard error to $out/err.
timed() {
	/usr/bin/time -f "%e %U %S %M" -o "$out/t" "$@" >"$out/stdout" 2>"$out/err" || { echo "failed"; return; }
	read -r wall user sys rss <"$out/t"
	printf '%.2f %.2f %d' "$wall" "$(echo "$user + $sys" | bc)" "$((rss / 1000))"
}
