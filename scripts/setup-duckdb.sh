#!/usr/bin/env bash
# Installs DuckDB (npm @duckdb/node-api, pinned in parquet/testdata/duckdb/)
# into .cache/duckdb for the parquet package's tests. The native library
# ships inside the npm package; nothing is downloaded at run time.
#
# Idempotent: when the installed lock matches the repo's, it does nothing.
# `npm install`, not `npm ci`: the registry has no 1.5.6-r.1 builds for the
# other platforms' optional bindings, so the lock cannot list them and
# `npm ci` refuses it.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/parquet/testdata/duckdb
dst=$root/.cache/duckdb

if [ -d "$dst/node_modules/@duckdb/node-api" ] &&
	cmp -s "$src/package.json" "$dst/package.json" &&
	cmp -s "$src/package-lock.json" "$dst/.installed-lock.json"; then
	echo "$dst/node_modules"
	exit 0
fi

command -v npm >/dev/null || { echo "setup-duckdb: npm not found (need Node.js 18+)" >&2; exit 1; }
mkdir -p "$dst"
cp "$src/package.json" "$src/package-lock.json" "$dst/"
(cd "$dst" && npm install --no-audit --no-fund --loglevel=error >&2)
cp "$src/package-lock.json" "$dst/.installed-lock.json"
echo "$dst/node_modules"
