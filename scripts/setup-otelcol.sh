#!/usr/bin/env bash
# Build the OpenTelemetry Collector v0.162.0 with profiles support for the
# otlp package's end-to-end tests: OTLP receiver, debug/file/otlp_grpc exporters.
#
# Result: .cache/otelcol/dist/otelcol-profiles (at the repository root),
# printed on success. Idempotent: a rebuild happens only when the binary is
# missing or scripts/otelcol/manifest.yaml changed, so a warm run takes well
# under a second. Needs only Go and the Go module proxy.
#
# v0.162.0 is pinned on purpose: newer collector cores import modules the
# module proxy here refuses, and v0.162.0 speaks the same profiles schema
# (opentelemetry.proto.profiles.v1development, proto-go profiles v0.4.0).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
manifest="$root/scripts/otelcol/manifest.yaml"
work="$root/.cache/otelcol"
bin="$work/dist/otelcol-profiles"
stamp="$work/manifest.sha256"
want=$(sha256sum "$manifest" | cut -d' ' -f1)

if [ -x "$bin" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
	echo "$bin"
	exit 0
fi

mkdir -p "$work"
cp "$manifest" "$work/manifest.yaml"
cd "$work"
log="$work/build.log"
: >"$log"
fail() { cat "$log" >&2; echo "setup-otelcol: $*" >&2; exit 1; }

GOBIN="$work/bin" go install go.opentelemetry.io/collector/cmd/builder@v0.162.0 >>"$log" 2>&1 ||
	fail "installing ocb v0.162.0 failed"
# ocb's own 'go mod tidy' fails on a test-only dependency of fileexporter
# (contrib otlpencodingextension v0.162.0, refused by the module proxy), so:
# generate sources and go.mod, tidy with -e, check that every real (non-test)
# dependency resolves, then let ocb compile without touching modules again.
"$work/bin/builder" --config manifest.yaml --skip-compilation >>"$log" 2>&1 || true
[ -f dist/go.mod ] || fail "ocb did not generate dist/go.mod"
(cd dist && go mod tidy -e -compat=1.25 >>"$log" 2>&1) || fail "go mod tidy failed"
(cd dist && go list -deps . >/dev/null 2>>"$log") || fail "a collector dependency is missing"
"$work/bin/builder" --config manifest.yaml --skip-generate --skip-get-modules >>"$log" 2>&1 ||
	fail "compiling the collector failed"
[ -x "$bin" ] || fail "no binary at $bin"
echo "$want" >"$stamp"
echo "$bin"
