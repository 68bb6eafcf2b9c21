// Format "google2019-usage", and its join with
// "google2019-collection-events".
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

package ingest

import (
	"bytes"
	"context"

	"fmt"

	"strings"

	"github.com/wlprof/wlprof/dataset"
)

const googleUsageFormat = "google2019-usage"

func init() {
	register(&Format{
		Name:        googleUsageFormat,
		Table:       dataset.UsageTable.Name,
		Description: "Google ClusterData2019 instance_usage: JSON lines (BigQuery export) or Parquet shards; tenant = collection; instances on one machine summed per window",
		// average_usage may be absent (omitted) in a row; instance_index
		// with start_time (not instance_events' time) also tells it.
		Detect: google2019Detect("instance_usage", func(has func(string) bool) bool {
			return has("start_time") && (has("average_usage") || has("instance_index"))
		}),
		ingest: ingestGoogleUsage,
	})
}

func ingestGoogleUsage(ctx context.Context, in *Input, s *sink) error {
	key, note := tenantKey(googleUsageFormat, s.opts)
	if note != "" {
		s.notes = append(s.notes, note)
	}
	sums := s.run.googleSums(s.opts)
	g := &googleRows{file: in.Path, key: key, start: traceStartMs(s.opts, googleTraceStart),
		tenants: sums.tenants, servers: sums.servers}
	if key == "user" {
		ix, err := collectionsOf(ctx, s)
		if err != nil {
			return err
		}
		if len(ix.users) == 0 {
			return fmt.Errorf("%s: --tenant-key user: instance_usage rows carry no user; the user of a collection is in "+
				"collection_events: give --collection-events FILE, or ingest them first (format %s)", in.Path, googleCollectionsFormat)
		}
		g.users = ix.users
		s.notes = append(s.notes, fmt.Sprintf("joined with collection_events (%s): tenant = user", strings.Join(ix.from, ", ")))
	}
	alloc := ""
	if key == "machine" {
		alloc = "; rows inside an alloc set (alloc_collection_id set) are left to their alloc instance (top-level instances only, as in Google's analysis colab)"
	}
	s.notes = append(s.notes, fmt.Sprintf("time = start of the aligned 5-minute window (a multiple of 300 s of the trace clock, "+
		"microseconds from %s - 600 s); tenant = %s, server = machine_id; cpu and memory are average_usage in NCU "+
		"(fractions of the largest machine), each row weighted by the part of each window its [start_time, end_time) covers "+
		"(partial windows are kept, not dropped), summed over the instance rows of one tenant, machine and window "+
		"in all inputs of this ingest%s",
		msText(g.start), map[string]string{"collection": "collection_id", "machine": "machine_id", "user": "the collection's user"}[key], alloc))
	if len(sums.inputs) == 0 {
		if n := earlierGoogleUsage(s.tx.Dataset()); n > 0 {
			s.notes = append(s.notes, fmt.Sprintf("warning: the dataset already holds usage from %d google2019-usage input(s) of earlier ingests; "+
				"instance rows are summed per machine and window within one ingest only, so a machine's rows for one window split "+
				"between ingests are not added up (the series builder averages them): ingest every shard of a trace in one "+
				"command (wlprof ingest google2019-usage DIR, or shard-*.json.gz)", n))
		}
	}
	w := sums.input(in.Path, s.index)
	if bytes.HasPrefix(in.Head(4), parquetMagic) {
		return ingestGoogleParquet(ctx, in, s, g, w)
	}
	r := newLineRecords(in, g.parseJSON)
	return drain[googleSample](ctx, s, r, w)
}

// earlierGoogleUsage counts the google2019-usage inputs of earlier
// ingests that added usage rows: their rows cannot be summed with this
// ingest's (a shard split over two ingests would be averaged per window
// instead of added), which the ingest says.
func earlierGoogleUsage(ds *dataset.Dataset) int {
	if ds == nil {
		return 0
	}
	n := 0
	for _, src := range ds.Manifest().Sources {
		if src.Format == googleUsageFormat && src.Accepted > 0 {
			n++
		}
	}
	return n
}

// ingestGoogleParquet reads a shard.
func ingestGoogleParquet(ctx context.Context, in *Input, s *sink, g *googleRows, w appender[googleSample]) error {
	return drainParquet(ctx, s, in, func() (parquetReader[googleSample], error) {
		r, err := newGoogleParquet(ctx, in, g)
		if err != nil {
			return nil, err
		}
		return r, nil
	}, w)
}

func (g *googleRows) parseJSON(line []byte, lineNo int64, rec *googleSample) *ParseError {
	var u googleUsage
	if err := scanGoogleJSON(line, &u); err != nil {
		return &ParseError{File: g.file, Line: lineNo, Err: fmt.Errorf("not an instance_usage JSON object: %v", err), Record: recordText(line)}
	}
	if err := g.record(&u, rec); err != nil {
		return &ParseError{File: g.file, Line: lineNo, Err: err, Record: recordText(line)}
	}
	rec.line = lineNo
	return nil
}
