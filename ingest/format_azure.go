// Formats "azure-cpu" and "azure-vmtable".
//
// azure-cpu and azure-vmtable: the Azure Public Dataset V1 (2017) and V2
// (2019) vm_cpu_readings (timestamp,vmid,min,max,avg; seconds from the
// trace start; CPU percent) and vmtable (vmid, subscriptionid,
// deploymentid, vmcreated, vmdeleted, maxcpu, avgcpu, p95maxcpu,
// vmcategory, then core count and memory: numbers in V1, buckets such as
// ">24" in V2). No header (a header line naming the columns is skipped).
// vmtable rows go to the vms table (dataset.VM). Readings are joined with
// every VM known to the ingest: the vms rows already in the dataset, the
// azure-vmtable inputs of the same command (with "auto" they are read
// before the other inputs whatever their names) and --vmtable files (read
// first, and stored too). With VMs known, tenant = the subscription
// (--tenant-key deployment: the deployment) and a reading of a VM not in
// the table is rejected ("unknown VM in join"); with none, or with
// --tenant-key vm, tenant = server = vmid. cpu = avg / 100; min and max are
// not stored; memory is null. A reading repeating its VM's previous
// timestamp is a duplicate.

package ingest

import (
	"bytes"
	"context"

	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

const (
	azureCPUFormat     = "azure-cpu"
	azureVMTableFormat = "azure-vmtable"
)

func init() {
	register(&Format{
		Name:        azureCPUFormat,
		Table:       dataset.UsageTable.Name,
		Description: "Azure Public Dataset V1/V2 vm_cpu_readings: timestamp,vmid,min,max,avg (joined with a vmtable when known)",
		Detect: fieldsDetect(5, func(f [][]byte) bool {
			if strings.EqualFold(string(f[0]), "timestamp") && strings.EqualFold(string(f[1]), "vmid") {
				return true
			}
			_, ok := plainInt(f[0])
			return ok && len(f[1]) > 0 && !isNumber(f[1]) && isNumber(f[2]) && isNumber(f[3]) && isNumber(f[4])
		}),
		ingest: ingestAzureCPU,
	})
	register(&Format{
		Name:        azureVMTableFormat,
		Table:       dataset.VMsTable.Name,
		Description: "Azure Public Dataset V1/V2 vmtable: vmid,subscriptionid,deploymentid,vmcreated,vmdeleted,maxcpu,avgcpu,p95maxcpu,...",
		Detect: fieldsDetect(11, func(f [][]byte) bool {
			if strings.EqualFold(string(f[0]), "vmid") && strings.EqualFold(string(f[1]), "subscriptionid") {
				return true
			}
			_, ok3 := plainInt(f[3])
			_, ok4 := plainInt(f[4])
			return ok3 && ok4 && len(f[0]) > 0 && !isNumber(f[0]) && isNumber(f[5]) && isNumber(f[6]) && isNumber(f[7])
		}),
		ingest: ingestAzureVMTable,
	})
}

// Published copies of the tables have no header; a first line naming the
// columns is skipped.
func azureCPUHeader(line []byte) bool {
	return bytes.HasPrefix(bytes.ToLower(line), []byte("timestamp,"))
}

func azureVMTableHeader(line []byte) bool {
	return bytes.HasPrefix(bytes.ToLower(line), []byte("vmid,"))
}

// ingestAzureVMTable reads a vmtable into the vms table and the run's index.
func ingestAzureVMTable(ctx context.Context, in *Input, s *sink) error {
	ix, err := vmsOf(ctx, s)
	if err != nil {
		return err
	}
	start := traceStartMs(s.opts, unixEpoch)
	var p azureVMTable
	p.file, p.start = in.Path, start
	r := newLineRecords(in, p.parse)
	r.header = azureVMTableHeader
	before := s.accepted
	// A VM joins the index once its row is written.
	w := vmsIndexed{s.tx.VMs(), ix}
	if err := drain[dataset.VM](ctx, s, r, w); err != nil {
		return err
	}
	ix.from = append(ix.from, fmt.Sprintf("%d VMs of %s", s.accepted-before, in.Path))
	s.notes = append(s.notes, "vmcreated/vmdeleted are seconds from the trace start "+
		msText(start)+"; cpu statistics stored as fractions; core and memory buckets kept as written")
	return nil
}

// azureVMTable parses vmtable lines (V1 numbers or V2 buckets alike).
type azureVMTable struct {
	csvRow
	start int64
	strs  *strtab.Table
}

func (p *azureVMTable) parse(line []byte, lineNo int64, rec *dataset.VM) *ParseError {
	bad, reject := p.split(line, lineNo, 11, "vmid,subscriptionid,deploymentid,vmcreated,vmdeleted,maxcpu,avgcpu,p95maxcpu,vmcategory,vmcorecount,vmmemory")
	if bad != nil {
		return bad
	}
	f, c := p.fields, p.cols
	for i, name := range []string{"vmid", "subscriptionid", "deploymentid"} {
		if len(f[i]) == 0 {
			return reject(c[i], fmt.Errorf("empty %s", name))
		}
	}
	var times [2]int64
	for i := 0; i < 2; i++ {
		var ok bool
		if times[i], ok = traceSecondsMs(f[3+i], p.start); !ok {
			return reject(c[3+i], fmt.Errorf("%s %q is not seconds from the trace start", [2]string{"vmcreated", "vmdeleted"}[i], f[3+i]))
		}
	}
	if times[1] < times[0] {
		return reject(c[4], errors.New("vmdeleted is before vmcreated"))
	}
	var cpu [3]float64
	for i, name := range []string{"maxcpu", "avgcpu", "p95maxcpu"} {
		v, perr := percentField(f[5+i], name)
		if perr != nil {
			return reject(c[5+i], perr)
		}
		cpu[i] = v
	}
	if p.strs == nil {
		p.strs = strtab.New()
	}
	intern := func(b []byte) string { _, s := p.strs.Bytes(b); return s }
	*rec = dataset.VM{VMID: string(f[0]), Subscription: intern(f[1]), Deployment: intern(f[2]),
		CreatedMs: times[0], DeletedMs: times[1], MaxCPU: cpu[0], AvgCPU: cpu[1], P95MaxCPU: cpu[2],
		Category: intern(f[8]), Cores: intern(f[9]), MemoryGB: intern(f[10]), Source: azureVMTableFormat}
	return nil
}

// ingestAzureCPU reads vm_cpu_readings into usage.
func ingestAzureCPU(ctx context.Context, in *Input, s *sink) error {
	key, note := tenantKey(azureCPUFormat, s.opts)
	if note != "" {
		s.notes = append(s.notes, note)
	}
	p := &azureCPU{csvRow: csvRow{file: in.Path}, start: traceStartMs(s.opts, unixEpoch), key: key,
		servers: strtab.New(), tenants: strtab.New()}
	if key != "vm" {
		ix, err := vmsOf(ctx, s)
		if err != nil {
			return err
		}
		if ix.len() > 0 {
			p.join = ix
			s.notes = append(s.notes, fmt.Sprintf("joined with the vm table (%s): tenant = %s, server = vmid",
				strings.Join(ix.from, ", "), key))
		}
	}
	if p.join == nil {
		p.key = "vm"
		s.notes = append(s.notes, "no vm table: tenant = server = vmid (give --vmtable FILE, or ingest the vmtable first, to group VMs by subscription)")
	}
	s.notes = append(s.notes, "timestamps are seconds from the trace start "+msText(p.start)+"; cpu = avg percent / 100; min and max are not stored")
	r := newLineRecords(in, p.parse)
	r.header = azureCPUHeader
	return drain[dataset.Usage](ctx, s, r, s.tx.Usage())
}

type azureCPU struct {
	csvRow
	start   int64
	key     string
	join    *vmIndex
	servers *strtab.Table
	tenants *strtab.Table
	last    lastTime
}

func (p *azureCPU) parse(line []byte, lineNo int64, rec *dataset.Usage) *ParseError {
	bad, reject := p.split(line, lineNo, 5, "timestamp,vmid,min,max,avg")
	if bad != nil {
		return bad
	}
	f, c := p.fields, p.cols
	ms, ok := traceSecondsMs(f[0], p.start)
	if !ok {
		return reject(c[0], fmt.Errorf("timestamp %q is not seconds from the trace start", f[0]))
	}
	if len(f[1]) == 0 {
		return reject(c[1], errors.New("empty vmid"))
	}
	cpu, perr := percentField(f[4], "avg cpu")
	if perr != nil {
		return reject(c[4], perr)
	}
	id, server := p.servers.Bytes(f[1])
	tenant := server
	if p.join != nil {
		o, ok := p.join.lookup(f[1])
		if !ok {
			return reject(c[1], errors.New("unknown VM in join: vmid is not in the vm table"))
		}
		tenant = o.subscription
		if p.key == "deployment" {
			tenant = o.deployment
		}
	}
	if p.last.repeat(id, ms) {
		return reject(c[0], errors.New("duplicate timestamp for this VM (repeats its previous reading)"))
	}
	*rec = dataset.Usage{Tenant: tenant, Server: server, TimeMs: ms, CPU: cpu, Memory: math.NaN()}
	return nil
}
