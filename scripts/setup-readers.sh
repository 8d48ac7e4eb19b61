#!/usr/bin/env bash
# Installs the independent table readers the parquet package's tests read
# every Parquet and Arrow file with (npm, exact versions pinned in
# parquet/testdata/readers/): parquet-wasm (the Rust arrow/parquet crates
# as wasm), hyparquet with hyparquet-compressors (pure JavaScript), and
# apache-arrow (the Arrow JavaScript library, for Arrow IPC). Into
# .cache/readers; nothing is downloaded at run time.
#
# Idempotent: when the installed lock matches the repo's, it does nothing.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/parquet/testdata/readers
dst=$root/.cache/readers

if [ -d "$dst/node_modules/parquet-wasm" ] && [ -d "$dst/node_modules/hyparquet" ] &&
	[ -d "$dst/node_modules/apache-arrow" ] &&
	cmp -s "$src/package.json" "$dst/package.json" &&
	cmp -s "$src/package-lock.json" "$dst/.installed-lock.json"; then
	echo "$dst/node_modules"
	exit 0
fi

command -v npm >/dev/null || { echo "setup-readers: npm not found (need Node.js 18+)" >&2; exit 1; }
mkdir -p "$dst"
cp "$src/package.json" "$src/package-lock.json" "$dst/"
(cd "$dst" && npm ci --no-audit --no-fund --loglevel=error >&2)
cp "$src/package-lock.json" "$dst/.installed-lock.json"
echo "$dst/node_modules"
