// Reads table files with one of four independent readers and prints every
// row as JSON in one canonical form, so the parquet package's tests can
// require that all readers see the same rows.
//
// Usage: node read.mjs READER NODE_MODULES_DIR FILE...
//
//   READER        what reads FILE
//   duckdb        DuckDB's Parquet reader (@duckdb/node-api)
//   arrow-rs      the Rust arrow/parquet crates compiled to wasm (parquet-wasm)
//   hyparquet     hyparquet, a pure JavaScript Parquet reader
//   apache-arrow  the Arrow JavaScript library's IPC file reader
//
// Output: {"reader": READER, "version": "...", "tables": {FILE: {"columns":
// [...], "rows": [[...], ...], "metadata": {...}}}}: the file's key-value
// (Parquet) or schema (Arrow) metadata; DuckDB and hyparquet add the
// footer's "created_by", DuckDB the root schema element's
// "root_repetition".
// Canonical values: integers and timestamps (microseconds since the epoch)
// as decimal strings, strings as strings, NULL as null, lists as arrays,
// maps as arrays of [key, value] pairs sorted by key. Rows are sorted by
// their JSON text, so the order a reader returns them in does not matter.
// A reader's failure is printed as {"error": "...", "file": FILE} with
// exit status 1.
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';

const [reader, modules, ...files] = process.argv.slice(2);
if (!reader || !modules || files.length === 0) {
  console.error('usage: node read.mjs duckdb|arrow-rs|hyparquet|apache-arrow NODE_MODULES_DIR FILE...');
  process.exit(2);
}
const require = createRequire(resolve(modules) + '/');
const load = async (name) => import(require.resolve(name));
// versionOf reads an installed package's version (some packages do not
// export their package.json).
const versionOf = async (name) =>
  JSON.parse(await readFile(resolve(modules, name, 'package.json'), 'utf8')).version;

// canon turns one reader's value into the canonical form. kind is the
// column's shape from the file's schema: 'map', 'list', 'timestamp' or
// 'scalar'; item is the shape of a list's elements.
function canon(v, kind, item) {
  if (v === null || v === undefined) return null;
  switch (kind) {
    case 'map': return canonMap(v);
    case 'list': return Array.from(v, (x) => canon(x, item ?? 'scalar'));
    default: return scalar(v);
  }
}

function scalar(v) {
  switch (typeof v) {
    case 'bigint': return v.toString();
    case 'number':
      if (!Number.isSafeInteger(v)) throw new Error(`non-integer number ${v}`);
      return String(v);
    case 'string': return v;
    case 'boolean': return v ? 'true' : 'false';
    default: throw new Error(`unexpected value ${Object.prototype.toString.call(v)}`);
  }
}

