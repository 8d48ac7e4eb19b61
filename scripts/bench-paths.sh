#!/usr/bin/env bash
# Measures the paths view and the suspects report beside the retained
# view, in one run, and prints markdown tables (docs/benchmarks.md): for
# each dump, ROUNDS rounds of retained view, paths view, suspects (page
# cache warm), then the three under a kernel-enforced memory limit
# (../shared/bench/memlimit.sh), the paths view and the report compared
# byte for byte with the unlimited ones.
#
# Usage: scripts/bench-paths.sh DIR [ROUNDS]
#   DIR holds bench-1g.hprof and bench-4g.hprof (any of them):
#   ../shared/bench/make-bench-dumps.sh DIR 1g 4g
set -euo pipefail
dir=${1:?usage: scripts/bench-paths.sh DIR [ROUNDS]}
rounds=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
memlimit=$root/../shared/bench/memlimit.sh
. "$root/scripts/bench-build.sh"

machine
echo
echo "| input | round | retained view: wall s, CPU s, max RSS MB | paths view | suspects | paths ÷ retained (wall, RSS) | suspects ÷ retained (wall, RSS) |"
echo "|---|---|---|---|---|---|---|"
for f in "$dir"/bench-1g.hprof "$dir"/bench-4g.hprof; do
	[ -f "$f" ] || continue
	for r in $(seq "$rounds"); do
		cat "$f" >/dev/null
		read -r rw rc rr <<<"$(timed "$bin" convert -q --view retained -o "$out/r.pb.gz" "$f")"
		cat "$f" >/dev/null
		read -r pw pc pr <<<"$(timed "$bin" convert -q --view paths -o "$out/p.pb.gz" "$f")"
		cat "$f" >/dev/null
		read -r sw sc sr <<<"$(timed "$bin" suspects -q "$f")"
		cp "$out/stdout" "$out/$(basename "$f").suspects.txt"
		printf '| %s | %d | %s, %s, %s | %s, %s, %s | %s, %s, %s | %.2f×, %.2f× | %.2f×, %.2f× |\n' "$(basename "$f")" "$r" \
			"$rw" "$rc" "$rr" "$pw" "$pc" "$pr" "$sw" "$sc" "$sr" \
			"$(echo "scale=3; $pw / $rw" | bc)" "$(echo "scale=3; $pr / $rr" | bc)" \
			"$(echo "scale=3; $sw / $rw" | bc)" "$(echo "scale=3; $sr / $rr" | bc)"
	done
	cp "$out/p.pb.gz" "$out/$(basename "$f").paths.pb.gz"
done

[ -x "$memlimit" ] || exit 0
echo
echo "| input | memory limit | retained view: wall s | paths view: wall s, result | suspects: wall s, result |"
echo "|---|---|---|---|---|"
for pair in bench-1g.hprof:512M bench-4g.hprof:1G; do
	f=$dir/${pair%%:*} limit=${pair##*:}
	[ -f "$f" ] && [ -f "$out/$(basename "$f").paths.pb.gz" ] || continue
	cat "$f" >/dev/null # read outside the limit: its page cache is not charged to the limited run
	read -r lr _ _ <<<"$(timed "$memlimit" "$limit" "$bin" convert -q --view retained -o "$out/l.pb.gz" "$f")"
	read -r lp _ _ <<<"$(timed "$memlimit" "$limit" "$bin" convert -q --view paths -o "$out/l.pb.gz" "$f")"
	pres="$(grep -o 'exit [0-9]*' "$out/err" | tail -1)"
	if cmp -s "$out/l.pb.gz" "$out/$(basename "$f").paths.pb.gz"; then pres="$pres, byte-identical"; else pres="$pres, DIFFERS"; fi
	read -r ls _ _ <<<"$(timed "$memlimit" "$limit" "$bin" suspects -q "$f")"
	sres="$(grep -o 'exit [0-9]*' "$out/err" | tail -1)"
	if cmp -s "$out/stdout" "$out/$(basename "$f").suspects.txt"; then sres="$sres, same report"; else sres="$sres, report DIFFERS"; fi
	printf '| %s | %s | %s | %s, %s | %s, %s |\n' "$(basename "$f")" "$limit" "$lr" "$lp" "$pres" "$ls" "$sres"
done
