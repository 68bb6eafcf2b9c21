package harvest

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/wlprof/wlprof/dataset"
)

// ServerUsage is one tenant's servers' own utilisation (fraction of a
// server, NaN where a server has no sample) from StartMs on its series'
// grid, one row per server, servers by name.
type ServerUsage struct {
	StartMs int64
	Servers []string
	Values  [][]float32
}

// maxServerCells bounds the per-server usage Load keeps (servers × slots,
// 4 bytes each: 256 MB); past it the replay keeps the average servers.
const maxServerCells = 64 << 20

// loadServerUsage grids the usage table's samples per tenant and server
// (the mean of a server's samples in a slot) over the last span of the
// data (all of it when span is 0), on each tenant's series grid. It
// returns nil and the reason when the cells would exceed maxServerCells.
func loadServerUsage(ctx context.Context, ds *dataset.Dataset, series []dataset.Series, span int64) (map[string]ServerUsage, string, error) {
	if ds.Rows(dataset.UsageTable.Name) == 0 || len(series) == 0 {
		return nil, "", nil
	}
	type grid struct {
		startMs, stepMs int64
		slots           int
		servers         map[string]int
		sums            [][]float32
		counts          [][]uint16
	}
	endMs, firstMs := int64(math.MinInt64), int64(math.MaxInt64)
	for _, s := range series {
		stepMs := int64(math.Round(s.StepS * 1000))
		if len(s.Values) == 0 || stepMs <= 0 {
			continue
		}
		endMs = max(endMs, s.StartMs+int64(len(s.Values))*stepMs)
		firstMs = min(firstMs, s.StartMs)
	}
	if endMs <= firstMs {
		return nil, "", nil
	}
	from := firstMs
	if span > 0 && endMs-span > from {
		from = endMs - span
	}
	grids := map[string]*grid{}
	for _, s := range series {
		stepMs := int64(math.Round(s.StepS * 1000))
		if len(s.Values) == 0 || stepMs <= 0 {
			continue
		}
		end := s.StartMs + int64(len(s.Values))*stepMs
		start := s.StartMs
		if from > start {
			start = s.StartMs + floorDiv(from-s.StartMs, stepMs)*stepMs
		}
		if start >= end {
			continue
		}
		grids[s.Tenant] = &grid{startMs: start, stepMs: stepMs, slots: int((end - start + stepMs - 1) / stepMs), servers: map[string]int{}}
	}
	cells := 0
	over := false
	var tmap []*grid // per batch tenant: its grid (nil: none)
	var tseen []bool
	err := dataset.ScanUsageBatches(ctx, ds, func(b *dataset.UsageBatch) error {
		if over {
			return nil
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		tmap, tseen = tmap[:0], tseen[:0]
		for range b.Tenants {
			tmap, tseen = append(tmap, nil), append(tseen, false)
		}
		for r := 0; r < b.Len; r++ {
			t := b.TimeMs[r]
			if t == dataset.NoTime || t < from || math.IsNaN(b.CPU[r]) {
				continue
			}
			ti := b.TenantIdx[r]
			if !tseen[ti] {
				tseen[ti], tmap[ti] = true, grids[b.Tenants[ti]]
			}
			g := tmap[ti]
			if g == nil || t < g.startMs {
				continue
			}
			k := int((t - g.startMs) / g.stepMs)
			if k >= g.slots {
				continue
			}
			name := b.Servers[b.ServerIdx[r]]
			si, ok := g.servers[name]
			if !ok {
				if cells += g.slots; cells > maxServerCells {
					over = true
					return nil
				}
				si = len(g.sums)
				g.servers[name] = si
				g.sums, g.counts = append(g.sums, make([]float32, g.slots)), append(g.counts, make([]uint16, g.slots))
			}
			if g.counts[si][k] < math.MaxUint16 {
				g.sums[si][k] += float32(b.CPU[r])
				g.counts[si][k]++
			}
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	if over {
		return nil, fmt.Sprintf("the usage table's servers hold more than %d server-slots in the replay: kills are decided on each tenant's average server instead of each server", maxServerCells), nil
	}
	out := map[string]ServerUsage{}
	for tenant, g := range grids {
		if len(g.sums) == 0 {
			continue
		}
		names := make([]string, 0, len(g.servers))
		for n := range g.servers {
			names = append(names, n)
		}
		sort.Strings(names)
		su := ServerUsage{StartMs: g.startMs, Servers: names, Values: make([][]float32, len(names))}
		for k, n := range names {
			si := g.servers[n]
			v := g.sums[si]
			for j, c := range g.counts[si] {
				if c == 0 {
					v[j] = float32(math.NaN())
				} else {
					v[j] /= float32(c)
				}
			}
			su.Values[k] = v
		}
		out[tenant] = su
	}
	return out, "", nil
}
