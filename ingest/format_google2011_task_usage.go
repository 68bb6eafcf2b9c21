// Format "google2011-task-usage".
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

package ingest

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

const google2011TaskUsageFormat = "google2011-task-usage"

// google2011TaskUsageCols are task_usage's columns (ClusterData2011
// schema document v2.1): the first 19 are in every file; the 20th,
// sampled CPU usage, was added with the trace's second version.
var google2011TaskUsageCols = []string{"start time", "end time", "job ID", "task index", "machine ID", "CPU rate", "canonical memory usage",
	"assigned memory usage", "unmapped page cache", "total page cache", "maximum memory usage", "disk I/O time", "local disk space usage",
	"maximum CPU rate", "maximum disk IO time", "cycles per instruction", "memory accesses per instruction", "sample portion",
	"aggregation type", "sampled CPU usage"}

func init() {
	register(&Format{
		Name:  google2011TaskUsageFormat,
		Table: dataset.UsageTable.Name,
		Description: "Google ClusterData2011 task_usage CSV (19 or 20 columns, no header): start,end,job,task,machine,cpu rate,canonical memory,...; " +
			"tenant = job; tasks on one machine summed per 5-minute window",
		Detect: func(_ string, head []byte) bool {
			f, _, _, err := splitCSV(firstLine(head), nil, nil, nil)
			if err != nil || len(f) != 19 && len(f) != 20 {
				return false
			}
			for _, i := range []int{0, 1, 2, 3, 4} {
				if _, ok := plainInt(f[i]); !ok {
					return false
				}
			}
			return len(f[5]) == 0 || isNumber(f[5])
		},
		ingest: ingestGoogle2011TaskUsage,
	})
	tenantKeys[google2011TaskUsageFormat] = []string{"job", "machine"}
}

// ingestGoogle2011TaskUsage reads task_usage rows through the summing of
// google2019-usage (googleSums, on its own accumulator with the 2011
// clock): a task is an instance (job ID, task index), the job its
// collection, CPU rate and canonical memory usage its average usage, both
// normalised to the largest machine as in 2019. So a job's tasks on one
// machine are added up per aligned 5-minute window, and a row that
// overlaps another of the same task on the same machine is a duplicate.
func ingestGoogle2011TaskUsage(ctx context.Context, in *Input, s *sink) error {
	key, note := tenantKey(google2011TaskUsageFormat, s.opts)
	if note != "" {
		s.notes = append(s.notes, note)
	}
	if s.run.sums2011 == nil {
		n := s.opts.sumRows
		if n <= 0 {
			n = googleSumRows
		}
		s.run.sums2011 = &googleSums{format: google2011TaskUsageFormat, tenants: strtab.New(), servers: strtab.New(), maxRows: n,
			startMs: traceStartMs(s.opts, google2011TraceStart)}
	}
	sums := s.run.sums2011
	gkey := "collection"
	if key == "machine" {
		gkey = "machine"
	}
	g := &googleRows{file: in.Path, key: gkey, start: sums.startMs, tenants: sums.tenants, servers: sums.servers}
	s.notes = append(s.notes, fmt.Sprintf("time = start of the aligned 5-minute window (microseconds of the trace clock from %s - 600 s); "+
		"tenant = %s, server = machine ID; cpu = CPU rate, memory = canonical memory usage (fractions of the largest machine), "+
		"each row weighted by the part of each window it covers and summed over the tasks of one tenant, machine and window in all inputs of this ingest; "+
		"the other columns are not stored", msText(sums.startMs), map[string]string{"job": "job ID", "machine": "machine ID"}[key]))
	w := sums.input(in.Path, s.index)
	p := &g2011Usage{csvRow: csvRow{file: in.Path}, g: g}
	r := newLineRecords(in, p.parse)
	return drain[googleSample](ctx, s, r, w)
}

type g2011Usage struct {
	csvRow
	g *googleRows
	u googleUsage
}

func (p *g2011Usage) parse(line []byte, lineNo int64, rec *googleSample) *ParseError {
	bad, reject := p.splitAny(line, lineNo)
	if bad != nil {
		return bad
	}
	f, c := p.fields, p.cols
	if len(f) != 19 && len(f) != 20 {
		return reject(0, fmt.Errorf("%d fields, want 19 or 20 (%s)", len(f), strings.Join(google2011TaskUsageCols, ",")))
	}
	var ints [5]int64
	for i := range ints {
		if len(f[i]) == 0 {
			continue // start time and machine ID are required: record says so
		}
		v, err := strconv.ParseInt(string(f[i]), 10, 64)
		if err != nil {
			return reject(c[i], fmt.Errorf("%s %q is not an integer", google2011TaskUsageCols[i], f[i]))
		}
		ints[i] = v
	}
	p.u = googleUsage{start: ints[0], end: ints[1], collection: ints[2], instance: ints[3], machine: ints[4],
		hasStart: len(f[0]) > 0, hasEnd: len(f[1]) > 0, hasColl: len(f[2]) > 0, hasInst: len(f[3]) > 0, hasMach: len(f[4]) > 0}
	for k, col := range [2]int{5, 6} {
		if len(f[col]) == 0 {
			continue
		}
		v, err := parseFloat(f[col])
		if err != nil {
			return reject(c[col], fmt.Errorf("%s %q is not a number", google2011TaskUsageCols[col], f[col]))
		}
		if k == 0 {
			p.u.cpus, p.u.hasCPU = v, true
		} else {
			p.u.memory, p.u.hasMem = v, true
		}
	}
	if err := p.g.record(&p.u, rec); err != nil {
		// record names the 2019 fields; say them as the 2011 schema does.
		msg := strings.NewReplacer("start_time", "start time", "end_time", "end time", "collection_id", "job ID", "machine_id", "machine ID",
			"average_usage.cpus", "CPU rate", "average_usage.memory", "canonical memory usage", "instance_usage", "task_usage").Replace(err.Error())
		return reject(0, fmt.Errorf("%s", msg))
	}
	rec.line = lineNo
	return nil
}
