package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

const googleUsageFormat = "google2019-usage"

// googleTraceStart is where we put offset 600 s of a ClusterData2019
// clock. The v3 schema document counts timestamps in microseconds from 600
// seconds before the start of the trace window, which covers May 2019; we
// take the window to start at midnight US Pacific (PDT) on 1 May 2019. The
// document's exact start instant is an assumption here: --trace-start
// moves it, and only instants (not periods or patterns) depend on it.
var googleTraceStart = time.Date(2019, 5, 1, 0, 0, 0, 0, time.FixedZone("PDT", -7*3600))

// googleOffsetUs is the 600 s by which ClusterData timestamps precede the
// trace window.
const googleOffsetUs = 600 * 1e6

// googleWindowUs is the 5-minute measurement window of instance_usage. The
// usage table's time is the start of an aligned window [k·300 s,
// (k+1)·300 s) of the trace clock, as Google's analysis colab groups rows
// (FLOOR(start_time / 300 s)); googleOffsetUs is a multiple of it, so the
// windows are aligned on the trace window's start too.
const googleWindowUs = 300 * 1e6

// googleMaxSpanUs bounds end_time − start_time. The v3 schema's windows are
// at most 300 s ("typically 300s, but may be shorter"); a longer row is
// split over the windows it covers, and one longer than an hour is not a
// measurement window at all: it is rejected rather than spread (which
// would also let one bad row add millions of rows to sum).
const googleMaxSpanUs = 3600 * 1e6

// googleLastUs is the latest start_time read: 2^63-1 marks "after the
// trace window", and windows past it would overflow.
const googleLastUs = math.MaxInt64 - googleMaxSpanUs - 2*googleWindowUs

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

var parquetMagic = []byte("PAR1")

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

// googleUsage is the part of an instance_usage row wlprof reads, from JSON
// or Parquet. A missing (absent or null) field has its has flag false.
type googleUsage struct {
	start, end, collection, machine    int64
	hasStart, hasEnd, hasColl, hasMach bool
	instance, alloc                    int64
	hasInst, hasAlloc                  bool
	cpus, memory                       float64
	hasCPU, hasMem                     bool
}

// googleSample is one accepted instance row: the usage record it would be
// on its own (at the start of the first window it covers, unweighted), and
// what summing needs (googleSums).
type googleSample struct {
	dataset.Usage
	tenant, server int32 // ids of Usage.Tenant and Usage.Server in the run's tables
	// start is start_time (µs of the trace clock); dur is end_time −
	// start_time, or 0 when end_time is absent (the row then stands for
	// the whole aligned window that holds start_time).
	start int64
	dur   uint32
	// collection and instance identify the instance when ident is true
	// (both fields present), so that a second row of it on the same
	// machine over the same time is a duplicate, not another instance.
	collection, instance int64
	ident                bool
	// viaAlloc marks a row inside an alloc set under --tenant-key machine:
	// accepted, but not summed (googleSums counts it in the notes).
	viaAlloc bool
	line     int64 // line, or row number of a Parquet shard
}

// googleRows turns instance_usage rows into usage records.
type googleRows struct {
	file    string
	key     string
	start   int64
	tenants *strtab.Table // shared by the inputs of a Run (googleSums)
	servers *strtab.Table
	num     []byte
	users   map[int64]string // collection → user, for the user key
}

// record validates u and fills rec. Each instance row is checked on its
// own, as it comes: cpu and memory within [0, 1] NCU/NMU, a window of at
// most an hour.
//
// Alloc sets: a task may run inside an alloc instance (alloc_collection_id
// set and not 0, the schema's NO_ALLOC_COLLECTION), and the alloc instance
// has usage rows of its own. Google's analysis colab sums a machine's
// usage over top-level rows only (alloc_collection_id null or 0), which
// is right only if an alloc instance's usage includes that of the tasks
// inside it; the v3 schema document (a PDF we could not read as text for
// this) is where that would be said, and the proto does not say it. We
// follow the colab where it matters: with --tenant-key machine the tenant
// is the machine, and adding the tasks to their alloc instance would count
// their usage twice, so rows inside an alloc set are accepted but not
// summed (viaAlloc; counted in the notes). With the collection and user
// keys each collection stays its own tenant, as before: a task's usage is
// its collection's, whether or not an alloc instance also accounts for it.
func (g *googleRows) record(u *googleUsage, rec *googleSample) error {
	switch {
	case !u.hasStart:
		return errors.New("no start_time")
	case u.start <= 0 || u.start > googleLastUs:
		return fmt.Errorf("start_time %d is outside the trace window (0 and 2^63-1 mark before/after it)", u.start)
	case u.hasEnd && u.end <= u.start:
		return fmt.Errorf("end_time %d is not after start_time %d", u.end, u.start)
	case u.hasEnd && u.end-u.start > googleMaxSpanUs:
		return fmt.Errorf("end_time %d is %d s after start_time %d: instance_usage windows are at most 300 s, and more than an hour is not one",
			u.end, (u.end-u.start)/1e6, u.start)
	case !u.hasMach:
		return errors.New("no machine_id")
	case g.key != "machine" && !u.hasColl:
		return errors.New("no collection_id")
	case !u.hasCPU:
		return errors.New("no average_usage.cpus")
	case math.IsNaN(u.cpus) || u.cpus < 0 || u.cpus > 1:
		return fmt.Errorf("average_usage.cpus %g is outside [0, 1] NCU", u.cpus)
	case u.hasMem && (math.IsNaN(u.memory) || u.memory < 0 || u.memory > 1):
		return fmt.Errorf("average_usage.memory %g is outside [0, 1] NMU", u.memory)
	}
	if g.key == "machine" && u.hasAlloc && u.alloc != 0 {
		*rec = googleSample{viaAlloc: true}
		return nil
	}
	g.num = strconv.AppendInt(g.num[:0], u.machine, 10)
	sid, server := g.servers.Bytes(g.num)
	var tid int32
	var tenant string
	switch g.key {
	case "collection":
		g.num = strconv.AppendInt(g.num[:0], u.collection, 10)
		tid, tenant = g.tenants.Bytes(g.num)
	case "user":
		user, ok := g.users[u.collection]
		if !ok {
			return fmt.Errorf("unknown collection in join: collection_id %d is not in the collection_events read", u.collection)
		}
		tid, tenant = g.tenants.String(user), user
	default: // machine
		tid, tenant = g.tenants.Bytes(g.num)
	}
	mem := math.NaN()
	if u.hasMem {
		mem = u.memory
	}
	var dur uint32
	if u.hasEnd {
		dur = uint32(u.end - u.start) // in (0, googleMaxSpanUs], which fits
	}
	*rec = googleSample{Usage: dataset.Usage{Tenant: tenant, Server: server, TimeMs: googleWindowMs(g.start, u.start), CPU: u.cpus, Memory: mem},
		tenant: tid, server: sid, start: u.start, dur: dur, collection: u.collection, instance: u.instance, ident: u.hasColl && u.hasInst}
	return nil
}

// googleWindowMs is the usage time of the aligned window that holds us (a
// positive instant of the trace clock): its start, in ms from the epoch
// when the trace window starts at startMs. Window starts and the offset
// are whole seconds, so the division is exact.
func googleWindowMs(startMs, us int64) int64 {
	return startMs + (us-us%googleWindowUs-googleOffsetUs)/1000
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
