package classify

import (
	"context"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/datasettest"
)

// AddBatch folds a batch's rows on several workers (each owning a part of
// the servers), a range of rows at a time; the series must be exactly
// those of one worker over the whole batch, whatever the number of parts
// and the ranges, on shuffled rows with duplicates and gaps.
func TestAddBatchPartsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	ds, tx := datasettest.Begin(t, filepath.Join(t.TempDir(), "ds"))
	var rows []dataset.Usage
	for tn := 0; tn < 150; tn++ {
		for sv := 0; sv < 1+tn%3; sv++ {
			for slot := 0; slot < 200; slot++ {
				if r.IntN(10) == 0 {
					continue // gap
				}
				for d := 0; d < 1+r.IntN(2); d++ { // duplicates in a slot
					rows = append(rows, dataset.Usage{Tenant: "t" + strconv.Itoa(tn), Server: "s" + strconv.Itoa(sv),
						TimeMs: 1_700_000_000_000 + int64(slot)*120_000 + int64(d)*1000, CPU: r.Float64()})
				}
			}
		}
	}
	r.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
	datasettest.Append(t, tx.Usage(), rows)
	datasettest.Commit(t, tx)
	build := func(parts, rows int) []dataset.Series {
		defer func(n int) { foldRows = n }(foldRows)
		foldRows = rows
		b := NewSeriesBuilder(2 * time.Minute)
		b.parts = parts
		err := dataset.ScanUsageBatches(context.Background(), ds, func(ub *dataset.UsageBatch) error {
			if ub.Len < 1<<14 {
				t.Fatalf("batch of %d rows would not take the parallel path", ub.Len)
			}
			b.AddBatch(ub)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return b.Series()
	}
	one := build(1, len(rows))
	// Seven parts over the batch at once, and over ranges of 20,011 rows
	// (the last one short of the parallel path's 2^14).
	for _, many := range [][]dataset.Series{build(7, len(rows)), build(7, 20_011)} {
		if len(one) != 150 || len(many) != len(one) {
			t.Fatalf("%d and %d series, want 150", len(one), len(many))
		}
		for i := range one {
			a, b := one[i], many[i]
			if a.Tenant != b.Tenant || a.StartMs != b.StartMs || a.Servers != b.Servers || len(a.Values) != len(b.Values) {
				t.Fatalf("series %d: %+v vs %+v", i, a, b)
			}
			for j := range a.Values {
				if a.Values[j] != b.Values[j] && !(math.IsNaN(a.Values[j]) && math.IsNaN(b.Values[j])) {
					t.Fatalf("%s slot %d: %g with one part, %g with seven", a.Tenant, j, a.Values[j], b.Values[j])
				}
			}
		}
	}
}

// The builder against a direct computation: per tenant and slot, each
// server's samples averaged, then the servers; the series from the first
// to the last slot with a sample, NaN between. Tenants start and end at
// random slots (inside chunks, across chunk boundaries), with gaps and
// duplicates; rows in time order, where the builder is exact up to its
// float32 sums (a few 1e-7 of a server, then rounded to 1e-6).
func TestSeriesBuilderMatchesDirect(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 13))
	const step = int64(120_000)
	type key struct {
		tenant, server string
		slot           int64
	}
	sums := map[key][2]float64{}
	var rows []dataset.Usage
	base := int64(1_700_000_000_000) / step / chunkSlots * chunkSlots * step // slot 0 starts a chunk
	for tn := 0; tn < 40; tn++ {
		first := int64(r.IntN(3000))
		last := first + int64(r.IntN(4000))
		if tn%3 == 0 { // the first and last slots of chunks
			first = (first/chunkSlots + 1) * chunkSlots
			last = (last/chunkSlots+2)*chunkSlots - 1
		}
		for sv := 0; sv < 1+tn%4; sv++ {
			for slot := first; slot <= last; slot++ {
				if r.IntN(7) == 0 && slot != first && slot != last {
					continue
				}
				for d := 0; d < 1+r.IntN(2); d++ {
					cpu := math.Round(r.Float64()*1e4) / 1e4
					k := key{"t" + strconv.Itoa(tn), "s" + strconv.Itoa(sv), slot}
					s := sums[k]
					sums[k] = [2]float64{s[0] + cpu, s[1] + 1}
					rows = append(rows, dataset.Usage{Tenant: k.tenant, Server: k.server, TimeMs: base + slot*step + int64(d)*1000, CPU: cpu})
				}
			}
		}
	}
	// Time order, servers interleaved.
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].TimeMs/step < rows[j].TimeMs/step })
	b := NewSeriesBuilder(time.Duration(step) * time.Millisecond)
	for _, u := range rows {
		b.Add(u.Tenant, u.Server, u.TimeMs, u.CPU)
	}
	got := b.Series()
	// The direct series.
	type acc struct{ sum, n float64 }
	per := map[string]map[int64]*acc{}
	for k, s := range sums {
		if per[k.tenant] == nil {
			per[k.tenant] = map[int64]*acc{}
		}
		a := per[k.tenant][k.slot]
		if a == nil {
			a = &acc{}
			per[k.tenant][k.slot] = a
		}
		a.sum += s[0] / s[1]
		a.n++
	}
	if len(got) != len(per) {
		t.Fatalf("%d series, want %d", len(got), len(per))
	}
	for _, s := range got {
		slots := per[s.Tenant]
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for sl := range slots {
			lo, hi = min(lo, sl), max(hi, sl)
		}
		if s.StartMs != base+lo*step || int64(len(s.Values)) != hi-lo+1 {
			t.Fatalf("%s: start %d and %d values, want %d and %d", s.Tenant, s.StartMs, len(s.Values), base+lo*step, hi-lo+1)
		}
		for i, v := range s.Values {
			a := slots[lo+int64(i)]
			switch {
			case a == nil && !math.IsNaN(v):
				t.Fatalf("%s slot %d: %g, want NaN", s.Tenant, lo+int64(i), v)
			case a != nil && !(math.Abs(v-a.sum/a.n) <= 2e-6):
				t.Fatalf("%s slot %d: %g, want %g", s.Tenant, lo+int64(i), v, a.sum/a.n)
			}
		}
	}
}

