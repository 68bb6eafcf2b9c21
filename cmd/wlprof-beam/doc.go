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
//
// # Runners
//
// Prism runs in process and needs nothing installed. The portable
// runners reach a Beam job service at --endpoint. The Go SDK
// cross-compiles this program for linux/amd64 and stages it there, and
// the workers run it in Beam's Go SDK harness container
// (apache/beam_go_sdk:2.77.0).
//
//   - Flink: start Beam's Flink job server for the cluster's Flink
//     version (the apache/beam_flink1.NN_job_server:2.77.0 images, for
//     the versions Beam 2.77 supports), with --flink-master=HOST:8081.
//     Then run with --runner flink --endpoint localhost:8099.
//   - Spark: apache/beam_spark3_job_server:2.77.0 with
//     --spark-master-url=spark://HOST:7077. Then run with --runner spark
//     --endpoint localhost:8099.
//
// Not there yet:
//
//   - --input is a local glob and --out a local directory, and the
//     workers read and write them (the shard reader and the global
//     combine run there). On Flink and Spark both must be on a file
//     system every worker mounts at the same path, such as NFS or a
//     cluster file system.
//   - Dataflow is wired (--runner dataflow) but not usable: its own flags
//     (project, region, staging and temp locations) are not passed
//     through this command's flags, and gs:// paths are not read.
//   - Only Prism is tested here. It runs the same pipeline proto the
//     portable runners get. Flink and Spark have not been run.
//
// # Scaling model
//
// The numbers come from this 2-core machine. They are inputs to the
// model, not promises.
//
//   - Parse rate. google2019-usage JSON: 178 MB/s, 0.17 M rows/s on 2
//     cores (BenchmarkGoogleUsageJSON, load 3.5, session 9), about
//     1,030 bytes per row. CSV usage: 3.2 M rows/s (BenchmarkIngestCSV).
//     wlprof-beam on Prism, 1,000 tenants × 14 days of CSV (about 20 M
//     rows) in 16 shards, took 16.6 s against 4.4 s for wlprof ingest +
//     classify (session 8, quiet machine). The gap is the temporary
//     dataset each shard goes through, which a streaming reader removes.
//   - Bytes per tenant-month. A tenant's Partial, and its series, hold 8
//     bytes per grid slot. At Google's 5-minute windows a 31-day month is
//     8,928 slots, or 71 KB per tenant. 100,000 tenants (machines of all
//     8 cells with --tenant-key machine) make 7.1 GB.
//   - Shuffle. Each shard emits, per tenant it holds, the slots it
//     covers. Shards by time or by machine emit each slot about once, so
//     the shuffle is about the series' size (7.1 GB above). Shards that
//     each hold every tenant's whole month emit shards × 71 KB per
//     tenant: shard by time or by machine.
//   - Worker memory. A shard's builder holds its tenants × the slots it
//     covers × 8 bytes. The global combine holds every tenant's series on
//     one worker (7.1 GB above, so that worker needs about 10 GB). This
//     is the limit to lift next: combine summaries, not series.
//   - Time. T ≈ B / (N · c · r) + shuffle / (N · network) + combine. B is
//     the input's uncompressed bytes, N workers of c cores, r ≈ 89 MB/s
//     per core for Google's JSON (measured above; gzip costs about a
//     third more). The 2019 trace is about 2.4 TiB compressed. At an
//     assumed 6× gzip ratio that is about 14 TiB of JSON, or 14 G rows.
//     On 100 workers of 4 cores: about 14·2^40 / (400 · 89·10^6) ≈ 430 s
//     of parsing, about 570 s with gunzip. Then add a 7 GB shuffle and
//     the single-worker combine: about 100,000 FFTs of 8,928 points, a
//     few minutes on one core. That is roughly 15 minutes. On one machine
//     like this one, the same parse takes about 14·2^40 / 178·10^6 ≈ 24
//     hours.
package main
