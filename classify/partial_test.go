package classify

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// partialRows is usage of 12 tenants with 1–4 servers each over 4 days,
// with gaps, in time order.
func partialRows() []dataset.Usage {
	r := rand.New(rand.NewPCG(7, 7))
	var rows []dataset.Usage
	for slot := 0; slot < 4*720; slot++ {
		for tn := 0; tn < 12; tn++ {
			for sv := 0; sv <= tn%4; sv++ {
				if r.IntN(20) == 0 {
					continue
				}
				cpu := 0.3 + 0.2*math.Sin(2*math.Pi*float64(slot)/720) + 0.05*r.Float64()
				rows = append(rows, dataset.Usage{Tenant: "t" + strconv.Itoa(tn), Server: "s" + strconv.Itoa(sv),
					TimeMs: 1_700_000_000_000 + int64(slot)*120_000 + int64(r.IntN(1000)), CPU: cpu})
			}
		}
	}
	return rows
}

// Merged Partials of any split of the rows by server, in any order, give
// the series of one builder over all of them, bit for bit; and Combine on
// tenants analysed one by one gives Run's result.
func TestPartialsMergeAsOneBuilder(t *testing.T) {
	rows := partialRows()
	step := 2 * time.Minute
	one := NewSeriesBuilder(step)
	for _, u := range rows {
		one.Add(u.Tenant, u.Server, u.TimeMs, u.CPU)
	}
	want := one.Series()
	for _, shards := range []int{1, 3, 16} {
		bs := make([]*SeriesBuilder, shards)
		for i := range bs {
			bs[i] = NewSeriesBuilder(step)
		}
		for _, u := range rows {
			k := int(u.Server[1]-'0'+u.Tenant[len(u.Tenant)-1]) % shards
			bs[k].Add(u.Tenant, u.Server, u.TimeMs, u.CPU)
		}
		merged := map[string]*Partial{}
		var order []string
		for i := len(bs) - 1; i >= 0; i-- { // reverse shard order
			for _, p := range bs[i].Partials() {
				if m := merged[p.Tenant]; m != nil {
					m.Merge(p)
				} else {
					merged[p.Tenant] = &p
					order = append(order, p.Tenant)
				}
			}
		}
		if len(merged) != len(want) {
			t.Fatalf("%d shards: %d tenants, want %d", shards, len(merged), len(want))
		}
		for _, w := range want {
			got := merged[w.Tenant].Series(step)
			if !sameSeries(got, w) {
				t.Fatalf("%d shards: tenant %s differs:\n got %+v\nwant %+v", shards, w.Tenant, got.Values[:5], w.Values[:5])
			}
		}
	}
	opts := Options{MinHistory: 48 * time.Hour}
	res, err := Run(context.Background(), Input{Series: want}, opts)
	if err != nil {
		t.Fatal(err)
	}
	var tenants []Tenant
	for i := len(want) - 1; i >= 0; i-- {
		tenants = append(tenants, Analyse(&want[i], opts))
	}
	got, err := Combine(want, tenants, opts)
	if err != nil {
		t.Fatal(err)
	}
	got.Units = res.Units
	if !reflect.DeepEqual(got, res) {
		t.Fatalf("Combine differs from Run:\n got %+v\nwant %+v", got, res)
	}
}

func sameSeries(a, b dataset.Series) bool {
	if a.Tenant != b.Tenant || a.StartMs != b.StartMs || a.StepS != b.StepS || a.Servers != b.Servers || len(a.Values) != len(b.Values) {
		return false
	}
	for i := range a.Values {
		if math.Float64bits(a.Values[i]) != math.Float64bits(b.Values[i]) && !(math.IsNaN(a.Values[i]) && math.IsNaN(b.Values[i])) {
			return false
		}
	}
	return true
}

// A slot's value does not depend on the order its servers were added in.
func TestSlotAccOrderFree(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for trial := 0; trial < 200; trial++ {
		vs := make([]float64, 2+r.IntN(50))
		for i := range vs {
			vs[i] = r.Float64()
		}
		var a, b slotAcc
		for _, v := range vs {
			a.add(v)
		}
		r.Shuffle(len(vs), func(i, j int) { vs[i], vs[j] = vs[j], vs[i] })
		for _, v := range vs {
			b.add(v)
		}
		mean := 0.0
		for _, v := range vs {
			mean += v
		}
		mean /= float64(len(vs))
		if a != b || math.Abs(a.value()-mean) > 1e-6 {
			t.Fatalf("values %v: %v and %v, mean %v", vs, a.value(), b.value(), mean)
		}
	}
	if v := slotAcc(0).value(); !math.IsNaN(v) {
		t.Fatalf("empty slot: %v", v)
	}
}
