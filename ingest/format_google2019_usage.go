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
		Detect: func(name string, head []byte) bool {
			if bytes.HasPrefix(head, parquetMagic) {
				return strings.Contains(name, "instance_usage")
			}
			line := firstLine(head)
			// average_usage may be absent (omitted) in a row; instance_index
			// with start_time (not instance_events' time) also tells it.
			return bytes.HasPrefix(bytes.TrimSpace(line), []byte("{")) && bytes.Contains(line, []byte(`"start_time"`)) &&
				(bytes.Contains(line, []byte(`"average_usage"`)) || bytes.Contains(line, []byte(`"instance_index"`)))
		},
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
