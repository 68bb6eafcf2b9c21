// Formats "alibaba2018-container-meta" and "alibaba2018-container-usage".
//
// alibaba2018-container-meta and alibaba2018-container-usage: the online
// containers, the trace's primary tenants (cluster-trace-v2018 schema.txt).
// container_meta (container_id, machine_id, time_stamp, app_du, status,
// cpu_request, cpu_limit, mem_size; no header) goes to the vms table, one
// row per container, from its first row: vmid = container_id,
// subscription = deployment = app_du, created = time_stamp, category =
// status, cores = cpu_request / 100; later rows of a container (status
// snapshots) count in the notes, and one naming another app_du is a
// reject. container_usage (container_id, machine_id, time_stamp,
// cpu_util_percent, mem_util_percent, cpi, mem_gps, mpki, net_in, net_out,
// disk_io_percent) goes to usage: server = container_id, cpu and memory
// the percentages / 100 (of the container), tenant = the container's
// app_du from container_meta (rows already in the dataset, or inputs of
// the same command, which auto reads first as it does Azure vmtables); a
// container not in it is rejected ("unknown container in join"). Without
// any container_meta, or with --tenant-key container, tenant = server =
// container_id. A sample repeating its container's previous time_stamp
// is a duplicate.

package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

const (
	alibabaContainerMetaFormat  = "alibaba2018-container-meta"
	alibabaContainerUsageFormat = "alibaba2018-container-usage"
)

// The columns of container_meta and container_usage in the trace's schema
// (alibaba/clusterdata, cluster-trace-v2018 schema.txt).
var (
	alibabaContainerMetaCols  = []string{"container_id", "machine_id", "time_stamp", "app_du", "status", "cpu_request", "cpu_limit", "mem_size"}
	alibabaContainerUsageCols = []string{"container_id", "machine_id", "time_stamp", "cpu_util_percent", "mem_util_percent", "cpi", "mem_gps", "mpki", "net_in", "net_out", "disk_io_percent"}
)

func init() {
	register(&Format{
		Name:  alibabaContainerMetaFormat,
		Table: dataset.VMsTable.Name,
		Description: "Alibaba clusterdata 2018 container_meta.csv: container_id,machine_id,time_stamp,app_du,status,cpu_request,cpu_limit,mem_size " +
			"(online containers; app_du groups them into tenants) → vms",
		Detect: alibabaDetect(alibabaContainerMetaCols, func(f [][]byte) bool {
			_, ok := countOf(f[2])
			return ok && bytes.HasPrefix(f[0], []byte("c_")) && bytes.HasPrefix(f[1], []byte("m_")) && len(f[3]) > 0 && statusWord(f[4])
		}),
		ingest: ingestAlibabaContainerMeta,
	})
	register(&Format{
		Name:  alibabaContainerUsageFormat,
		Table: dataset.UsageTable.Name,
		Description: "Alibaba clusterdata 2018 container_usage.csv: container_id,machine_id,time_stamp,cpu_util_percent,mem_util_percent,... (11 columns); " +
			"tenant = the container's app_du from container_meta",
		Detect: alibabaDetect(alibabaContainerUsageCols, func(f [][]byte) bool {
			return bytes.HasPrefix(f[0], []byte("c_")) && isNumber(f[2]) && (len(f[3]) == 0 || isNumber(f[3]))
		}),
		ingest: ingestAlibabaContainerUsage,
	})
	tenantKeys[alibabaContainerUsageFormat] = []string{"app", "container"}
}

