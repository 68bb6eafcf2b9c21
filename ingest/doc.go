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
// delivered in input order; see BenchmarkIngestCSV.
//
// # Utilisation traces (issue 3)
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
// needs its footer). A row is one instance's 5-minute window
// [start_time, end_time); the stored time is start_time, so a sample stands
// for the window that follows it. Times are microseconds from 600 s before
// the trace window (v3 schema document); instant = TraceStart + start_time
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
// largest machine of the cell, not of the machine the row ran on. Rows are
// per instance: several instances of one collection on one machine give
// several rows with the same tenant, server and time, which the series
// builder sums or averages as it documents. Parquet detection needs
// "instance_usage" in the file name; JSON lines are read by a scanner that
// skips the usage histograms (checked against encoding/json).
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
// Rejects in these formats: wrong column counts, unparsable times or
// numbers, NaN, negative or above-100% values, unknown VMs in a join,
// duplicates as above; each with file, line (row number for Parquet),
// column where known, and the reason. Every parser has a fuzz target and a
// benchmark (traces_bench_test.go).
package ingest
