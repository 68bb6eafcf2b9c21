// Package ingest reads raw traces and logs into the dataset: the first stage
// of the pipeline. It depends only on dataset.
//
// Every format is a Reader in the style of bufio.Scanner (Scan, Record,
// Err) registered under a name (see Formats); "auto" picks a format per file
// from its name and first bytes. gzip and zstd are recognised by their magic
// bytes and read transparently; uncompressed files are memory-mapped.
//
// Nothing is lost: a record a format cannot read is a *ParseError with file,
// line, column and reason, kept in the rejects table, and counted in the
// manifest with the source's accepted records. Only I/O errors stop a
// stream. Options.MaxRejects bounds the rejects; past it Run returns
// ErrTooManyRejects and the caller rolls the transaction back, leaving the
// dataset as it was.
//
// # Generic utilisation CSV (format "csv")
//
// A header names the columns tenant, server, timestamp, cpu and optionally
// memory, in any order. Timestamps are RFC 3339 (or the same with a space,
// read in Options.Location when they carry no offset), epoch seconds or
// epoch milliseconds: values of 1e11 and above are milliseconds (1e11 s is
// the year 5138, 1e11 ms is 1973). cpu and memory are fractions of a server
// or percent: declared with Options.CPUUnit or a header suffix
// (_pct/_percent, _frac/_fraction), else detected from the largest valid value (≤ 100) in
// the first 65,536 records and written to the source's notes. Values
// outside [0, 100%], NaN, and malformed rows are rejected.
//
// Big uncompressed inputs are parsed in parallel chunks cut at newlines and
// delivered in input order; see BenchmarkIngestCSV. On ingest, workers parse
// each chunk into columns with their own string ids, and the single consumer
// appends whole chunks (dataset.AppendUsageColumns) and writes the chunk's
// rejects with absolute line numbers (csvbatch.go).
//
// # Utilisation traces
//
// Every trace format below writes the usage table (tenant, server, time,
// cpu and memory as fractions of a server in [0,1], memory null when the
// trace has none). Options.Tenant (--tenant), Options.TenantKey
// (--tenant-key) and Options.TraceStart (--trace-start) apply where the
// format says. Traces with a relative clock (seconds or microseconds from
// the trace start) are placed at Options.TraceStart; the default for
// traces whose real start date is not published (Azure, Alibaba, offset
// series) is the Unix epoch, so offset s is 1970-01-01T00:00:00Z + s.
// Periods and patterns do not depend on it; calendar alignment does.
//
// series-csv: one series per file, two columns, an optional header of two
// names (timestamp,value for NAB; offset_seconds,avg_cpu_percent for the
// Azure single-VM files; a time column named offset, offset_s or
// offset_seconds holds seconds from the trace start). Tenant = server =
// the file name without extension; with --tenant every file is one server
// of that tenant. Calendar times without an offset are read in
// Options.Location (--tz) through the daylight-saving rules: a wall time
// in the skipped spring hour does not exist and is rejected; in the
// repeated autumn hour the first pass is the earlier instant and, once the
// wall time goes backwards inside that hour, the rest of the hour is the
// second pass (the later instant) — see localClock. Two rows at the same
// instant: the later is a reject (NAB repeats 03:00:00 twelve times at a
// spring change). Out-of-order rows are accepted. The unit is --cpu-unit,
// else a header suffix (_percent/_pct, _frac/_fraction), else the values:
// none above 1 is a fraction; mostly (more than half) above 100 is not
// utilisation at all (NAB's NYC taxi passenger counts) and reads as "raw":
// divided by the file's maximum so that 1 is the file's peak, with a note
// in the source, so that pattern classification still runs on it; else
// percent, and values above 100 are rejected pointing at --cpu-unit raw.
// The file is read whole (one series is small).
//
// google2019-usage: Google ClusterData2019 instance_usage, as JSON lines
// (the BigQuery export: INT64 as JSON strings, absent fields omitted; plain,
// gzip or zstd) or Parquet shards (integers as numbers, absent = null; a
// compressed shard is decompressed to a temporary file first, as Parquet
// needs its footer). A row is one instance's measurement window
// [start_time, end_time), typically 5 minutes and shorter where the
// instance started or stopped; the stored time is the start of an aligned
// 5-minute window (k·300 s of the trace clock), so a sample stands for the
// window that follows it. Times are microseconds from 600 s before the
// trace window (v3 schema document); instant = TraceStart + window start
// − 600 s, with TraceStart 2019-05-01T00:00:00-07:00 (midnight US Pacific,
// an assumption about the trace's first day; --trace-start moves it).
// tenant = collection_id (default), machine_id (--tenant-key machine) or
// the collection's user (--tenant-key user). The user is not in
// instance_usage but in collection_events (format
// google2019-collection-events, JSON lines or Parquet, stored in the
// collections table): the join uses the collections rows already in the
// dataset, collection_events inputs of the same command (read first with
// "auto") and --collection-events files; a usage row whose collection is
// not among them is rejected ("unknown collection in join"), and without
// any the ingest stops with an explanation. An event without a user (the
// first 2019 release left the field empty) or naming another user than an
// earlier event of its collection is rejected. server = machine_id; cpu and
// memory are average_usage.cpus and .memory, in NCU/NMU: fractions of the
// largest machine of the cell, not of the machine the row ran on.
//
// Rows are per instance; the usage table gets their sums. A tenant's use of
// a machine is the sum of its instances' use there, and the series builder
// averages the samples of one server in one slot, so the rows of one
// tenant (collection, user or machine, as keyed), one machine and one
// aligned 5-minute window, from every google2019-usage input of the ingest
// (a window's rows may be anywhere in a file and in any shard), become one
// usage row, as Google's analysis colab groups them (FLOOR(start_time /
// 300 s)). Each row adds to each aligned window its [start_time, end_time)
// overlaps its average × overlap / 300 s, so the sum is the time-weighted
// average over the window: a full aligned row its value unchanged, a
// partial row (an instance that started 120 s into the window) its
// average × its duration / 300 s, a row across a boundary a share on each
// side; a row without end_time stands for its start's whole window. The
// colab drops partial rows instead, losing the usage of instances where
// they start or stop; weighting keeps it. cpu is the sum of the shares,
// memory the sum of the shares present (null only when no row in the
// window has one). Each instance row is checked on its own as above (cpu
// or memory outside [0, 1] is a reject; so is a row longer than an hour,
// which no measurement window is); a sum above 1 is stored as 1 and
// counted in the notes, since no machine has more than 1 NCU (NMU) and
// such a sum means rows that overlap. One instance (collection_id and
// instance_index) may have several rows in a window if they do not
// overlap in time (it stopped and started again); a row that overlaps an
// earlier row of the same instance on the same machine is the same time
// measured again (an input given twice, a shard and its compressed copy)
// and is rejected whole as a duplicate; of rows over the same time, the
// one with the smaller cpu is kept. Rows without instance_index cannot be
// told apart and are summed. Alloc sets: with --tenant-key machine only
// top-level rows are summed (alloc_collection_id null or 0), as in the
// colab, which counts a task inside an alloc set through its alloc
// instance's own row; adding both would count the task twice. Its rows
// are accepted and counted in the notes. With the collection and user
// keys each collection keeps its own usage (googleRows.record says why,
// and what the schema does and does not confirm). Summing spans
// one ingest: rows a later ingest adds for windows already in the dataset
// are separate rows, so ingest a trace's shards in one command. The usage
// rows are written after the last input, sorted by tenant, server and
// time (string order), so the table does not depend on the order of rows,
// shards or arguments. A row's share of each window is held in memory (80
// bytes) up to 2^18 of them; beyond that, sorted runs are spilled to one
// temporary file (73 bytes a share) and merged at the end, so memory stays
// bounded (google_sum.go). The notes of the last input give the
// counts. Parquet detection needs "instance_usage" in the file name; JSON
// lines are read by a scanner that skips the usage histograms (checked
// against encoding/json).
//
// google2011-task-usage: ClusterData2011 task_usage (CSV, no header, 19
// or 20 columns; schema document v2.1: start time, end time, job ID, task
// index, machine ID, CPU rate, canonical memory usage, ...). A task is an
// instance as above, its job the collection: rows go through the same
// summing per tenant, machine and aligned 5-minute window (on an
// accumulator of their own, with the 2011 clock: time 600 s is 19:00 EDT on
// 1 May 2011), cpu = CPU rate and memory = canonical memory usage, both
// fractions of the largest machine; tenant = job ID, or machine ID with
// --tenant-key machine. The other columns are not stored.
//
// azure-cpu and azure-vmtable: the Azure Public Dataset V1 (2017) and V2
// (2019) vm_cpu_readings (timestamp,vmid,min,max,avg; seconds from the
// trace start; CPU percent) and vmtable (vmid, subscriptionid,
// deploymentid, vmcreated, vmdeleted, maxcpu, avgcpu, p95maxcpu,
// vmcategory, then core count and memory: numbers in V1, buckets such as
// ">24" in V2). No header (a header line naming the columns is skipped).
// vmtable rows go to the vms table (dataset.VM). Readings are joined with
// every VM known to the ingest: the vms rows already in the dataset, the
// azure-vmtable inputs of the same command (with "auto" they are read
// before the other inputs whatever their names) and --vmtable files (read
// first, and stored too). With VMs known, tenant = the subscription
// (--tenant-key deployment: the deployment) and a reading of a VM not in
// the table is rejected ("unknown VM in join"); with none, or with
// --tenant-key vm, tenant = server = vmid. cpu = avg / 100; min and max are
// not stored; memory is null. A reading repeating its VM's previous
// timestamp is a duplicate.
//
// alibaba2018-machine: Alibaba clusterdata 2018 machine_usage.csv, nine
// columns, no header, mem_gps and mkpi often empty, irregular sampling
// (kept as is). time_stamp is seconds from the trace start; cpu =
// cpu_util_percent / 100, memory = mem_util_percent / 100 (null when
// empty); the other columns are not stored but every line must have nine.
// The trace is one cluster: tenant = "alibaba" or --tenant, server =
// machine_id; --tenant-key machine makes each machine its own tenant. A
// sample repeating its machine's previous time_stamp is a duplicate.
//
// alibaba2018-container-meta and alibaba2018-container-usage: the online
// containers, the trace's primary tenants (cluster-trace-v2018 schema.txt).
// container_meta (container_id, machine_id, time_stamp, app_du, status,
// cpu_request, cpu_limit, mem_size; no header) goes to the vms table, one
// row per container, from its first row: vmid = container_id,
// subscription = deployment = app_du, created = time_stamp, category =
// status, cores = cpu_request / 100; later rows of a container (status
// snapshots) count in the notes, and one naming another app_du is a
// reject. container_usage (container_id, machine_id, time_stamp,
// cpu_util_percent, mem_util_percent, cpi, mem_gps, mpki, net_in, net_out,
// disk_io_percent) goes to usage: server = container_id, cpu and memory
// the percentages / 100 (of the container), tenant = the container's
// app_du from container_meta (rows already in the dataset, or inputs of
// the same command, which auto reads first as it does Azure vmtables); a
// container not in it is rejected ("unknown container in join"). Without
// any container_meta, or with --tenant-key container, tenant = server =
// container_id. A sample repeating its container's previous time_stamp
// is a duplicate.
//
// alibaba2018-batch-instance: batch_instance (instance_name, task_name,
// job_name, task_type, status, start_time, end_time, machine_id, seq_no,
// total_seq_no, cpu_avg, cpu_max, mem_avg, mem_max) goes to the instances
// table (dataset.Instance), one row per run of an instance: its stage is
// the task's, as alibaba2018-batch-task names it, times are as there (0 is
// outside the trace), cpu_avg and cpu_max / 100 cores, mem_avg and mem_max
// / 100 fractions of the largest machine. An end before the start, a
// seq_no above total_seq_no, a fraction where seconds or a count are due
// are rejects.
//
// Every Alibaba 2018 reader skips a first line naming the schema's columns
// (subsets re-exported by the trace's users often have one; auto detects
// a file by it alone) and reads a count or whole seconds written as an
// integral float ("1.0", from a float column of the re-export) as the
// integer; a fraction where a count is due ("2.5") stays a reject.
//
// # Machine histories (formats "google2019-machine-events", "alibaba2018-machine-meta")
//
// Both write the machine_events table (dataset.MachineEvent): machine,
// time, type ADD / REMOVE / UPDATE, rack, capacity, platform, source.
// google2019-machine-events reads ClusterData2019 machine_events as JSON
// lines (INT64 as strings or numbers; type as its number or name) or
// Parquet shards; time is on the trace clock as for google2019-usage (time
// 0, the machines there before the window, lands 600 s before it), rack =
// switch_id, cpus and memory = capacity (fractions of the largest
// machine), platform = platform_id; missing_data_reason is not stored.
// alibaba2018-machine-meta reads machine_meta.csv (seven columns, no
// header): rack = failure_domain_1, cpus = cpu_num, memory = mem_size /
// 100. Its rows are status snapshots, not events: status USING is in
// service (an ADD when the machine was not, else an UPDATE), any other
// status word out of service: a REMOVE when it was in service, else an
// OUT row (dataset.MachineOut), the state of a machine not in the
// cluster, which changes no membership: the published table has rows of
// machines not yet in service (IMPORT_INSTALLING), and they are valid rows,
// not rejects. The published schema does not list the status values; the
// source's notes count every other status word read as out of service.
//
// google2011-machine-events reads ClusterData2011 machine_events (CSV,
// no header; schema document v2.1: time, machine ID, event type 0 ADD, 1
// REMOVE, 2 UPDATE, platform ID, CPUs, memory): time on the trace clock as
// for the 2011 formats (time 0, the machines there before the window,
// lands 600 s before it), cpus and memory the capacity (fractions of the
// largest machine; empty is unknown, above 1 a reject), platform =
// platform ID; the 2011 trace has no rack.
//
// Each machine's history must be consistent, across the inputs of one
// ingest and with the rows already in the dataset: events in time order
// (ties in input order), an ADD or OUT only when the machine is out of the
// cluster, a REMOVE or UPDATE only when it is in (so a REMOVE without an
// ADD is rejected), and a known type (Google's EVENT_TYPE_UNKNOWN 0 is
// not). BigQuery exports are not sorted: sort them by time first. Auto
// detection: a JSON line with machine_id, switch_id and platform_id, or
// (the export leaves null fields out) with time, machine_id and type and
// none of collection_id, instance_index, name; a Parquet file whose name
// contains machine_events; a 7-field CSV line whose time_stamp and
// cpu_num are integers and whose status is a word.
//
// Rejects in these formats: wrong column counts, unparsable times or
// numbers, NaN, negative or above-100% values, unknown VMs in a join,
// duplicates as above; each with file, line (row number for Parquet),
// column where known, and the reason. Every parser has a fuzz target and a
// benchmark (traces_bench_test.go).
//
// # Job runs and skylines (formats "yarn-rm", "spark-eventlog", "skyline-csv")
//
// These formats write two tables: runs (one row per job run) and skylines
// (the resources a run held over time). A skyline is the change points of a
// step function: a sample's containers, memory_bytes and vcores are held
// from its offset_s (seconds from the run's start) until the next sample of
// the same run; before the first sample nothing is held. The builders here
// start every skyline with a sample at offset 0 and close it with a sample
// of 0 when the run ends. A run with no resources at all is the single
// sample (0, 0). Accepted counts rows written: runs plus samples.
// A (job, run) read from two inputs of one ingest is written twice and the
// second input's notes say so; ingesting the same input in two ingests
// duplicates it silently: readers of runs and skylines should keep one copy
// per (job, run).
//
// Job identity (runs.job and skylines.job). yarn-rm uses the recurring id
// Hadoop's ResourceEstimator derives from the application name
// ("pipeline-run": name=(\w+)-(\w+), the first group) when the name has one;
// otherwise, and for the other formats, the normalised name: UUIDs are
// removed anywhere, then every token (a run of letters and digits) that is
// all digits, a compact date or timestamp (20240131, 20240131T1200Z) or a
// hex id of 12 or more characters with a digit is dropped with the separator
// before it; separators left at the ends go too, and a name with nothing
// left stays as it was. "daily_etl_2024-01-31" → "daily_etl", "load
// 7f3e2a10-1b2c-4d5e-8f90-a1b2c3d4e5f6 done" → "load done"; "tpch_q12" stays
// (digits inside a token are identity).
//
// yarn-rm reads ResourceManager logs in log4j layout ("yyyy-MM-dd
// HH:mm:ss,SSS" or "yy/MM/dd HH:mm:ss" prefixes) and in the wrapped layout
// of the ResourceEstimator's sample logs ("N:e,MM/dd/yyyy HH:mm:ss,...",
// whose second comma field is the time). Times without an offset are read in
// Options.Location (--tz). Each ApplicationSummary line (comma-separated
// key=value with '\' escapes, looked up by key since fields vary by Hadoop
// version) is a run: appId, name, user, queue; submitTime (else the last
// Submit Application Request line, else startTime), launchTime (else
// startTime) as start, finishTime as end (epoch ms; 0 is "not set"); status
// FAILED or KILLED when state or finalStatus says so, else the state. The
// RM writes one summary per application: a second ApplicationSummary for
// an appId already summarised in the file is a reject naming the first's
// line, so one run id counts once.
// Skylines follow the estimator's RmSingleLineParser and JobMetaData
// exactly: the leftmost of "Submit Application Request", "AM Allocated
// Container", "AM Released Container", "finalState=FAILED",
// "ApplicationSummary", ", Resource:" decides a line's event; a submit line
// (re)starts the application's record, so a later one wins; a failed attempt
// discards what was recorded and restarts the skyline at the failure; a
// container holds the application's Resource spec (from an attempt or
// container id line with <memory:N, vCores:N>; 1024 MB and 1 vcore when
// there is none) over [start, end) in whole seconds from the submission
// (Java integer division); containers never released are left out; a skyline
// is kept only for an application whose ApplicationSummary has a
// pipeline-run name, under the pipeline id. Lines of the six events that
// lack the field the estimator needs are rejects (the estimator logs and
// skips them); events of applications not submitted in the file, log lines
// without these events and continuation lines are counted in the notes.
// State does not cross files, as in the estimator, which parses one file at
// a time: an application submitted in one rolled RM log and finished in the
// next gets its run from the ApplicationSummary (submit = startTime when the
// summary has no submitTime) but no skyline, and one still running at the
// end of a file is only noted. The same holds when log4j routes
// ApplicationSummary to its own file (rm-appsummary.log): merge it with the
// main log by time (sort -m) to get skylines. The per-container RESOURCE=
// field of Hadoop 3 audit lines is not used: the estimator sizes every
// container like the Resource spec line.
// Two deliberate departures, both on logs the RM does not write: a container
// whose release is timed before its allocation or before the submission (a
// log out of time order) is left out and counted, where the estimator would
// make a negative-time or never-ending interval of it; and an application is
// forgotten after its ApplicationSummary even without a recurring id, where
// the estimator keeps its record for a second summary that does not come.
// TestYarnRMMatchesEstimator checks the rest against a line-by-line
// transcription of the estimator on seeded random logs.
//
// spark-eventlog reads one application's event log: JSON lines, plain or
// compressed with gzip or zstd (any name) or Spark's lz4 and snappy framings
// (lz4-java LZ4BlockOutputStream, snappy-java SnappyOutputStream; lz4
// checksums are not verified); lzf is refused by name as one reject. A
// rolled log is known by its folder's contents, whatever the folder is
// called: Spark's (an appstatus_<app> marker beside events_<N>_<app>[.codec]
// parts) is read from its lowest-numbered part, all parts in index order;
// Databricks' (the current part eventlog beside the parts it rolled over,
// eventlog-YYYY-MM-DD--HH-MM[.gz]) from its oldest part, by time, eventlog
// last. Either is one application; the other parts and the appstatus_
// marker only leave notes (so pass the folder, not a single later part).
// The logs of one YARN application's attempts (same App ID, App Attempt
// ID 1, 2, ...) read in one ingest are one run, not copies: its start is
// the first attempt's, its end and status the last attempt's (YARN starts
// another attempt only after one failed), its skyline every attempt's
// executors; each attempt's task attempts are kept with app_attempt in
// their config. Such runs are written when every input has been read. The run is the ApplicationStart (App
// Name, App ID, User, Timestamp as start; no submit time: Spark does not log
// one) and ApplicationEnd (end, status FINISHED). A log without
// ApplicationEnd (.inprogress, or cut) is a run without an end: status
// RUNNING, runs.end null, a note, and its skyline cut at the last instant
// the log shows (event timestamps, task launch and finish times, stage and
// job submission and completion times). Containers are executors: an
// executor holds a YARN (or Kubernetes) container from ExecutorAdded to
// ExecutorRemoved (or the end) whether or not tasks run in it, and
// containers are what a reservation reserves; task concurrency is what the
// application did with them, not what it held. The driver is counted only
// where it is an executor (local mode); on YARN the AM container is not in
// the event log, so a Spark skyline is one container below the yarn-rm
// skyline of the same application. memory_bytes is each executor's
// container: spark.executor.memory plus spark.executor.memoryOverhead
// (default max(384 MiB, 10%)), pyspark and enabled off-heap memory, on
// YARN rounded up to a multiple of the minimum allocation
// (spark.hadoop.yarn.scheduler.minimum-allocation-mb, else YARN's 1 GiB);
// on Kubernetes without rounding; for the local driver spark.driver.memory
// alone (Spark's default 1g when unset). Memory settings are read as Spark
// reads them (JavaUtils.byteStringAs in MiB: units b, k, m, g, t, p with or
// without a trailing b, any case, a bare number is MiB, less than a MiB
// truncates; 0, unknown, when Spark could not read it either). The task
// attempts (profruns) keep the executor's memory (memory_bytes, the
// setting elasticity models vary), a task's share of it
// (task_memory_bytes: memory / the executor's task slots) and the
// container (container_memory_bytes) apart; vcores is the executor's
// Total Cores. Logs without executor events (Spark < 1.4) use block managers
// instead. Other legitimate events (any SparkListener* name or a Java class
// name, as SQL and streaming events are written) are counted in the notes;
// other "Event" values, invalid or truncated JSON and used events missing a
// field they need are rejects.
//
// skyline-csv reads a header naming job, run, time (or offset_s, timestamp),
// containers and optionally memory_bytes and vcores. Time is seconds from
// the run's start when below 1e9, else a timestamp (RFC 3339, epoch seconds
// or milliseconds): one kind per file, set by its first row. With
// timestamps, offsets are from each run's earliest timestamp and the run's
// start and end are its first and last. Rows are samples as above; NaN,
// infinite or negative amounts, a second row at the same time of a run
// (found once the file is read, so reported after the others), and empty job
// or run are rejects. A file's rows are held until its end (40 bytes a row);
// runs are written sorted by job and run.
//
// # Profiling runs (formats "profruns-csv" and "jhist"; SparkProfRuns)
//
// These fill the profruns table that the elasticity stage reads.
// profruns-csv is a header and one run per line (format_profruns_csv.go: the
// seven required columns, the optional ones, and any other column as a
// configuration key). jhist reads a MapReduce job history in Avro-JSON and
// its <jobid>_conf.xml from the same folder into one run per task attempt
// (format_jhist.go; Hadoop's Avro-Binary variant is decoded with the schema
// it carries, avro.go; both encodings are checked field by field against
// linkedin/goavro in the tests, avro_oracle_test.go; Hadoop 1's text
// history, Meta VERSION="1" and TYPE KEY="VALUE" records, is read by
// jhist_v1.go, its MAP and REDUCE attempts only). SparkProfRuns turns
// a Spark event log's task metrics into runs (spark_profruns.go); it is
// not a format of its own but is fed by the spark-eventlog format: every
// finished task attempt of the log becomes a profruns row (written with the
// run and its skyline, counted in accepted), and a task end it cannot use
// (no Task Info, a finish before its launch, negative spill) is a reject of
// its own, with its line. A task end without "Task Metrics" is valid (Spark
// writes none for Resubmitted, FetchFailed, ExecutorLostFailure and some
// TaskKilled ends): it is a run with its launch-to-finish time, counters 0,
// its outcome (failed, killed, resubmitted: the end that repeats an earlier
// success whose output was lost) and "task_metrics":"none" in its config.
// The events it reads (task ends, stage names, job starts and ends) are no
// longer in the "not used" note.
//
// # HDFS audit log (format "hdfs-audit")
//
// One NameNode audit line per operation: a log4j prefix whose timestamp
// ("2024-01-31 12:00:00,123") is in the NameNode's local time
// (Options.Location, wlprof ingest --tz) unless it carries an offset, then
// tab-separated allowed= ugi= ip= cmd= src= dst= perm= [proto=]
// [callerContext=] [trackingId=]. Rows go to the provenance table:
//
//   - Op: create/append/concat/truncate → write; rename (any options) →
//     rename (Dst is where the data became available); open → read;
//     delete → delete; known metadata commands → meta; unknown commands are
//     kept as other (Cmd holds the command) and counted in the source's
//     notes, not rejected: a line that parses is not a bad record, and new
//     Hadoop versions add commands. allowed=false → denied.
//   - User: the effective user's short name ("alice" of "alice (auth:TOKEN)
//     via hive (auth:KERBEROS)", "hdfs" of "hdfs/host@REALM").
//   - Run and Attribution: the YARN application a callerContext (or
//     trackingId) names (MapReduce attempt/job/container ids, Spark's
//     application id), with "callerContext" or "trackingId". The slo stage
//     attributes the rest.
//
// A line without the audit fields, without a parsable timestamp, or missing
// any of allowed, ugi, ip, cmd, src, dst, perm (a truncated line) is
// rejected with its line number. See FuzzHDFSAudit and
// BenchmarkScanHDFSAudit.
//
// # OpenLineage (format "openlineage")
//
// RunEvents as JSON lines, a JSON array, or pretty-printed objects one
// after another. An event is one record: it adds one runs row (job
// "namespace/name", run = runId; START gives the start, and the submit time
// unless the nominalTime facet gives it; COMPLETE, FAIL and ABORT give the
// end and status FINISHED, FAILED, KILLED; the slo stage merges the rows of
// a run id) and provenance rows with Attribution "lineage": each input read
// at the event time, and each output of the run written at its COMPLETE
// time. A run may declare its datasets on any of its events (Marquez's demo
// declares them on START only): the outputs of all a run's events, across
// the inputs of one ingest, are merged and each written once when the run
// completes (openlineage_outputs.go); a run with no COMPLETE writes nothing
// and the notes count it. A dataset whose
// name is an absolute path is that path, so lineage and audit edges meet;
// other names are prefixed by their namespace. Times without an offset are
// read in Options.Location and counted in the notes. OpenLineage 2's
// DatasetEvent and JobEvent (told apart by their schemaURL; they have no
// run) are records too, kept as provenance rows of op meta, which move no
// data: a DatasetEvent's dataset (Cmd "DatasetEvent"), a JobEvent's inputs
// and outputs, its job's declared lineage (Cmd "JobEvent input" and
// "JobEvent output"). Events without eventTime, a RunEvent without
// run.runId or job.name, a JobEvent without job.name, a DatasetEvent
// without dataset.name, a nameless dataset, or values that are not JSON
// objects are rejected with their line; in a pretty-printed file a
// syntax error rejects the rest of the file as one record.
package ingest
