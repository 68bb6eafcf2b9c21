// Format "alibaba2018-machine".
//
// alibaba2018-machine: Alibaba clusterdata 2018 machine_usage.csv, nine
// columns, no header, mem_gps and mkpi often empty, irregular sampling
// (kept as is). time_stamp is seconds from the trace start; cpu =
// cpu_util_percent / 100, memory = mem_util_percent / 100 (null when
// empty); the other columns are not stored but every line must have nine.
// The trace is one cluster: tenant = "alibaba" or --tenant, server =
// machine_id; --tenant-key machine makes each machine its own tenant. A
// sample repeating its machine's previous time_stamp is a duplicate.

package ingest

import (
	"context"
	"errors"
	"fmt"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

const alibabaMachineName = "alibaba2018-machine"

// alibabaDefaultTenant is the tenant of every machine when neither --tenant
// nor --tenant-key machine says otherwise: the trace is one cluster.
const alibabaDefaultTenant = "alibaba"

func init() {
	register(&Format{
		Name:        alibabaMachineName,
		Table:       dataset.UsageTable.Name,
		Description: "Alibaba clusterdata 2018 machine_usage.csv: machine_id,time_stamp,cpu_util_percent,mem_util_percent,... (9 columns)",
		Detect: alibabaDetect(alibabaMachineUsageCols, func(f [][]byte) bool {
			_, ok := countOf(f[1])
			return ok && len(f[0]) > 0 && !isNumber(f[0]) && isNumber(f[2]) && (len(f[3]) == 0 || isNumber(f[3]))
		}),
		ingest: func(ctx context.Context, in *Input, s *sink) error {
			key, note := tenantKey(alibabaMachineName, s.opts)
			if note != "" {
				s.notes = append(s.notes, note)
			}
			p := &alibabaMachine{csvRow: csvRow{file: in.Path}, start: traceStartMs(s.opts, unixEpoch), servers: strtab.New()}
			switch {
			case key == "machine":
				s.notes = append(s.notes, "tenant = server = machine_id (--tenant-key machine)")
			case s.opts.Tenant != "":
				p.tenant = s.opts.Tenant
				s.notes = append(s.notes, fmt.Sprintf("tenant %s (--tenant), server = machine_id", p.tenant))
			default:
				p.tenant = alibabaDefaultTenant
				s.notes = append(s.notes, "tenant "+alibabaDefaultTenant+" (the whole cluster; --tenant names it, --tenant-key machine makes each machine a tenant), server = machine_id")
			}
			s.notes = append(s.notes, "time_stamp is seconds from the trace start "+msText(p.start)+
				"; cpu = cpu_util_percent / 100, memory = mem_util_percent / 100; the other columns are not stored")
			return drainAlibaba(ctx, s, in, alibabaMachineUsageCols, p.parse, s.tx.Usage())
		},
	})
}

// alibabaMachine parses machine_usage lines:
//
//	machine_id,time_stamp,cpu_util_percent,mem_util_percent,mem_gps,mkpi,net_in,net_out,disk_io_percent
//
// mem_gps and mkpi are often empty; only the first four columns are read,
// but every line must have nine. An empty mem_util_percent is an unknown
// memory (null), an empty cpu_util_percent a reject.
type alibabaMachine struct {
	csvRow
	start   int64
	tenant  string // "" = the machine
	servers *strtab.Table
	last    lastTime
}

func (p *alibabaMachine) parse(line []byte, lineNo int64, rec *dataset.Usage) *ParseError {
	perr, reject := p.alibabaSplit(line, lineNo, alibabaMachineUsageCols, 0)
	if perr != nil {
		return perr
	}
	f, c := p.fields, p.cols
	ms, ok := traceSecondsMs(f[1], p.start)
	if !ok {
		return reject(c[1], fmt.Errorf("time_stamp %q is not seconds from the trace start", f[1]))
	}
	cpu, mem, perr := alibabaUtil(f, c, 2, reject)
	if perr != nil {
		return perr
	}
	id, server := p.servers.Bytes(f[0])
	if p.last.repeat(id, ms) {
		return reject(c[1], errors.New("duplicate time_stamp for this machine (repeats its previous sample)"))
	}
	tenant := p.tenant
	if tenant == "" {
		tenant = server
	}
	*rec = dataset.Usage{Tenant: tenant, Server: server, TimeMs: ms, CPU: cpu, Memory: mem}
	return nil
}
