// Format "alibaba2018-machine-meta". The machine_events table and the rules
// every history obeys are in machine_events.go.
//
// alibaba2018-machine-meta reads machine_meta.csv (seven columns, no
// header): rack = failure_domain_1, cpus = cpu_num, memory = mem_size /
// 100. Its rows are status snapshots, not events: status USING is in
// service (an ADD when the machine was not, else an UPDATE), any other
// status word out of service: a REMOVE when it was in service, else an
// OUT row (dataset.MachineOut), the state of a machine not in the
// cluster, which changes no membership: the published table has rows of
// machines not yet in service (IMPORT_INSTALLING), and they are valid rows,
// not rejects. The published schema does not list the status values; the
// source's notes count every other status word read as out of service.

package ingest

import (
	"context"
	"fmt"
	"math"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

const alibabaMetaFormat = "alibaba2018-machine-meta"

// alibabaInService is the machine_meta status of a machine in service.
// The published schema (cluster-trace-v2018/schema.md) types status as a
// string, "status of a machine", without listing its values; USING is the
// status of nearly every row of the published file.
const alibabaInService = "USING"

func init() {
	register(&Format{
		Name:        alibabaMetaFormat,
		Table:       dataset.MachineEventsTable.Name,
		Description: "Alibaba clusterdata 2018 machine_meta.csv: machine_id,time_stamp,failure_domain_1,failure_domain_2,cpu_num,mem_size,status",
		Detect: alibabaDetect(alibabaMachineMetaCols, func(f [][]byte) bool {
			if len(f[0]) == 0 || isNumber(f[0]) {
				return false
			}
			_, ok1 := countOf(f[1])
			_, ok4 := countOf(f[4])
			return ok1 && ok4 && statusWord(f[6])
		}),
		ingest: func(ctx context.Context, in *Input, s *sink) error {
			ix, err := machinesOf(ctx, s)
			if err != nil {
				return err
			}
			p := &alibabaMeta{csvRow: csvRow{file: in.Path}, start: traceStartMs(s.opts, unixEpoch), ix: ix, strs: strtab.New(), down: statusCounts{}}
			s.notes = append(s.notes, "time_stamp is seconds from the trace start "+msText(p.start)+" (0: before the trace); machine = machine_id, rack = failure_domain_1 "+
				"(failure_domain_2 is not stored), cpus = cpu_num (cores), memory = mem_size / 100; status "+alibabaInService+
				" is in service: ADD when the machine was not, else UPDATE; any other status word (IMPORT_INSTALLING) is out of service: REMOVE when the machine was in service, else OUT (a machine not in service, kept as it is)")
			defer func() {
				if n := p.down.note(); n != "" {
					s.notes = append(s.notes, n)
				}
			}()
			return drainAlibaba(ctx, s, in, alibabaMachineMetaCols, p.parse, s.tx.MachineEvents())
		},
	})
}

type alibabaMeta struct {
	csvRow
	start int64
	ix    *machineIndex
	strs  *strtab.Table
	down  statusCounts
}

func (p *alibabaMeta) parse(line []byte, lineNo int64, rec *dataset.MachineEvent) *ParseError {
	perr, reject := p.alibabaSplit(line, lineNo, alibabaMachineMetaCols, 0)
	if perr != nil {
		return perr
	}
	f, c := p.fields, p.cols
	ts, ok := countOf(f[1])
	if !ok || ts > 1e12 {
		return reject(c[1], fmt.Errorf("time_stamp %q is not whole seconds from the trace start", f[1]))
	}
	cpus, mem := math.NaN(), math.NaN()
	if len(f[4]) > 0 {
		n, ok := countOf(f[4])
		if !ok || n <= 0 || n > 1<<20 {
			return reject(c[4], fmt.Errorf("cpu_num %q is not a number of cores", f[4]))
		}
		cpus = float64(n)
	}
	if len(f[5]) > 0 {
		v, err := parseFloat(f[5])
		if err != nil || !(v >= 0 && v <= 100) {
			return reject(c[5], fmt.Errorf("mem_size %q is not in [0, 100]", f[5]))
		}
		mem = v / 100
	}
	if !statusWord(f[6]) {
		return reject(c[6], fmt.Errorf("status %q is not a status word (such as %s)", f[6], alibabaInService))
	}
	_, machine := p.strs.Bytes(f[0])
	_, status := p.strs.Bytes(f[6])
	st := p.ix.m[machine]
	up := st != nil && st.up
	typ := dataset.MachineRemove
	switch {
	case status == alibabaInService && up:
		typ = dataset.MachineUpdate
	case status == alibabaInService:
		typ = dataset.MachineAdd
	case !up:
		// A machine not in service (IMPORT_INSTALLING before its first
		// USING) is a valid row of the table: its state is kept.
		typ = dataset.MachineOut
	}
	ms := p.start + ts*1000
	if err := p.ix.apply(machine, ms, typ); err != nil {
		return reject(c[1], err)
	}
	if typ == dataset.MachineRemove || typ == dataset.MachineOut {
		p.down[status]++
	}
	_, rack := p.strs.Bytes(f[2])
	*rec = dataset.MachineEvent{Machine: machine, TimeMs: ms, Type: typ, Rack: rack, CPUs: cpus, Memory: mem, Source: alibabaMetaFormat}
	return nil
}
