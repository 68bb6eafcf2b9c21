// The index of the vms table that usage readings join with to find their
// tenant: Azure VMs (azure-vmtable) and Alibaba containers
// (alibaba2018-container-meta), both stored as dataset.VM rows.

package ingest

import (
	"context"
	"encoding/base64"
	"fmt"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

// vmOwner is who a VM belongs to.
type vmOwner struct{ subscription, deployment string }

// vmIndex is the VM table azure-cpu and alibaba2018-container-usage join
// with: the vms rows committed in the dataset before this ingest, then
// every vmtable (or container_meta) input of this ingest.
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

// vmsIndexed writes vms rows and adds each one written to the index.
type vmsIndexed struct {
	w  appender[dataset.VM]
	ix *vmIndex
}

func (v vmsIndexed) Append(rec *dataset.VM) error {
	if err := v.w.Append(rec); err != nil {
		return err
	}
	v.ix.add(rec.VMID, rec.Subscription, rec.Deployment)
	return nil
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
