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
// delta encoding. The series table is the exception in layout: 64 tenants
// per row group, 64 KB pages and snappy-compressed values, so that
// classify writes and reads 216 M values quickly (ReadSeries and
// ScanUsageBatches decode row groups in parallel). Any Parquet reader
// (DuckDB, pandas/pyarrow, Spark) reads them as they are; only files the
// manifest lists belong to the dataset.
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
//	series      tenant, start, step_s, values (list; null = gap), servers
//	            (rebuilt whole by classify: Tx.Replace)
//	runs        job, run, name, user, queue, status, submit, start, end, source
//	skylines    job, run, offset_s, containers, memory_bytes, vcores
//	provenance  time, op, path, dst, user, job, run, attribution
//	profruns    job, task, framework, memory_bytes, slots, repetition, input_bytes,
//	            runtime_s, cpu_s, peak_rss_bytes, read_bytes, write_bytes,
//	            spilled_bytes, exit_code, capped, host, config, source
//	rejects     ingest, file, line, col, format, reason, record
//
// Columns are only ever added; readers match columns by name and give
// missing ones their zero value, so older files keep reading.
package dataset