// ingestAlibabaContainerMeta reads container_meta into the vms table (a
// container is a VM-like unit of an application) and the ingest's join
// index. Its rows are status snapshots of each container; the first row of
// a container is its vms row, and later rows of the same app_du only
// count in the notes (their status, request and machine may change: those
// are not stored). A later row naming another app_du is a reject: a
// container belongs to one application.
func ingestAlibabaContainerMeta(ctx context.Context, in *Input, s *sink) error {
	ix, err := vmsOf(ctx, s)
	if err != nil {
		return err
	}
	p := &alibabaContainerMeta{csvRow: csvRow{file: in.Path}, start: traceStartMs(s.opts, unixEpoch), ix: ix, strs: strtab.New(), apps: map[string]string{}}
	s.notes = append(s.notes, "vms rows: vmid = container_id, subscription = deployment = app_du, created = its first time_stamp (seconds from the trace start "+
		msText(p.start)+"), category = its first status, cores = cpu_request / 100; cpu_limit, mem_size (normalised) and machine_id are not stored")
	r := newLineRecords(in, p.parse)
	var header bool
	r.header = headerSkipper(alibabaContainerMetaCols, &header)
	w := s.tx.VMs()
	for r.Scan() {
		rec, perr := r.Record()
		if perr != nil {
			if err := s.reject(perr); err != nil {
				return err
			}
			continue
		}
		s.accepted++
		s.res.Accepted++
		if p.repeat {
			continue
		}
		if err := w.Append(rec); err != nil {
			if err := s.appendErr(err, r.Line()); err != nil {
				return err
			}
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	if header {
		s.notes = append(s.notes, alibabaHeaderNote)
	}
	if p.repeats > 0 {
		s.notes = append(s.notes, fmt.Sprintf("%d later status rows of containers already read (same app_du) accepted without a vms row of their own", p.repeats))
	}
	ix.from = append(ix.from, fmt.Sprintf("%d containers of %s", len(p.apps), in.Path))
	return nil
}

type alibabaContainerMeta struct {
	csvRow
	start   int64
	ix      *vmIndex
	strs    *strtab.Table
	apps    map[string]string // container → app_du, for this input
	repeat  bool              // the last row parsed repeats a known container
	repeats int64
}

func (p *alibabaContainerMeta) parse(line []byte, lineNo int64, rec *dataset.VM) *ParseError {
	perr, reject := p.alibabaSplit(line, lineNo, alibabaContainerMetaCols, 0, 3)
	if perr != nil {
		return perr
	}
	f, c := p.fields, p.cols
	ts, ok := countOf(f[2])
	if !ok || ts > 1e12 {
		return reject(c[2], fmt.Errorf("time_stamp %q is not whole seconds from the trace start", f[2]))
	}
	cores := ""
	if len(f[5]) > 0 {
		v, err := parseFloat(f[5])
		if err != nil || !(v >= 0 && v <= 1e6) {
			return reject(c[5], fmt.Errorf("cpu_request %q is not a number of hundredths of a core", f[5]))
		}
		cores = strconv.FormatFloat(v/100, 'g', -1, 64)
	}
	for _, i := range []int{6, 7} {
		if len(f[i]) > 0 {
			if v, err := parseFloat(f[i]); err != nil || !(v >= 0 && v <= 1e6) {
				return reject(c[i], fmt.Errorf("%s %q is not a non-negative number", alibabaContainerMetaCols[i], f[i]))
			}
		}
	}
	_, container := p.strs.Bytes(f[0])
	_, app := p.strs.Bytes(f[3])
	p.repeat = false
	if known, ok := p.apps[container]; ok {
		if known != app {
			return reject(c[3], fmt.Errorf("container %s is in app_du %s on an earlier row, not %s", container, known, app))
		}
		p.repeat = true
		p.repeats++
		return nil
	}
	if o, ok := p.ix.lookup(f[0]); ok && o.deployment != app {
		return reject(c[3], fmt.Errorf("container %s is in app_du %s in an earlier input, not %s", container, o.deployment, app))
	}
	p.apps[container] = app
	p.ix.add(container, app, app)
	_, status := p.strs.Bytes(f[4])
	*rec = dataset.VM{VMID: container, Subscription: app, Deployment: app, CreatedMs: p.start + ts*1000, DeletedMs: dataset.NoTime,
		MaxCPU: math.NaN(), AvgCPU: math.NaN(), P95MaxCPU: math.NaN(), Category: status, Cores: cores, Source: alibabaContainerMetaFormat}
	return nil
}

// ingestAlibabaContainerUsage reads container_usage into usage: server =
// container_id, tenant = its app_du (joined with container_meta, read
// first by auto, or already in the dataset), or the container itself with
// --tenant-key container or when no container_meta is known.
func ingestAlibabaContainerUsage(ctx context.Context, in *Input, s *sink) error {
	key, note := tenantKey(alibabaContainerUsageFormat, s.opts)
	if note != "" {
		s.notes = append(s.notes, note)
	}
	p := &alibabaContainerUsage{csvRow: csvRow{file: in.Path}, start: traceStartMs(s.opts, unixEpoch), servers: strtab.New()}
	if key == "app" {
		ix, err := vmsOf(ctx, s)
		if err != nil {
			return err
		}
		if ix.len() > 0 {
			p.join = ix
			s.notes = append(s.notes, fmt.Sprintf("joined with container_meta (%s): tenant = app_du, server = container_id", strings.Join(ix.from, ", ")))
		} else {
			s.notes = append(s.notes, "no container_meta: tenant = server = container_id (ingest container_meta first, or with these inputs, to group containers by app_du)")
		}
	} else {
		s.notes = append(s.notes, "tenant = server = container_id (--tenant-key container)")
	}
	s.notes = append(s.notes, "time_stamp is seconds from the trace start "+msText(p.start)+
		"; cpu = cpu_util_percent / 100, memory = mem_util_percent / 100 (of the container); the other columns are not stored")
	return drainAlibaba(ctx, s, in, alibabaContainerUsageCols, p.parse, s.tx.Usage())
}

type alibabaContainerUsage struct {
	csvRow
	start   int64
	join    *vmIndex
	servers *strtab.Table
	last    lastTime
}

func (p *alibabaContainerUsage) parse(line []byte, lineNo int64, rec *dataset.Usage) *ParseError {
	perr, reject := p.alibabaSplit(line, lineNo, alibabaContainerUsageCols, 0)
	if perr != nil {
		return perr
	}
	f, c := p.fields, p.cols
	ms, ok := traceSecondsMs(f[2], p.start)
	if !ok {
		return reject(c[2], fmt.Errorf("time_stamp %q is not seconds from the trace start", f[2]))
	}
	cpu, mem, perr := alibabaUtil(f, c, 3, reject)
	if perr != nil {
		return perr
	}
	id, server := p.servers.Bytes(f[0])
	tenant := server
	if p.join != nil {
		o, ok := p.join.lookup(f[0])
		if !ok {
			return reject(c[0], errors.New("unknown container in join: container_id is not in container_meta"))
		}
		tenant = o.deployment
	}
	if p.last.repeat(id, ms) {
		return reject(c[2], errors.New("duplicate time_stamp for this container (repeats its previous sample)"))
	}
	*rec = dataset.Usage{Tenant: tenant, Server: server, TimeMs: ms, CPU: cpu, Memory: mem}
	return nil
}
