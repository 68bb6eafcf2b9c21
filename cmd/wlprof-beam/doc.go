// Command wlprof-beam runs wlprof's per-tenant stages as an Apache Beam
// pipeline (Go SDK): on Prism, in process, by default; on Flink, Spark or
// Dataflow through their job services (--runner, --endpoint). It is a Go
// module of its own, so that building wlprof and testing its core never
// compile the Beam SDK (make test-beam tests it).
//
// classify (pipeline.go) is wlprof ingest + wlprof classify over raw
// shards, with the same answer whatever the sharding:
//
//   - each shard is read with ingest's parser for --format (through a
//     temporary dataset, so records, rejects and units are ingest's) and
//     reduced to one fft.Partial per tenant: exact fixed-point sums and
//     counts per grid slot, never one element per sample;
//   - Partials are merged per tenant by integer adds (associative and
//     commutative: any grouping and order of merges gives the same bits);
//   - each tenant's series is classified by fft.Analyse;
//   - one global combine runs fft.Combine (K-Means classes, headroom),
//     which sorts the tenants first, so the class sums run in tenant
//     order as in wlprof classify.
//
// Outputs (output.go) go to --out: classify.json (wlprof classify -o json,
// byte for byte), tenants.parquet and classes.parquet, rejects.csv.
// Command shape, -o, -q and exit codes (0, 1, 2, 3) are wlprof's.
package main
