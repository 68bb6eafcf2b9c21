// The ingest benchmark's anchor (ingest/bench_test.go): DuckDB's own CSV
// reader (read_csv, types and dialect sniffed) writing one Parquet file,
// zstd at level 1 as wlprof writes it. It prints the seconds of the COPY
// statement alone, without node's or DuckDB's start.
const { DuckDBInstance } = require('@duckdb/node-api');
(async () => {
  const [csv, out] = process.argv.slice(2);
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  const q = (s) => "'" + s.replaceAll("'", "''") + "'";
  const t0 = process.hrtime.bigint();
  await con.run(`COPY (SELECT * FROM read_csv(${q(csv)})) TO ${q(out)} (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1)`);
  const t1 = process.hrtime.bigint();
  console.log(JSON.stringify({ seconds: Number(t1 - t0) / 1e9 }));
})().catch((e) => { console.error(String(e)); process.exit(1); });
