// The instance usage row and its check, shared by google2019-usage (JSON
// lines, Parquet) and google2011-task-usage (CSV); google_sum.go sums the
// rows per tenant, machine and window.

package ingest

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

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
