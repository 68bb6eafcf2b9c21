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
// a run id) and provenance rows: each input read at the event time, and for
// COMPLETE each output written, with Attribution "lineage". A dataset whose
// name is an absolute path is that path, so lineage and audit edges meet;
// other names are prefixed by their namespace. Times without an offset are
// read in Options.Location and counted in the notes. Events without
// eventTime, run.runId or job.name, with a nameless dataset, or that are not
// JSON objects are rejected with their line; in a pretty-printed file a
// syntax error rejects the rest of the file as one record.
package ingest
