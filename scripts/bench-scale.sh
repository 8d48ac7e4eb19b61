#!/usr/bin/env bash
# Measures every pass over big dumps in one run, beside `cat` and `dd` of
# the same file, and prints markdown tables (docs/benchmarks.md, "At
# scale"): for each dump, after one untimed read into the page cache,
# ROUNDS rounds of cat, dd (bs=1M: every byte copied to the process, the
# floor the ratios are taken to), the heap view, the retained view, the
# heap tables (objects, refs, strings, roots) and the retained view in a
# 2 GiB memory cgroup (../shared/bench/memlimit.sh), whose profile is
# compared byte for byte with the unlimited run's. With --cold, it then
# times `dd` and the heap view of each plain dump from a cold page cache
# inside a 1 GiB cgroup (root only: it drops the page cache).
#
# Usage: scripts/bench-scale.sh [--cold] ROUNDS DUMP...
#   DUMP: bench-1g.hprof, bench-4g.hprof (../shared/bench/make-bench-dumps.sh)
#   or a generated dump (go run ./scripts/hprofgen ...). The heap tables
#   are written to a scratch directory beside the binary: a dump of N
#   objects needs about N × 10 bytes of free disk there (TMPDIR).
set -euo pipefail
cold=0
if [ "${1:-}" = --cold ]; then cold=1; shift; fi
rounds=${1:?usage: scripts/bench-scale.sh [--cold] ROUNDS DUMP...}
shift
root=$(cd "$(dirname "$0")/.." && pwd)
memlimit=$root/../shared/bench/memlimit.sh
. "$root/scripts/bench-build.sh"

# ratio A B prints A ÷ B to two decimals ("–" when B rounds to 0).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "–"; else printf "%.2f", a / b }'; }

machine
echo
echo "| input | round | cat, dd: wall s | heap view: wall s, CPU s, max RSS MB, ÷ dd | retained view: wall s, CPU s, max RSS MB, ÷ dd | heap tables: wall s, CPU s, max RSS MB, ÷ dd, ÷ retained | retained view in 2 GiB: wall s, CPU s, result |"
echo "|---|---|---|---|---|---|---|"
for f in "$@"; do
	cat "$f" >/dev/null
	for r in $(seq "$rounds"); do
		read -r kw _ _ <<<"$(timed sh -c 'cat "$1" >/dev/null' cat "$f")"
		read -r cw _ _ <<<"$(timed dd if="$f" of=/dev/null bs=1M)"
		read -r hw hc hr <<<"$(timed "$bin" convert -q --view heap -o "$out/h.pb.gz" "$f")"
		read -r rw rc rr <<<"$(timed "$bin" convert -q --view retained -o "$out/r.pb.gz" "$f")"
		if [ "$rw" = failed ]; then
			ret="refused: $(tail -1 "$out/err" | sed 's/.*retained view not computed: //')"
		else
			ret="$rw, $rc, $rr, $(ratio "$rw" "$cw")×"
		fi
		rm -rf "$out/t.d"
		read -r tw tc tr <<<"$(timed "$bin" convert -q --format parquet --tables objects,refs,strings,roots -d "$out/t.d" "$f")"
		if [ "$tw" = failed ]; then
			tab="failed: $(tail -1 "$out/err")"
		elif [ "$rw" = failed ]; then
			tab="$tw, $tc, $tr, $(ratio "$tw" "$cw")×"
		else
			tab="$tw, $tc, $tr, $(ratio "$tw" "$cw")×, $(ratio "$tw" "$rw")×"
		fi
		rm -rf "$out/t.d"
		lim="not run"
		if [ "$rw" != failed ] && [ -x "$memlimit" ]; then
			cp "$out/r.pb.gz" "$out/unlimited.pb.gz"
			read -r lw lc _ <<<"$(timed "$memlimit" 2G "$bin" convert -q --view retained -o "$out/l.pb.gz" "$f")"
			lim="$lw, $lc, $(grep -o 'peak charged [^,]*' "$out/err" | tail -1)"
			if cmp -s "$out/l.pb.gz" "$out/unlimited.pb.gz"; then lim="$lim, byte-identical"; else lim="$lim, DIFFERS"; fi
		fi
		printf '| %s | %d | %s, %s | %s, %s, %s, %s× | %s | %s | %s |\n' "$(basename "$f")" "$r" "$kw" "$cw" \
			"$hw" "$hc" "$hr" "$(ratio "$hw" "$cw")" "$ret" "$tab" "$lim"
	done
done

[ "$cold" = 1 ] && [ -x "$memlimit" ] && [ -w /proc/sys/vm/drop_caches ] || exit 0
# A dump bigger than the memory the page cache may use: in a 1 GiB cgroup,
# each run starting from a cold cache.
drop() { sync; echo 1 >/proc/sys/vm/drop_caches; }
echo
echo "| input | round | dd in 1 GiB, cold: wall s | heap view in 1 GiB, cold: wall s, CPU s | ÷ dd |"
echo "|---|---|---|---|---|"
for f in "$@"; do
	case $f in *.gz | *.bz2) continue ;; esac
	for r in $(seq "$rounds"); do
		drop
		read -r dw _ _ <<<"$(timed "$memlimit" 1G dd if="$f" of=/dev/null bs=1M)"
		drop
		read -r hw hc _ <<<"$(timed "$memlimit" 1G "$bin" convert -q --view heap -o "$out/h.pb.gz" "$f")"
		printf '| %s | %d | %s | %s, %s | %s× |\n' "$(basename "$f")" "$r" "$dw" "$hw" "$hc" "$(ratio "$hw" "$dw")"
	done
done