// serverIDs, whose lookups run in parts, gives every row the server id the
// plain row-by-row pass gives (new servers numbered in order of first
// appearance), over batches whose dictionaries change, with server names
// shared by tenants and servers new in the middle of a batch.
func TestServerIDsAsSerial(t *testing.T) {
	r := rand.New(rand.NewPCG(38, 2))
	par, ser := NewSeriesBuilder(DefaultStep), NewSeriesBuilder(DefaultStep)
	par.parts, ser.parts = 3, 3
	for batch := 0; batch < 6; batch++ {
		ub := &dataset.UsageBatch{Len: 1<<14 + r.IntN(5000)}
		for k := 0; k < 5+batch; k++ {
			ub.Tenants = append(ub.Tenants, "t"+strconv.Itoa(r.IntN(12)))
		}
		for k := 0; k < 4+2*batch; k++ {
			ub.Servers = append(ub.Servers, "s"+strconv.Itoa(r.IntN(20)))
		}
		for i := 0; i < ub.Len; i++ {
			ub.TenantIdx = append(ub.TenantIdx, int32(r.IntN(len(ub.Tenants))))
			ub.ServerIdx = append(ub.ServerIdx, int32(r.IntN(len(ub.Servers))))
		}
		for _, b := range []*SeriesBuilder{par, ser} {
			if !equalStrings(ub.Tenants, b.prevT) {
				b.mapT = b.mapT[:0]
				for _, s := range ub.Tenants {
					b.mapT = append(b.mapT, b.tenantID(s))
				}
				b.prevT = cloneStrings(ub.Tenants)
				b.prevS = nil
			}
			if !equalStrings(ub.Servers, b.prevS) {
				b.mapS = b.mapS[:0]
				for range ub.Servers {
					b.mapS = append(b.mapS, -1)
				}
				b.prevS = cloneStrings(ub.Servers)
			}
			b.sid = make([]int32, ub.Len)
		}
		par.serverIDs(ub)
		for i := range ser.sid { // the serial pass serverIDs replaced
			tn := ser.mapT[ub.TenantIdx[i]]
			si := ub.ServerIdx[i]
			s := ser.mapS[si]
			if s < 0 || ser.srv[s].tenant != tn {
				s = ser.serverID(tn, ub.Servers[si])
				ser.mapS[si] = s
			}
			ser.sid[i] = s
		}
		for i := range ser.sid {
			if par.sid[i] != ser.sid[i] {
				t.Fatalf("batch %d row %d (%s on %s): server id %d, serial %d", batch, i,
					ub.Tenants[ub.TenantIdx[i]], ub.Servers[ub.ServerIdx[i]], par.sid[i], ser.sid[i])
			}
		}
	}
	if len(par.srv) != len(ser.srv) || len(par.srv) < 40 {
		t.Fatalf("%d servers, serial %d (want the same, and many shared names)", len(par.srv), len(ser.srv))
	}
}
