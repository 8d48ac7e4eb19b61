#!/usr/bin/env bash
# The code-shape checks CI enforces (run by `make lint`, part of `make test`):
#   - gofmt: every Go file formatted;
#   - go vet and staticcheck clean;
#   - no function over cyclomatic complexity 25 (gocyclo; tests included
#     only when LINT_TESTS=1);
#   - no non-test Go file over 600 lines;
#   - the root convert package (records → graph) at most 1,500 lines of
#     non-test Go: formats, inputs and models live in its sub-packages.
# Each failure names the file and what is over; the script checks
# everything, then exits 1 if anything failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin=$(bash scripts/setup-lint.sh) || exit 1
max_cyclo=25
max_file=600
max_convert=1500
status=0
fail() { echo "lint: $*" >&2; status=1; }

gofiles=$(git ls-files -co --exclude-standard '*.go' | grep -v '^\.cache/' || true)

unformatted=$(echo "$gofiles" | xargs gofmt -l)
[ -z "$unformatted" ] || fail "not gofmt'd: $unformatted"

go vet ./... || fail "go vet"
go vet -tags libdeflate ./convert/... || fail "go vet -tags libdeflate"

"$bin/staticcheck" ./... || fail "staticcheck"

ignore='_test\.go$'
[ "${LINT_TESTS:-0}" = 1 ] && ignore='^$'
over=$(echo "$gofiles" | grep -v '^\.cache/' | xargs "$bin/gocyclo" -over "$max_cyclo" -ignore "$ignore")
[ -z "$over" ] || fail "functions over cyclomatic complexity $max_cyclo:
$over"

for f in $(echo "$gofiles" | grep -v '_test\.go$'); do
	n=$(wc -l <"$f")
	[ "$n" -le "$max_file" ] || fail "$f has $n lines (at most $max_file for a non-test Go file)"
done

n=$(cat $(ls convert/*.go | grep -v '_test\.go$') | wc -l)
[ "$n" -le "$max_convert" ] || fail "the root convert package has $n lines of non-test Go (at most $max_convert)"

exit $status
