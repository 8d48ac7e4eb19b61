#!/usr/bin/env bash
# Installs qemu's user-mode emulator for arm64 (Debian qemu-user-static),
# so `make test` also runs the tests of the packages with assembly
# (the prefetch hints of convert/retained/internal/mem) as arm64 code. Without it that step
# is skipped with a message; nothing else needs it.
set -euo pipefail
if command -v qemu-aarch64-static >/dev/null; then
	command -v qemu-aarch64-static
	exit 0
fi
sudo=""
[ "$(id -u)" = 0 ] || sudo="sudo"
install() { $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends qemu-user-static >/dev/null 2>&1; }
if ! install; then
	$sudo apt-get update -qq >/dev/null 2>&1 || true
	install || { echo "qemu-user-static not installed: the arm64 tests will be skipped"; exit 0; }
fi
command -v qemu-aarch64-static
