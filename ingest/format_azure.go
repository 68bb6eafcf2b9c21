package ingest

import (
	"bytes"
	"context"
	"encoding/base64"
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
		Detect: func(_ string, head []byte) bool {
			f, _, _, err := splitCSV(firstLine(head), nil, nil, nil)
			if err != nil || len(f) != 5 {
				return false
			}
			if strings.EqualFold(string(f[0]), "timestamp") && strings.EqualFold(string(f[1]), "vmid") {
				return true
			}
			_, ok := plainInt(f[0])
			return ok && len(f[1]) > 0 && !isNumber(f[1]) && isNumber(f[2]) && isNumber(f[3]) && isNumber(f[4])
		},
		ingest: ingestAzureCPU,
	})
	register(&Format{
		Name:        azureVMTableFormat,
		Table:       dataset.VMsTable.Name,
		Description: "Azure Public Dataset V1/V2 vmtable: vmid,subscriptionid,deploymentid,vmcreated,vmdeleted,maxcpu,avgcpu,p95maxcpu,...",
		Detect: func(_ string, head []byte) bool {
			f, _, _, err := splitCSV(firstLine(head), nil, nil, nil)
			if err != nil || len(f) != 11 {
				return false
			}
			if strings.EqualFold(string(f[0]), "vmid") && strings.EqualFold(string(f[1]), "subscriptionid") {
				return true
			}
			_, ok3 := plainInt(f[3])
			_, ok4 := plainInt(f[4])
			return ok3 && ok4 && len(f[0]) > 0 && !isNumber(f[0]) && isNumber(f[5]) && isNumber(f[6]) && isNumber(f[7])
		},
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

func isNumber(b []byte) bool {
	_, err := parseFloat(b)
	return err == nil
}

// vmOwner is who a VM belongs to.
type vmOwner struct{ subscription, deployment string }

// vmIndex is the VM table azure-cpu joins with: the vms rows committed in
// the dataset before this ingest, then every vmtable input of this ingest.
//
// Azure vmids are 48 random bytes in base64 (64 characters); keyed by the
// decoded bytes, and pointing at a deduplicated owner, the 2.7 million VMs
// of the V2 table take about half the memory of a map of strings to
// owners. Other ids (hand-made tables) go to a plain map. Both are exact.
type vmIndex struct {
	b64    map[[48]byte]uint32
	other  map[string]uint32
	owners []vmOwner
	ids    map[vmOwner]uint32
	strs   *strtab.Table // interns subscriptions and deployments
	from   []string      // where the rows came from, for the notes
}

func newVMIndex() *vmIndex {
	return &vmIndex{b64: map[[48]byte]uint32{}, other: map[string]uint32{}, ids: map[vmOwner]uint32{}, strs: strtab.New()}
}

// vmKey decodes a 64-character base64 vmid.
func vmKey(vm []byte) (k [48]byte, ok bool) {
	if len(vm) != 64 {
		return k, false
	}
	n, err := base64.StdEncoding.Decode(k[:], vm)
	return k, err == nil && n == 48
}

func (ix *vmIndex) len() int { return len(ix.b64) + len(ix.other) }

// lookup returns the owner of a vmid.
func (ix *vmIndex) lookup(vm []byte) (vmOwner, bool) {
	var id uint32
	var ok bool
	if k, b64 := vmKey(vm); b64 {
		id, ok = ix.b64[k]
	} else {
		id, ok = ix.other[string(vm)]
	}
	if !ok {
		return vmOwner{}, false
	}
	return ix.owners[id], true
}

// vmsOf returns the run's VM index, loading the committed vms table first.
func vmsOf(ctx context.Context, s *sink) (*vmIndex, error) {
	if s.run.vms != nil {
		return s.run.vms, nil
	}
	ix := newVMIndex()
	ds := s.tx.Dataset()
	if n := ds.Rows(dataset.VMsTable.Name); n > 0 {
		err := dataset.Scan(ctx, ds, dataset.VMsTable, func(v *dataset.VM) error {
			ix.add(v.VMID, v.Subscription, v.Deployment)
			return nil
		})
		if err != nil {
			return nil, err
		}
		ix.from = append(ix.from, fmt.Sprintf("%d rows of the dataset's vms table", n))
	}
	s.run.vms = ix
	return ix, nil
}

func (ix *vmIndex) add(vm, sub, dep string) {
	_, sub = ix.strs.Bytes([]byte(sub))
	_, dep = ix.strs.Bytes([]byte(dep))
	o := vmOwner{sub, dep}
	id, ok := ix.ids[o]
	if !ok {
		id = uint32(len(ix.owners))
		ix.owners = append(ix.owners, o)
		ix.ids[o] = id
	}
	if k, b64 := vmKey([]byte(vm)); b64 {
		ix.b64[k] = id
	} else {
		ix.other[vm] = id
	}
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
	w := s.tx.VMs()
	for r.Scan() {
		rec, perr := r.Record()
		if perr != nil {
			if err := s.reject(perr); err != nil {
				return err
			}
			continue
		}
		if err := w.Append(rec); err != nil {
			if err := s.appendErr(err, lineOf(r)); err != nil {
				return err
			}
			continue
		}
		ix.add(rec.VMID, rec.Subscription, rec.Deployment)
		s.accepted++
		s.res.Accepted++
	}
	if err := r.Err(); err != nil {
		return err
	}
	ix.from = append(ix.from, fmt.Sprintf("%d VMs of %s", s.accepted-before, in.Path))
	s.notes = append(s.notes, "vmcreated/vmdeleted are seconds from the trace start "+
		msText(start)+"; cpu statistics stored as fractions; core and memory buckets kept as written")
	return nil
}

// azureVMTable parses vmtable lines (V1 numbers or V2 buckets alike).
type azureVMTable struct {
	file    string
	start   int64
	fields  [][]byte
	cols    []int
	scratch []byte
	strs    *strtab.Table
}

func (p *azureVMTable) parse(line []byte, lineNo int64, rec *dataset.VM) *ParseError {
	reject := func(col int, err error) *ParseError {
		return &ParseError{File: p.file, Line: lineNo, Col: col, Err: err, Record: recordText(line)}
	}
	var err error
	if p.fields, p.cols, p.scratch, err = splitCSV(line, p.fields, p.cols, p.scratch); err != nil {
		return reject(0, err)
	}
	f, c := p.fields, p.cols
	if len(f) != 11 {
		return reject(0, fmt.Errorf("%d fields, want 11 (vmid,subscriptionid,deploymentid,vmcreated,vmdeleted,maxcpu,avgcpu,p95maxcpu,vmcategory,vmcorecount,vmmemory)", len(f)))
	}
	for i, name := range []string{"vmid", "subscriptionid", "deploymentid"} {
		if len(f[i]) == 0 {
			return reject(c[i], fmt.Errorf("empty %s", name))
		}
	}
	var times [2]int64
	for i := 0; i < 2; i++ {
		v, err := parseFloat(f[3+i])
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1e12 {
			return reject(c[3+i], fmt.Errorf("%s %q is not seconds from the trace start", [2]string{"vmcreated", "vmdeleted"}[i], f[3+i]))
		}
		times[i] = p.start + int64(math.Round(v*1000))
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

// percentField reads a CPU percent in [0,100] as a fraction.
func percentField(b []byte, name string) (float64, error) {
	v, err := parseFloat(b)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%s: %v", name, err)
	case math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Errorf("%s is %v", name, v)
	case v < 0:
		return 0, fmt.Errorf("%s %g is negative", name, v)
	case v > 100:
		return 0, fmt.Errorf("%s %g is above 100%%", name, v)
	}
	return v / 100, nil
}

// ingestAzureCPU reads vm_cpu_readings into usage.
func ingestAzureCPU(ctx context.Context, in *Input, s *sink) error {
	key, note := tenantKey(azureCPUFormat, s.opts)
	if note != "" {
		s.notes = append(s.notes, note)
	}
	p := &azureCPU{file: in.Path, start: traceStartMs(s.opts, unixEpoch), key: key,
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
	file    string
	start   int64
	key     string
	join    *vmIndex
	fields  [][]byte
	cols    []int
	scratch []byte
	servers *strtab.Table
	tenants *strtab.Table
	last    lastTime
}

func (p *azureCPU) parse(line []byte, lineNo int64, rec *dataset.Usage) *ParseError {
	reject := func(col int, err error) *ParseError {
		return &ParseError{File: p.file, Line: lineNo, Col: col, Err: err, Record: recordText(line)}
	}
	var err error
	if p.fields, p.cols, p.scratch, err = splitCSV(line, p.fields, p.cols, p.scratch); err != nil {
		return reject(0, err)
	}
	f, c := p.fields, p.cols
	if len(f) != 5 {
		return reject(0, fmt.Errorf("%d fields, want 5 (timestamp,vmid,min,max,avg)", len(f)))
	}
	ts, err := parseFloat(f[0])
	if err != nil || math.IsNaN(ts) || math.IsInf(ts, 0) || ts < 0 || ts > 1e12 {
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
	ms := p.start + int64(math.Round(ts*1000))
	if p.last.repeat(id, ms) {
		return reject(c[0], errors.New("duplicate timestamp for this VM (repeats its previous reading)"))
	}
	*rec = dataset.Usage{Tenant: tenant, Server: server, TimeMs: ms, CPU: cpu, Memory: math.NaN()}
	return nil
}

// msText writes an instant for notes.
func msText(ms int64) string {
	return timeUTC(ms).Format("2006-01-02T15:04:05Z07:00")
}