// canonMap accepts every map form the readers return: an iterable of
// [key, value] entries (apache-arrow's MapRow, a JS Map), an array of
// {key, value} objects, or a plain object.
function canonMap(v) {
  let pairs;
  if (Array.isArray(v)) {
    pairs = v.map((e) => (Array.isArray(e) ? e : [e.key, e.value]));
  } else if (typeof v[Symbol.iterator] === 'function') {
    pairs = Array.from(v, (e) => (Array.isArray(e) ? e : [e.key, e.value]));
  } else {
    pairs = Object.entries(v);
  }
  const out = pairs.map(([k, x]) => [scalar(k), x === null || x === undefined ? null : scalar(x)]);
  return out.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

function finish(columns, kinds, rawRows) {
  const rows = rawRows.map((r) => r.map((v, i) => canon(v, kinds[i].kind, kinds[i].item)));
  const keyed = rows.map((r) => [JSON.stringify(r), r]);
  keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { columns, rows: keyed.map((k) => k[1]) };
}

// arrowKinds maps an Arrow schema (apache-arrow's classes) to shapes.
function arrowKind(type, arrow) {
  const t = type.typeId;
  if (t === arrow.Type.Map) return { kind: 'map' };
  if (t === arrow.Type.List || t === arrow.Type.LargeList) {
    return { kind: 'list', item: arrowKind(type.children[0].type, arrow).kind };
  }
  if (t === arrow.Type.Timestamp) return { kind: 'timestamp', unit: type.unit };
  return { kind: 'scalar' };
}

// arrowRows reads every row of an apache-arrow Table; timestamps are
// taken from the raw int64 values, not the lossy millisecond numbers.
function arrowRows(table, arrow) {
  const fields = table.schema.fields;
  const kinds = fields.map((f) => arrowKind(f.type, arrow));
  const cols = fields.map((f, i) => {
    const vec = table.getChildAt(i);
    const out = [];
    if (kinds[i].kind === 'timestamp') {
      if (kinds[i].unit !== arrow.TimeUnit.MICROSECOND) throw new Error(`${f.name}: timestamp unit ${kinds[i].unit}`);
      for (const d of vec.data) {
        const raw = new BigInt64Array(d.values.buffer, d.values.byteOffset, d.length + d.offset);
        for (let j = 0; j < d.length; j++) out.push(d.getValid(j) ? raw[d.offset + j] : null);
      }
      return out;
    }
    for (let j = 0; j < vec.length; j++) out.push(vec.get(j));
    return out;
  });
  const rows = [];
  for (let j = 0; j < table.numRows; j++) rows.push(cols.map((c) => c[j]));
  return { columns: fields.map((f) => f.name), kinds, rows };
}

function arrowMetadata(md) {
  const out = {};
  for (const [k, v] of md ?? []) out[k] = v;
  return out;
}

const readers = {
  async duckdb() {
    const { DuckDBInstance, DuckDBMapValue, DuckDBListValue, DuckDBTimestampTZValue, DuckDBTimestampValue } =
      await load('@duckdb/node-api');
    const instance = await DuckDBInstance.create(':memory:', {
      autoinstall_known_extensions: 'false',
      autoload_known_extensions: 'false',
    });
    const conn = await instance.connect();
    const version = (await conn.runAndReadAll('SELECT version() AS v')).getRowObjectsJson()[0].v;
    const lit = (s) => `'${String(s).replaceAll("'", "''")}'`;
    const unwrap = (v) => {
      if (v instanceof DuckDBMapValue) return v.entries.map((e) => [unwrap(e.key), unwrap(e.value)]);
      if (v instanceof DuckDBListValue) return v.items.map(unwrap);
      if (v instanceof DuckDBTimestampTZValue || v instanceof DuckDBTimestampValue) return v.micros;
      return v;
    };
    const tables = {};
    for (const file of files) {
      current = file;
      const res = await conn.runAndReadAll(`SELECT * FROM read_parquet(${lit(file)})`);
      const columns = res.columnNames();
      const kinds = res.columnTypes().map((t) => {
        const s = t.toString();
        if (s.startsWith('MAP(')) return { kind: 'map' };
        if (s.endsWith('[]')) return { kind: 'list', item: 'scalar' };
        return { kind: 'scalar' };
      });
      const rows = res.getRows().map((r) => r.map(unwrap));
      const meta = (await conn.runAndReadAll(
        `SELECT decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(${lit(file)})`)).getRowObjects();
      const fm = (await conn.runAndReadAll(
        `SELECT created_by FROM parquet_file_metadata(${lit(file)})`)).getRowObjects()[0];
      // The schema's first element is the root.
      const root = (await conn.runAndReadAll(
        `SELECT repetition_type FROM parquet_schema(${lit(file)}) LIMIT 1`)).getRowObjects()[0];
      tables[file] = {
        ...finish(columns, kinds, rows),
        created_by: fm.created_by,
        root_repetition: root.repetition_type,
        metadata: Object.fromEntries(meta.map((m) => [m.k, m.v])),
      };
    }
    return { version, tables };
  },

  async 'arrow-rs'() {
    const wasm = await load('parquet-wasm');
    const arrow = await load('apache-arrow');
        const tables = {};
    for (const file of files) {
      current = file;
      const bytes = new Uint8Array(await readFile(file));
      const t = wasm.readParquet(bytes);
      const table = arrow.tableFromIPC(t.intoIPCStream());
      const { columns, kinds, rows } = arrowRows(table, arrow);
      tables[file] = { ...finish(columns, kinds, rows), metadata: arrowMetadata(table.schema.metadata) };
    }
    return { version: `parquet-wasm ${await versionOf('parquet-wasm')}`, tables };
  },

  async hyparquet() {
    const hp = await load('hyparquet');
    const { compressors } = await load('hyparquet-compressors');
        const tables = {};
    for (const file of files) {
      current = file;
      const b = await readFile(file);
      const buf = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
      const metadata = hp.parquetMetadata(buf);
      const schema = hp.parquetSchema(metadata);
      const kinds = schema.children.map(hyparquetKind);
      const columns = schema.children.map((c) => c.element.name);
      const objects = await hp.parquetReadObjects({
        file: buf,
        metadata,
        compressors,
        parsers: { timestampFromMicroseconds: (v) => v, timestampFromMilliseconds: (v) => v * 1000n },
      });
      const rows = objects.map((o) => columns.map((c) => o[c]));
      tables[file] = {
        ...finish(columns, kinds, rows),
        created_by: metadata.created_by,
        metadata: Object.fromEntries((metadata.key_value_metadata ?? []).map((kv) => [kv.key, kv.value])),
      };
    }
    return { version: `hyparquet ${await versionOf('hyparquet')}`, tables };
  },

  async 'apache-arrow'() {
    const arrow = await load('apache-arrow');
        const tables = {};
    for (const file of files) {
      current = file;
      const table = arrow.tableFromIPC(await readFile(file));
      const { columns, kinds, rows } = arrowRows(table, arrow);
      tables[file] = { ...finish(columns, kinds, rows), metadata: arrowMetadata(table.schema.metadata) };
    }
    return { version: `apache-arrow ${await versionOf('apache-arrow')}`, tables };
  },
};

function hyparquetKind(node) {
  const ct = node.element.converted_type;
  const lt = node.element.logical_type?.type;
  if (ct === 'MAP' || lt === 'MAP') return { kind: 'map' };
  if (ct === 'LIST' || lt === 'LIST') return { kind: 'list', item: 'scalar' };
  return { kind: 'scalar' };
}

const read = readers[reader];
if (!read) {
  console.error(`unknown reader ${reader}`);
  process.exit(2);
}
let current = '';
try {
  const out = await read();
  process.stdout.write(JSON.stringify({ reader, ...out }) + '\n');
} catch (e) {
  process.stdout.write(JSON.stringify({ error: String(e?.stack ?? e), file: current }) + '\n');
  process.exit(1);
}
