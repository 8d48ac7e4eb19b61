#!/usr/bin/env bash
# Install the static checks `make lint` runs, at pinned versions, from the
# Go module proxy: gocyclo (cyclomatic complexity) and staticcheck.
#
# Result: .cache/lint/bin/{gocyclo,staticcheck} (at the repository root),
# the directory printed on success. Idempotent: a tool is installed only
# when its stamp names another version, so a warm run takes well under a
# second.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/.cache/lint/bin"
mkdir -p "$bin"

install() { # install NAME MODULE/PATH VERSION
	local name=$1 pkg=$2 version=$3 stamp="$bin/$1.version"
	if [ -x "$bin/$name" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ]; then
		return
	fi
	GOBIN="$bin" go install "$pkg@$version" || { echo "setup-lint: installing $pkg@$version failed" >&2; exit 1; }
	echo "$version" >"$stamp"
}

install gocyclo github.com/fzipp/gocyclo/cmd/gocyclo v0.6.0
install staticcheck honnef.co/go/tools/cmd/staticcheck v0.6.1 # release 2025.1.1
echo "$bin"
