// Command wlprof-beam runs wlprof's per-tenant and per-job stages as an
// Apache Beam pipeline (Go SDK): on Prism, in process, by default; on
// Flink or Spark through their job services (--runner, --endpoint); on
// Dataflow with its project, region and bucket (--runner dataflow). It is
// a Go module of its own, so that building wlprof and testing its core
// never compile the Beam SDK (make test-beam tests it).
//
// Every command reads raw shards (--input globs) with ingest's parser for
// --format, through a temporary dataset per shard, so that records,
// rejects and units are exactly wlprof ingest's; rejected records are a
// side output, written sorted to DIR/rejects.csv. Each calls its stage's
// per-key core on workers and the stage's own combine at the end, and
// writes the document of wlprof STAGE -o json to DIR, with Parquet tables
// of the results (readable by DuckDB) beside it (output.go). Command
// shape, -o, -q and exit codes (0, 1, 2, 3) are wlprof's; the shared
// flags, the run and the rejects are in shards.go.
//
// --input and --out are local paths, or paths of Beam's file systems
// (fsio.go): gs:// (Google Cloud Storage, with the machine's Application
// Default Credentials) and memfs:// (one process's memory, for tests on
// Prism). A glob with a scheme is listed with the file system's List; each
// shard reader copies its shard to a temporary file of the worker, under
// the shard's own name (formats and compression are told by name), and
// parses that; rejects.csv names the shard as listed. Outputs are written
// to a temporary file and copied to DIR with the file system's OpenWrite
// (an object appears whole or not at all); the command reads them back
// the same way, and removes an earlier run's first. Local paths are read
// and written in place, as before. A shard is fetched with what its
// format reads beside it: a .jhist with its job's _conf.xml, a part of a
// rolled Spark event log with its whole eventlog_v2_ folder (the first
// part reads them all; the others are then skipped, as ingest does).
//
// # classify
//
// classify (pipeline.go) is wlprof ingest + wlprof classify over raw
// shards, with the same answer whatever the sharding:
//
//   - each shard is reduced to one classify.Partial per tenant: exact
//     fixed-point sums and counts per grid slot, never one element per
//     sample;
//   - Partials are merged per tenant by integer adds (associative and
//     commutative: any grouping and order of merges gives the same bits);
//   - each tenant's series is classified by classify.Analyse;
//   - one global combine runs classify.Combine (K-Means classes, headroom),
//     which sorts the tenants first, so the class sums run in tenant
//     order as in wlprof classify.
//
// Outputs: classify.json (wlprof classify -o json, byte for byte),
// tenants.parquet, classes.parquet.
//
// # skyline
//
// skyline (skylinepipe.go) is wlprof ingest + wlprof skyline, with the
// flags of wlprof skyline that shape the fit (--alpha, --beta, --step,
// --min-runs, --timeout, --model, --job, --alpha-sweep):
//
//   - each shard emits one element per run it holds (the run's rows of the
//     skylines table, in the table's order), keyed by job;
//   - per job, the runs' rows are put back in the order of the shards'
//     paths, which is the order wlprof ingest gives the table when it is
//     handed the same files sorted, and skyline.JobFromRows builds the job
//     as skyline.Load does (a run ingested twice: one copy; different
//     skylines under one run id: added);
//   - skyline.FitJob fits it on the worker: one LP per job (and one per α
//     of --alpha-sweep), by CLP, the code path of skyline.Run;
//   - one global combine runs skyline.Collect on the outcomes sorted by
//     job, as skyline.Run collects them: a job whose fit fails fails the
//     whole result with every job's error, which the combine writes to
//     errors.txt and the command says as wlprof does (exit 1).
//
// Outputs: skyline.json (wlprof skyline -o json byte for byte, but for
// solve_s, which is a time), skylines.parquet (a row per fitted job),
// reservations.parquet (a row per job and step).
//
// A run split over shards is joined in path order: shard by file as the
// logs come, or by job or run. skyline-csv with timestamps measures each
// shard's part of a run from that part's first timestamp, so keep each
// run's rows in one shard there. Two shards with the same bytes are both
// read (wlprof ingest skips the second): their runs then count as a run
// ingested twice, with that warning.
//
// # elasticity
//
// elasticity (elasticitypipe.go) is wlprof ingest + wlprof elasticity,
// with its flags (--job, --grid, --set, --input-bytes, --wall-time):
// each profiling run (one row of the profruns table) is an element keyed
// by its group (job, task, framework, slots); per group, the runs are put
// back in the shards' path order and each shard's row order, and
// elasticity.ModelGroup models the group on the worker (failed runs left
// out and counted, the retarget of --input-bytes), the code path of
// elasticity.Run; elasticity.Collect sorts the outcomes by group. Outputs:
// elasticity.json (byte for byte), models.parquet (a row per model),
// curves.parquet (a row per model and curve point).
//
// # slo: single-machine, and the join it would need
//
// slo is not here, because wlprof's slo stage has no per-job core to
// call once the input is keyed by job. Its Load reads the runs table and
// the whole provenance table, sorted by time (streamed in ingest order
// above slo.SortRows rows). Run then folds the provenance into one state,
// in time order, and reads it twice:
//
//   - runs from every source are merged by run id (mergeRuns), and indexed
//     by user with their [start, end] windows;
//   - pass 1 attributes each write, rename and read to a run (the run id
//     the event names, an application id in the path, else the runs of
//     the event's user whose window holds its time) only to learn which
//     jobs touch each directory stem;
//   - pass 2 replays the events. It keeps one state per path: the last
//     writer run and the time of each file version, with reads resolved
//     through the path's ancestors, since a directory renamed into place
//     carries its files. It attributes each event, breaking ties between
//     a user's overlapping runs with the stem affinities, which pass 2
//     keeps updating as it goes. Each read after the writer's end adds
//     an edge: the writer's job gains a consumer and its run gets its
//     output's first read (the deadline's evidence), and the reader's run
//     gets the last write among its inputs (the arrival's evidence);
//   - the per-job inference comes last (slo.ByJob indexes it by job). It
//     needs every job's period first, because a job's deadline is folded
//     into the smallest period among its consumers (consumerPeriodS).
//
// A distributed slo therefore needs four joins. The runs, merged by run
// id, become a side input every worker holds (the user index). The
// provenance is grouped by directory stem and replayed in time order
// within each stem, in both passes, against that side input. The
// per-run and per-job evidence (minimum read, maximum input write,
// consumer and producer sets, counts) is combined by run and by job; all
// of it commutes. Then a second per-job step joins each job to its
// consumers' periods. Even so, it would not give wlprof's answer
// exactly. A read's ancestor lookup can cross stems (a renamed parent
// directory), and the graph's out-of-order count and its eviction of
// file state older than --horizon are defined on the one global time
// order. The runs table is small. Provenance is what grows (an audit log
// of a large cluster), and it streams through one machine in time order
// at ingest's rate. So slo stays single-machine until the per-stem
// replay is written as a stage function with the same answer.
//
// # Runners, and CLP on the workers
//
// Prism runs in process and needs nothing installed beyond what wlprof
// needs. It runs the workers in loopback, in this process, so the
// skyline LPs use the host's CLP: the coinor-libclp-dev this binary was
// linked against (make deps-build installs it). The portable runners
// reach a Beam job service at --endpoint. Their workers run a Go worker
// binary in Beam's Go SDK harness container (apache/beam_go_sdk:2.77.0,
// a Debian bookworm image).
//
// The binary is cgo. skyline links COIN-OR CLP through
// github.com/lanl/clp, and every command is one binary. When no worker
// binary is given, the Go SDK (runnerlib.BuildTempWorkerBinary in 2.77)
// cross-compiles the program's source for linux/amd64 with CGO_ENABLED=0,
// always. That build fails here: "build constraints exclude all Go files
// in github.com/lanl/clp". So wlprof-beam hands the SDK a worker binary
// itself (--worker-binary, shards.go). By default that is the running
// program, when it is a linux/amd64 build; on other systems
// --worker-binary is required. Build it on linux/amd64, with cgo on and
// coinor-libclp-dev installed:
//
//	go build -o wlprof-beam ./cmd/wlprof-beam
//
// It is linked dynamically against libClp.so.1, libCoinUtils.so.3,
// LAPACK, BLAS and libgfortran (see ldd). So the workers need CLP's
// runtime libraries, of the same soname, and a glibc no older than the
// build machine's. Build on bookworm for the bookworm-based harness
// image. A harness image with CLP:
//
//	FROM apache/beam_go_sdk:2.77.0
//	RUN apt-get update && apt-get install -y --no-install-recommends coinor-libclp1 && rm -rf /var/lib/apt/lists/*
//
// Push it where the cluster pulls from, and name it to the runner:
//
//	wlprof-beam skyline --runner flink --endpoint localhost:8099 \
//		--environment-type DOCKER --environment-config REGISTRY/wlprof-beam-harness:2.77.0 ...
//
// Per runner:
//
//   - Flink: start Beam's Flink job server for the cluster's Flink
//     version (the apache/beam_flink1.NN_job_server:2.77.0 images, for
//     the versions Beam 2.77 supports), with --flink-master=HOST:8081.
//     Then run with --runner flink --endpoint localhost:8099 and the
//     environment flags above. The Flink task managers need Docker, since
//     they start the harness containers.
//   - Spark: apache/beam_spark3_job_server:2.77.0 with
//     --spark-master-url=spark://HOST:7077, then --runner spark --endpoint
//     localhost:8099 and the same environment flags.
//   - With --environment-type PROCESS, the workers run the binary on the
//     cluster's own machines instead. These need libClp there:
//     apt-get install coinor-libclp1.
//
// classify and elasticity never call CLP, but they are in the same
// binary, so they need the same libraries on the workers.
//
// # Dataflow
//
// The SDK's runners read their options from Go flags of the process (the
// Dataflow runner's --project, --region, --temp_location,
// --staging_location, --num_workers...; gcpopts and jobopts). wlprof-beam
// sets them (runneropts.go): --project, --region, --temp-location and
// --staging-location (default TEMP-LOCATION/staging) by name, and any
// other flag the SDK registered with --beam-opt KEY=VALUE (repeatable; a
// dash may stand for an underscore; an unknown KEY is exit 2, naming the
// close ones). The
// explicit flags win over a --beam-opt of the same flag. --runner
// dataflow without --project, --region and --temp-location, or with a
// path on this machine (its workers cannot see it), is exit 2 before
// anything is listed. Dataflow runs the worker binary in its Go SDK
// container, so the harness image with CLP above goes to
// sdk_container_image:
//
//	wlprof-beam skyline --runner dataflow --project my-project --region europe-west4 \
//		--temp-location gs://my-bucket/wlprof/tmp --beam-opt sdk_container_image=REGISTRY/wlprof-beam-harness:2.77.0 \
//		--beam-opt num_workers=20 --beam-opt worker_machine_type=n2-standard-4 \
//		--format skyline-csv --input 'gs://my-bucket/skylines/part-*.csv' --out gs://my-bucket/wlprof/out
//
// The machine that starts the job needs Application Default Credentials
// (gcloud auth application-default login, or a service account) with
// access to the project and the bucket.
//
// # A job service that does not answer
//
// The SDK dials a job service blocking, for two minutes per dial, and says
// nothing meanwhile. wlprof-beam dials --endpoint itself first, before any
// shard is read: a refused connection fails at once, a silent endpoint
// after --connect-timeout (default 30s), exit 1 with the endpoint and what
// to check; the SDK's own dials are capped to the same timeout. Once the
// job runs, it is the runner's to time out.
//
// # Not there yet
//
//   - On Flink and Spark, local --input and --out paths must be on a file
//     system every worker mounts at the same path (NFS, a cluster file
//     system); gs:// works there too, with credentials on the workers.
//     HDFS and S3 are not wired (Beam's Go SDK has s3://, which would pull
//     the AWS SDK into the module).
//   - Only Prism is tested here. It runs the same pipeline proto the
//     portable runners get, and proto_test.go checks that proto with a
//     Docker environment (every step runs in the image given). Flink,
//     Spark and Dataflow have not been run (no cluster, no Google Cloud
//     from here): the Dataflow flags are tested as far as the SDK's flag
//     values, gs:// through the same code path as memfs://, which the tests
//     run end to end. No harness image with CLP has been built here (no
//     Docker). Nor has the worker-binary path run beyond the SDK's log line
//     "Using specified worker binary".
//
// # Scaling model
//
// The numbers come from this 2-core machine. They are inputs to the
// model, not promises.
//
//   - Parse rate. google2019-usage JSON: 178 MB/s, 0.17 M rows/s on 2
//     cores (BenchmarkGoogleUsageJSON, load 3.5), about
//     1,030 bytes per row. CSV usage: 3.2 M rows/s (BenchmarkIngestCSV).
//   - Prism against the core, and skyline and elasticity on Prism: the
//     measurements (BenchmarkClassifyVsCore and the skyline and elasticity
//     runs, with the changes they led to) are in
//     docs/benchmarks/wlprof-beam.md. In short: Beam on Prism took 2.0 to
//     2.7 times the core's time on the 10,000-tenant × 30-day world, and
//     the same time as the core for skylines, whose LPs dominate.
//   - Bytes per tenant-month. A tenant's series holds 8 bytes per grid
//     slot, its Partial in binary form about 3.6 (one server; more with
//     many servers whose count changes often). At Google's 5-minute
//     windows a 31-day month is 8,928 slots: 71 KB per tenant as a series,
//     about 32 KB as a shuffled Partial. 100,000 tenants (machines of all
//     8 cells with --tenant-key machine) make 7.1 GB of series, 3.2 GB
//     shuffled.
//   - Shuffle. Each shard emits, per tenant it holds, the slots it
//     covers. Shards by time or by machine emit each slot about once, so
//     the shuffle is about the binary Partials' size (3.2 GB above), and
//     the analysed tenants cross once more at that size. Shards that each
//     hold every tenant's whole month emit shards × 32 KB per tenant:
//     shard by time or by machine.
//   - Worker memory. A shard's builder holds its tenants × the slots it
//     covers × 8 bytes. The global combine holds every tenant's Partial
//     and rebuilds its series (3.2 + 7.1 GB above, so that worker needs
//     about 12 GB). This is the limit to lift next: combine summaries,
//     not series.
//   - Time. T ≈ B / (N · c · r) + shuffle / (N · network) + combine. B is
//     the input's uncompressed bytes, N workers of c cores, r ≈ 89 MB/s
//     per core for Google's JSON (measured above; gzip costs about a
//     third more). The 2019 trace is about 2.4 TiB compressed. At an
//     assumed 6× gzip ratio that is about 14 TiB of JSON, or 14 G rows.
//     On 100 workers of 4 cores: about 14·2^40 / (400 · 89·10^6) ≈ 430 s
//     of parsing, about 570 s with gunzip. Then add a 3 GB shuffle and
//     the single-worker combine: about 100,000 FFTs of 8,928 points, a
//     few minutes on one core. That is roughly 15 minutes. On one machine
//     like this one, the same parse takes about 14·2^40 / 178·10^6 ≈ 24
//     hours.
package main
