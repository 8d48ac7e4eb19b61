#!/usr/bin/env bash
# The code-shape checks CI enforces (run by `make lint`, part of `make test`).
#
# Everywhere:
#   - gofmt: every Go file formatted;
#   - go vet and staticcheck clean;
#   - no non-test function over cyclomatic complexity 20 (gocyclo; test
#     functions too when LINT_TESTS=1);
#   - no non-test Go file over 600 lines.
#
# The design, as rules on the code (imports read from `go list`, which
# sees what the compiler sees: non-test files, with and without -tags
# libdeflate):
#   - one format package opens records: no non-test file outside
#     convert/hprof calls hprof.NewReader; every other pass takes the
#     dump's handle;
#   - decoding never calls an emitter: the root convert package and every
#     package under convert/ depend on none of pprofout, otlp, parquet,
#     folded;
#   - the emitters stand side by side: none of pprofout, otlp, parquet,
#     folded depends on another;
#   - the first pass does not reach into the object graph:
#     convert/internal/heapdump does not depend on convert/retained;
#   - the CLI only wires flags: no function in cmd/hprof2pprof over
#     complexity 15, and under 2,200 lines of non-test Go there.
#
# Each failure names the file (or package) and the rule it breaks; the
# script checks everything, then exits 1 if anything failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=$(bash scripts/setup-lint.sh) || exit 1
max_cyclo=20
max_file=600
max_cli_cyclo=15
max_cli_lines=2200
status=0
fail() { echo "lint: $*" >&2; status=1; }

gofiles=$(git ls-files -co --exclude-standard '*.go' | grep -v '^\.cache/' || true)
nontest=$(echo "$gofiles" | grep -v '_test\.go$' || true)

unformatted=$(echo "$gofiles" | xargs gofmt -l)
[ -z "$unformatted" ] || fail "not gofmt'd: $unformatted"

go vet ./... || fail "go vet"
go vet -tags libdeflate ./convert/... || fail "go vet -tags libdeflate"

"$bin/staticcheck" ./... || fail "staticcheck"

ignore='_test\.go$'
[ "${LINT_TESTS:-0}" = 1 ] && ignore='^$'
over=$(echo "$gofiles" | xargs "$bin/gocyclo" -over "$max_cyclo" -ignore "$ignore")
[ -z "$over" ] || fail "functions over cyclomatic complexity $max_cyclo:
$over"

for f in $nontest; do
	n=$(wc -l <"$f")
	[ "$n" -le "$max_file" ] || fail "$f has $n lines (at most $max_file for a non-test Go file)"
done

# --- The design rules. ---

mod=$(go list -m)

# One format package opens records. A comment that names the call is
# not a call: only the code before a line's // counts.
while IFS= read -r at; do
	fail "$at calls hprof.NewReader: only convert/hprof opens records (a second pass takes the dump's handle)"
done < <(
	for f in $(echo "$nontest" | grep -v '^convert/hprof/'); do
		grep -n 'hprof\.NewReader' "$f" | while IFS= read -r hit; do
			code=${hit#*:}
			code=${code%%//*}
			case $code in *hprof.NewReader*) echo "$f:${hit%%:*}" ;; esac
		done
	done
)

# The module's import graph (non-test files; default tags and
# -tags libdeflate together): imports[P] lists the packages P imports.
declare -A imports=()
graph=$({
	go list -pgo=off -deps -f '{{if not .Standard}}{{.ImportPath}} {{join .Imports " "}}{{end}}' ./...
	go list -pgo=off -tags libdeflate -deps -f '{{if not .Standard}}{{.ImportPath}} {{join .Imports " "}}{{end}}' ./...
} | grep "^$mod\(/\| \|$\)") || fail "go list of the import graph"
while read -r p rest; do
	[ -n "$p" ] && imports[$p]+=" $rest"
done <<<"$graph"

# short P prints P without the module path.
short() { local p=${1#"$mod"}; p=${p#/}; echo "${p:-.}"; }

# importers DIR PKG prints the non-test files in DIR that import PKG.
importers() {
	local files
	files=$(grep -l "\"$2\"" "$1"/*.go 2>/dev/null | grep -v '_test\.go$' | tr '\n' ' ')
	echo "${files% }"
}

# forbid PKG RULE TARGET... fails when package PKG depends, directly or
# through other packages of the module, on one of the TARGET packages:
# it names the file that takes the first step, and the whole chain. The
# chain does not pass through a package of the same rule (inscope): that
# one is reported on its own.
declare -A inscope=()
forbid() {
	local from=$1 rule=$2
	shift 2
	if [ -z "${imports[$from]+set}" ]; then
		fail "$(short "$from"): no such package, yet a design rule names it: $rule"
		return
	fi
	local -A parent=([$from]=-)
	local queue=("$from") p q t
	while [ ${#queue[@]} -gt 0 ]; do
		p=${queue[0]}
		queue=("${queue[@]:1}")
		for q in ${imports[$p]:-}; do
			case $q in "$mod" | "$mod"/*) ;; *) continue ;; esac
			[ -n "${parent[$q]:-}" ] && continue
			parent[$q]=$p
			for t in "$@"; do
				case $q in "$t")
					local chain=$(short "$q") step=$q
					while [ "${parent[$step]}" != "$from" ]; do
						step=${parent[$step]}
						chain="$(short "$step") → $chain"
					done
					fail "$(importers "$(short "$from")" "$step") (package $(short "$from")) imports $(short "$step")$([ "$step" != "$q" ] && echo ", which leads to $(short "$q")") [$(short "$from") → $chain]: $rule"
					return
					;;
				esac
			done
			[ -n "${inscope[$q]:-}" ] || queue+=("$q")
		done
	done
}

emitters=(pprofout otlp parquet folded)
emitterpaths=($(for e in "${emitters[@]}"; do go list -pgo=off "./$e/..."; done))

scope() { inscope=(); local p; for p in "$@"; do inscope[$p]=1; done; }

scope $(go list -pgo=off ./convert/...)
for p in "${!inscope[@]}"; do
	forbid "$p" "decoding never calls an emitter (convert and everything under it depend on none of ${emitters[*]})" "${emitterpaths[@]}"
done

for e in "${emitters[@]}"; do
	others=()
	for o in "${emitters[@]}"; do [ "$o" = "$e" ] || others+=($(go list -pgo=off "./$o/...")); done
	scope $(go list -pgo=off "./$e/...")
	for p in "${!inscope[@]}"; do
		forbid "$p" "the emitters depend on none of each other (${emitters[*]})" "${others[@]}"
	done
done

scope "$mod/convert/internal/heapdump"
forbid "$mod/convert/internal/heapdump" "convert/internal/heapdump does not depend on convert/retained (the first pass notes object IDs in a leaf package)" "$mod/convert/retained"

# The CLI only wires flags.
cli=$(echo "$nontest" | grep '^cmd/hprof2pprof/' || true)
over=$(echo "$cli" | xargs "$bin/gocyclo" -over "$max_cli_cyclo")
[ -z "$over" ] || fail "functions in cmd/hprof2pprof over cyclomatic complexity $max_cli_cyclo (the CLI only wires flags; logic lives in library packages):
$over"
n=$(echo "$cli" | xargs cat | wc -l)
[ "$n" -lt "$max_cli_lines" ] || fail "cmd/hprof2pprof has $n lines of non-test Go (under $max_cli_lines: the CLI only wires flags; logic lives in library packages)"

exit $status
