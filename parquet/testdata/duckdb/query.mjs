// Runs SQL in DuckDB over Parquet tables and prints the results as JSON.
// The parquet package's tests call it; people can too.
//
// Usage: node query.mjs NODE_MODULES_DIR < request.json
//
// request.json: {"views": {"samples": "DIR/samples.parquet", ...},
//                "queries": [{"name": "top", "sql": "SELECT ..."}, ...]}
// Each view becomes `CREATE VIEW name AS SELECT * FROM read_parquet(path)`
// (path may be a glob or a list of paths). Output: one JSON object
// {"version": "...", "results": {"top": [{col: value, ...}, ...]}};
// BIGINT and HUGEINT values come out as strings, so nothing loses precision.
// On an SQL error it prints {"error": "...", "query": "name"} and exits 1.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

const modules = process.argv[2];
if (!modules) {
  console.error('usage: node query.mjs NODE_MODULES_DIR < request.json');
  process.exit(2);
}
const require = createRequire(resolve(modules) + '/');
const { DuckDBInstance } = require('@duckdb/node-api');

let input = '';
for await (const chunk of process.stdin) input += chunk;
const req = JSON.parse(input);

const instance = await DuckDBInstance.create(':memory:', {
  autoinstall_known_extensions: 'false', // never download an extension
  autoload_known_extensions: 'false',
});
const conn = await instance.connect();
const lit = (s) => `'${String(s).replaceAll("'", "''")}'`;
const out = { results: {} };
let current = 'version';
try {
  out.version = (await conn.runAndReadAll('SELECT version() AS v')).getRowObjectsJson()[0].v;
  for (const [name, path] of Object.entries(req.views ?? {})) {
    current = `view ${name}`;
    const arg = Array.isArray(path) ? `[${path.map(lit).join(', ')}]` : lit(path);
    await conn.run(`CREATE VIEW "${name}" AS SELECT * FROM read_parquet(${arg})`);
  }
  for (const q of req.queries ?? []) {
    current = q.name;
    out.results[q.name] = (await conn.runAndReadAll(q.sql)).getRowObjectsJson();
  }
} catch (e) {
  process.stdout.write(JSON.stringify({ error: String(e?.message ?? e), query: current }) + '\n');
  process.exit(1);
}
process.stdout.write(JSON.stringify(out) + '\n');
