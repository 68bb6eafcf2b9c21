// Package dataset is the on-disk store every stage meets in: a directory of
// Parquet tables and a manifest. It sits at the bottom of the pipeline;
// ingest and profiler write it, the analysis stages read it, and it imports
// none of them.
//
// # Layout
//
//	DIR/manifest.json              schema version, tables, files, row counts, sources
//	DIR/<table>/part-NNNNNN.parquet one file per table per committed ingest
//	DIR/.lock                      advisory lock held by a writing transaction
//
// Files are written with arrow/go v16 pqarrow, zstd-compressed; strings that
// repeat (tenant, server, job, user, ...) use dictionary pages, times use
// delta encoding, and utilisation (cpu, memory) uses dictionary pages built
// per row group with its own float table (floatdict.go), plain pages when a
// row group has more than 65,536 distinct values. Writer.AppendBatch and
// AppendUsageColumns add many rows column by column.
//
// The two tables of hundreds of millions of values have encoders and
// decoders of their own (internal/pq/file.go writes the pages and builds the footer
// with arrow's metadata builders from the schema pqarrow derives, so
// readers see the same schema and values as in pqarrow's files):
//   - usage: pqarrow's encodings and statistics, one page per column of a
//     row group (usagewrite.go), a row group 256 rows for each tenant
//     seen, from 2^17 to 2^20 rows (usageGroupDone); the four columns
//     classify reads are
//     decoded straight from the pages (usagepages.go, ScanUsageBatches);
//   - series: 32 tenants per row group (SeriesGroupRows), nothing
//     compressed, one page per tenant's values (Tx.WriteSeries,
//     serieswrite.go); the values dictionary-encoded per row group where
//     that is smaller, else PLAIN like the other columns; min/max
//     statistics for the small columns, none for the values. They are
//     read back straight from the pages (seriespages.go; ReadSeries,
//     ScanSeries). The table's page size and codec settings (tables.go)
//     apply to pqarrow's writer, WriterFor(tx, SeriesTable), which tests
//     use as an oracle.
//
// Row groups are decoded in parallel. Anything the own decoders do not
// know (another writer's file, other encodings) goes through pqarrow.
// Only files the manifest lists belong to the dataset.
//
// # Other readers
//
// The files are Parquet 2 with zstd pages (a usage cpu or memory chunk
// that zstd would not shrink by an eighth is stored uncompressed: the
// codec is per chunk in Parquet), dictionary-encoded strings and
// DELTA_BINARY_PACKED time columns; created_by is "wlprof version X (build
// Y)", the form parquet-mr parses, so readers built on it (Spark, Hive,
// Trino) keep the string columns' statistics. DuckDB reads every table
// (a test here reads them with it). Readers with DELTA_BINARY_PACKED
// read them too: pyarrow (pandas), Spark 3.3 and later. Spark before 3.3
// needs spark.sql.parquet.enableVectorizedReader=false, and readers without
// the encoding (Azure Synapse serverless SQL, StarRocks) refuse the time
// columns. Delta stays because PLAIN costs more where the tables are
// largest: on a usage time column of 4 M rows (3,000 servers every 2
// minutes with jitter) PLAIN with zstd takes 2.30 bytes a row against
// delta's 1.76 (+31%), and zstd over the 8-byte values took 5.9 times as
// long as delta-encoding them.
//
// # Transactions
//
// Dataset.Begin stages new files in DIR/.staging-NNNNNN; Tx.Commit moves
// them into the table folders and then writes manifest.json atomically
// (temporary file, fsync, rename, directory fsync). The manifest is the
// commit point: a failed or interrupted transaction leaves the previous
// manifest, and so the previous dataset, untouched, and the next
// transaction removes its leftovers. A dataset whose schema_version this
// build does not know is refused with ErrSchemaVersion.
//
// # Tables and units
//
// Times are UTC instants stored as Arrow timestamp[ms, UTC] (NoTime is
// null); durations are seconds (_s); sizes are bytes (_bytes); utilisation
// is a fraction of one server in [0,1].
//
//	usage       tenant, server, time, cpu, memory (null when unknown)
//	series      tenant, start, step_s, values (list; null = gap), servers,
//	            thin_tail (trailing slots averaged over fewer than half the
//	            servers of the fullest slot; 0 in files written before it)
//	            (rebuilt whole by classify: Tx.Replace)
//	runs        job, run, name, user, queue, status, submit, start, end, source
//	skylines    job, run, offset_s, containers, memory_bytes, vcores
//	provenance  time, op, path, dst, user, job, run, attribution, cmd
//	profruns    job, task, framework, memory_bytes, slots, repetition, input_bytes,
//	            runtime_s, cpu_s, peak_rss_bytes, read_bytes, write_bytes,
//	            spilled_bytes, exit_code, capped, host, config, source,
//	            run_id, start, outcome, read_syscall_bytes, write_syscall_bytes,
//	            spill_peak_bytes, peak_threads, oom_kills, cap_note,
//	            memory_spilled_bytes, spilled_records, output_bytes,
//	            output_records, input_records (the counters elasticity
//	            models read from job history; 0 when the source does not say),
//	            cpu_wait_s (time runnable but waiting for a CPU, sandbox runs),
//	            task_memory_bytes (one task's share of its container: a Spark
//	            executor's memory / its task slots), container_memory_bytes
//	            (what the resource manager allocated for the task's container:
//	            YARN executor memory + overhead rounded up to the minimum
//	            allocation); 0 when the source does not say. Which memory
//	            each stage reads: elasticity memory_bytes (the setting its
//	            models vary, with slots); simulate's history replay
//	            task_memory_bytes (what one task holds); the skyline, plan and
//	            reservation export the skylines table's memory_bytes, which
//	            for Spark is the executors' containers
//	profsamples job, run (= profruns.run_id), offset_s, cpu_s, rss_bytes,
//	            read_bytes, write_bytes, threads, procs, spill_bytes,
//	            cgroup_bytes, phase: the sandbox profiler's time series, one
//	            row per sample of a run's whole process tree; counters are
//	            cumulative from the run's start, the rest are levels
//	rejects     ingest, file, line, col, format, reason, record
//	vms         vmid, subscription, deployment, created, deleted, max_cpu, avg_cpu,
//	            p95_max_cpu, category, cores, memory_gb, source
//	collections collection, user, logical_name, source
//	machine_events machine, time, type (ADD|REMOVE|UPDATE|OUT), rack, cpus,
//	            memory, platform, source
//	task_events time, job, task, machine, type, cpu_request, memory_request,
//	            constraints, source, different_machine
//	task_constraints time, job, task, attribute, relation, value, source
//	machine_attributes time, machine, attribute, value, deleted, source
//	instances   job, stage, task, instance, status, start, end, machine,
//	            seq_no, total_seq_no, cpu_avg, cpu_max, mem_avg, mem_max,
//	            source: task instances of batch jobs (Alibaba 2018
//	            batch_instance), one row per run of an instance; stage is
//	            the stages table's stage of the same job
//
// task_events, task_constraints and machine_attributes are what the
// constraints stage (Thinakaran et al., Phoenix) reads: scheduler events of tasks (Google
// 2011 task_events, 2019 instance_events; type is the event's name, the
// same for both traces), their placement constraints (2011: the
// task_constraints rows; 2019: each event's constraint list, canonical in
// task_events.constraints as name\x1fRELATION\x1fvalue joined by \x1e;
// 2011 also the different-machine flag of each event, different_machine,
// false for 2019 and in files written before the column) and
// the attribute changes of machines. Times outside the trace window (0 and
// 2^63−1 in the traces) are null.
//
// vms is a cloud VM inventory (the Azure vmtable, format azure-vmtable;
// also Alibaba 2018 container_meta, a container's first row, with
// subscription = deployment = its app_du):
// it is what joins VM utilisation readings in usage to a tenant (the
// subscription). cores and memory_gb are kept as the trace writes them,
// numbers in Azure V1 ("8", "1.75") and buckets in V2 (">24", ">64");
// the cpu statistics are fractions of the VM. collections holds one row
// per Google ClusterData2019 collection event that names a user (format
// google2019-collection-events): it joins a collection's usage to its user.
// machine_events is the machines' history (formats google2019-machine-events,
// alibaba2018-machine-meta; prometheus and prometheus-json write the
// Kubernetes nodes' allocatable): machine is the usage table's server id, rack
// the top-of-rack switch (Google switch_id) or Alibaba's failure_domain_1,
// cpus and memory the capacity in the source's units (Google: fractions of
// the largest machine; Alibaba: cores, and mem_size / 100; Kubernetes:
// allocatable cores and bytes), null when absent. Each machine's events are in time order and alternate ADD …
// REMOVE … ADD (UPDATEs only while added; OUT, the state of a machine
// not in the cluster such as Alibaba's IMPORT_INSTALLING, only while not
// added, and it changes nothing): ingest rejects the rest.
//
// A run's skyline rows are the change points of a step function: the
// containers (memory_bytes, vcores) of a row are held from its offset_s,
// seconds from the run's start (for yarn-rm, from its submission or last
// failed attempt, as Hadoop's ResourceEstimator counts), until the next row
// of the same job and run; nothing before the first. Ingested skylines start at offset 0 and
// end with a row of 0 when the run's end is known (see package ingest).
// runs.job is the recurring job's identity (a normalised name), runs.run
// the run's (a YARN application id, a Spark app id); skylines join runs
// on both.
//
// Columns are only ever added; readers match columns by name and give
// missing ones their zero value, so older files keep reading.
package dataset
