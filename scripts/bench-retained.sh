#!/usr/bin/env bash
# Measures the retained view beside the heap view, in one run, and prints
# markdown tables (docs/benchmarks.md): for each dump, ROUNDS rounds of
# heap view then retained view (page cache warm), then the retained view
# under a kernel-enforced memory limit (../shared/bench/memlimit.sh), its
# profile compared byte for byte with the unlimited one.
#
# Usage: scripts/bench-retained.sh DIR [ROUNDS]
#   DIR holds bench-1g.hprof, bench-1g.hprof.gz, bench-4g.hprof (any of them):
#   ../shared/bench/make-bench-dumps.sh DIR 1g 4g; and, measured after them
#   when there, zgc-1g.hprof and zgc-4g.hprof (IDs in stretches far apart)
#   and bench-4g.hprof.gz: scripts/make-extra-bench-dumps.sh DIR
set -euo pipefail
dir=${1:?usage: scripts/bench-retained.sh DIR [ROUNDS]}
rounds=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
memlimit=$root/../shared/bench/memlimit.sh
. "$root/scripts/bench-build.sh"

machine
echo
echo "| input | round | heap view: wall s, CPU s, max RSS MB | retained view: wall s, CPU s, max RSS MB | retained ÷ heap (wall, CPU) |"
echo "|---|---|---|---|---|"
for f in "$dir"/bench-1g.hprof "$dir"/bench-1g.hprof.gz "$dir"/bench-4g.hprof "$dir"/zgc-1g.hprof "$dir"/zgc-4g.hprof "$dir"/bench-4g.hprof.gz; do
	[ -f "$f" ] || continue
	for r in $(seq "$rounds"); do
		# Into the page cache before each run: the guest drops its page
		# cache now and then (docs/benchmarks.md), and a run that reads
		# from disk measures the disk.
		cat "$f" >/dev/null
		read -r hw hc hr <<<"$(timed "$bin" convert -q --view heap -o "$out/h.pb.gz" "$f")"
		cat "$f" >/dev/null
		read -r rw rc rr <<<"$(timed "$bin" convert -q --view retained -o "$out/r.pb.gz" "$f")"
		printf '| %s | %d | %s, %s, %s | %s, %s, %s | %.1f×, %.1f× |\n' "$(basename "$f")" "$r" "$hw" "$hc" "$hr" "$rw" "$rc" "$rr" \
			"$(echo "scale=3; $rw / $hw" | bc)" "$(echo "scale=3; $rc / $hc" | bc)"
	done
	cp "$out/r.pb.gz" "$out/$(basename "$f").retained.pb.gz"
done

[ -x "$memlimit" ] || exit 0
echo
echo "| input | memory limit | retained view: wall s, CPU s | result |"
echo "|---|---|---|---|"
for pair in bench-1g.hprof:512M bench-4g.hprof:1G zgc-1g.hprof:512M zgc-4g.hprof:1G bench-4g.hprof.gz:1G; do
	f=$dir/${pair%%:*} limit=${pair##*:}
	[ -f "$f" ] && [ -f "$out/$(basename "$f").retained.pb.gz" ] || continue
	cat "$f" >/dev/null # read outside the limit: its page cache is not charged to the limited run
	read -r lw lc _ <<<"$(timed "$memlimit" "$limit" "$bin" convert -q --view retained -o "$out/l.pb.gz" "$f")"
	res="exit status: $(grep -o 'exit [0-9]*' "$out/err" | tail -1)"
	if cmp -s "$out/l.pb.gz" "$out/$(basename "$f").retained.pb.gz"; then res="$res; profile byte-identical to the unlimited run"; else res="$res; profile DIFFERS"; fi
	res="$res; $(grep -o 'peak charged [^,]*' "$out/err" | tail -1)"
	printf '| %s | %s | %s, %s | %s |\n' "$(basename "$f")" "$limit" "$lw" "$lc" "$res"
done
