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
// # Profiling runs (formats "profruns-csv" and "jhist"; SparkProfRuns)
//
// These fill the profruns table that the elasticity stage reads (issue 7).
// profruns-csv is a header and one run per line (format_profruns.go: the
// seven required columns, the optional ones, and any other column as a
// configuration key). jhist reads a MapReduce job history in Avro-JSON and
// its <jobid>_conf.xml from the same folder into one run per task attempt
// (format_jhist.go; Hadoop's Avro-Binary variant is decoded with the schema
// it carries, avro.go). SparkProfRuns turns
// a Spark event log's task metrics into runs (spark_profruns.go); it is
// not a format of its own but is fed by the spark-eventlog format.
package ingest
