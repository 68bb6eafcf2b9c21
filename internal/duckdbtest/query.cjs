// Runs each SQL query given as an argument in an in-memory DuckDB and
// prints its rows as one JSON array per line. DuckDB is the independent
// Parquet reader the dataset tests check the own encoders' files with
// (dataset/duckdb_test.go, ingest/utf8_test.go); scripts/deps.sh installs @duckdb/node-api in .deps/node.
const { DuckDBInstance } = require('@duckdb/node-api');
(async () => {
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  for (const q of process.argv.slice(2)) {
    const r = await con.runAndReadAll(q);
    console.log(JSON.stringify(r.getRowObjectsJson()));
  }
})().catch((e) => { console.error(String(e)); process.exit(1); });
