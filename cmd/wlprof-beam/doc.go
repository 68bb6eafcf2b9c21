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
// skyline (skylinepipe.go, on the per-key shape of perkey.go that
// elasticity shares) is wlprof ingest + wlprof skyline, with the
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
// elasticity (elasticitypipe.go, on perkey.go's shape) is wlprof
// ingest + wlprof elasticity, with its flags (--job, --grid, --set,
// --input-bytes, --wall-time):
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
// # Prism as a job server of its own
//
// --runner prism with --endpoint submits to a Prism job server already
// running, as to Flink's or Spark's, and stages the worker binary as
// they do. Prism is in the SDK this module requires:
//
//	go build -o prism github.com/apache/beam/sdks/v2/go/cmd/prism
//	./prism --job_port 8073 --serve_http=false &
//	wlprof-beam classify --endpoint 127.0.0.1:8073 --environment-type LOOPBACK ...
//
// LOOPBACK runs the workers in the launching process, outside the job
// server: every element, coder and DoFn crosses the Fn API over gRPC.
// EXTERNAL runs them in processes of their own, started by a worker
// pool at --environment-config HOST:PORT: the SDK's boot loader
// (github.com/apache/beam/sdks/v2/go/container, built the same way, run
// with --worker_pool; it listens on port 50000) fetches the staged
// binary from the runner and runs it as the harness, as in the SDK's
// Docker image. TestAcrossProcesses (procs_test.go, in make test-beam)
// builds both, starts Prism on 127.0.0.1 and a worker pool of its own,
// and checks that classify and skyline on 1 and 4 shards give, in
// LOOPBACK and in EXTERNAL, the bytes they give in process, which are
// wlprof's. Prism starts one worker (one SDK harness process) per job
// and environment, so the test runs one worker process per job; a
// runner with more workers splits the same bundles among them.
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
//   - Only Prism is tested here: in process, and as a job server of its
//     own with workers in the launching process (LOOPBACK) and in worker
//     processes started through a worker pool (EXTERNAL, the staged
//     binary run by the SDK's boot loader). It runs the same pipeline
//     proto the portable runners get, and proto_test.go checks that proto
//     with a Docker environment (every step runs in the image given).
//     Prism never starts more than one worker per job, so several worker
//     processes sharing one job have not run here. Flink,
//     Spark and Dataflow have not been run (no cluster, no Google Cloud
//     from here): the Dataflow flags are tested as far as the SDK's flag
//     values, gs:// through the same code path as memfs://, which the tests
//     run end to end. No harness image with CLP has been built here (no
//     Docker). Nor has the worker-binary path run beyond the SDK's log line
//     "Using specified worker binary" on those runners (on Prism it is
//     staged and run by the boot loader, above).
//   - A Go harness does not exit when the runner closes its control
//     stream: a worker pool must kill it when the runner asks
//     (StopWorker), as the test's pool does. The SDK's own pool kills the
//     boot loader only, leaving the harness running; the boot loader
//     leaves its copy of the binary in /tmp/bin*.
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
//   - Across processes (TestAcrossProcesses with
//     WLPROF_BEAM_WORLD_TENANTS=150 WLPROF_BEAM_WORLD_DAYS=30: 6.17 M
//     rows, 296 MB of CSV, classify on 1 and 4 shards): in process 2.08
//     and 2.07 s; Prism as a separate job server, LOOPBACK, 2.14 and
//     1.96 s; EXTERNAL, one worker process, 3.77 and 3.18 s. On the
//     default 72,000-row world: 0.11, 0.11 to 0.12, and 1.5 to 2.0 s.
//     So crossing to the workers costs nothing measurable per byte (the
//     elements that cross are Partials, not samples), and a fixed 1.1
//     to 2.2 s per job here: staging the 160 MB cgo binary and starting
//     its harness. For the Google 2019 trace (2.4 TiB gzipped JSON,
//     about 14 TiB) on 100 workers of 4 cores, the model above is
//     unchanged: about 570 s of parsing with gunzip, a 3 GB shuffle and
//     the combine, roughly 15 minutes, plus each worker fetching the
//     160 MB binary once (16 GB in all, about 1.3 s per worker at
//     1 Gbit/s) and the runner's own worker start-up, which Prism does
//     not measure (Dataflow boots VMs: minutes).
package main
