#!/usr/bin/env bash
# Build SeaweedFS (Apache-2.0), an S3-compatible object store, for the tests
# that read dumps from and write outputs to buckets through a real server
# process on loopback (internal/objstore, the fleet tests).
#
# Result: .cache/seaweedfs/weed (at the repository root), printed on
# success. Idempotent: it builds only when the binary of this version is
# missing; a warm run takes well under a second, a cold one about six
# minutes on two cores. Needs only Go and the Go module proxy.
#
# `go install` refuses the module (its go.mod has replace directives), so the
# module's source is taken from the module cache and built in place.
set -euo pipefail
version=v0.0.0-20261109003541-7506e5f91cd6
root=$(cd "$(dirname "$0")/.." && pwd)
work="$root/.cache/seaweedfs"
bin="$work/weed"
stamp="$work/version"

if [ -x "$bin" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$version" ]; then
	echo "$bin"
	exit 0
fi
mkdir -p "$work"
log="$work/build.log"
: >"$log"
fail() { tail -50 "$log" >&2; echo "setup-seaweedfs: $*" >&2; exit 1; }

src=$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "github.com/seaweedfs/seaweedfs@$version" 2>>"$log" |
	sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$src" ] && [ -d "$src" ] || fail "downloading github.com/seaweedfs/seaweedfs@$version failed"
rm -rf "$work/src"
cp -r "$src" "$work/src"
chmod -R u+w "$work/src"
(cd "$work/src" && CGO_ENABLED=0 go build -o "$bin" ./weed >>"$log" 2>&1) || fail "building weed failed"
[ -x "$bin" ] || fail "no binary at $bin"
rm -rf "$work/src"
echo "$version" >"$stamp"
echo "$bin"
