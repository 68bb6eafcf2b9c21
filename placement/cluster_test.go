package placement

import (
	"math"
	"math/rand/v2"
	"testing"
)

func classOf(ms []Member) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		out[m.Name] = ClassName(m.Row, m.Col)
	}
	return out
}

// clusterAs clusters ms and fails t for each member whose class is not
// the one want names.
func clusterAs(t *testing.T, ms []Member, want map[string]string) {
	t.Helper()
	Cluster(ms)
	got := classOf(ms)
	for n, w := range want {
		if got[n] != w {
			t.Errorf("%s: %s, want %s", n, got[n], w)
		}
	}
}

// Nine tenants of equal storage, worked by hand: rows by rate, then each
// row by its own peaks. The infrequent row's peaks (0.1–0.3) are all
// below the frequent row's (0.7–0.9), so the columns are not global peak
// cuts: 0.3 is "high" in its row and 0.7 "low" in its own (§4.2: "the
// peak rows need not align"). Every class holds exactly S/9.
func TestClusterHandEqual(t *testing.T) {
	ms := []Member{
		{Name: "a", Rate: 0.00, Peak: 0.3}, {Name: "b", Rate: 0.05, Peak: 0.1}, {Name: "c", Rate: 0.10, Peak: 0.2},
		{Name: "d", Rate: 0.50, Peak: 0.6}, {Name: "e", Rate: 0.60, Peak: 0.4}, {Name: "f", Rate: 0.70, Peak: 0.5},
		{Name: "g", Rate: 2.00, Peak: 0.9}, {Name: "h", Rate: 3.00, Peak: 0.7}, {Name: "i", Rate: 4.00, Peak: 0.8},
	}
	for i := range ms {
		ms[i].StorageBytes = 8e12 // two servers of 4 TB
	}
	clusterAs(t, ms, map[string]string{
		"b": "infrequent/low", "c": "infrequent/medium", "a": "infrequent/high",
		"e": "intermediate/low", "f": "intermediate/medium", "d": "intermediate/high",
		"h": "frequent/low", "i": "frequent/medium", "g": "frequent/high",
	})
	per := map[string]float64{}
	for _, m := range ms {
		per[ClassName(m.Row, m.Col)] += m.StorageBytes
	}
	for c, s := range per {
		if s != 8e12 {
			t.Errorf("class %s holds %g bytes, want S/9 = 8e12", c, s)
		}
	}
}

// Unequal storage (servers 2,2,2,1,1,4,3,1,2 of one unit; S = 18, S/3 =
// 6, S/9 = 2), worked by hand with the midpoint rule. Rows by rate: the
// midpoints 1,3,5 | 6.5,7.5,10 | 13.5,15.5,17 fall in [0,6), [6,12),
// [12,18). Row 0 by peak b,c,a (mids 1,3,5 of 6): one each. Row 1 by peak
// e(1),d(1),f(4): mids 0.5,1.5,4 of 6 → low, low, high: f alone holds 4
// units, so medium stays empty (one class per tenant). Row 2 i(2),g(3),
// h(1): mids 1,3.5,5.5 → low, medium, high.
func TestClusterHandUnequal(t *testing.T) {
	ms := []Member{
		{Name: "a", Rate: 0.00, Peak: 0.9, StorageBytes: 2}, {Name: "b", Rate: 0.05, Peak: 0.2, StorageBytes: 2},
		{Name: "c", Rate: 0.10, Peak: 0.5, StorageBytes: 2}, {Name: "d", Rate: 0.50, Peak: 0.3, StorageBytes: 1},
		{Name: "e", Rate: 0.60, Peak: 0.1, StorageBytes: 1}, {Name: "f", Rate: 0.70, Peak: 0.8, StorageBytes: 4},
		{Name: "g", Rate: 2.00, Peak: 0.4, StorageBytes: 3}, {Name: "h", Rate: 3.00, Peak: 0.6, StorageBytes: 1},
		{Name: "i", Rate: 4.00, Peak: 0.05, StorageBytes: 2},
	}
	clusterAs(t, ms, map[string]string{
		"b": "infrequent/low", "c": "infrequent/medium", "a": "infrequent/high",
		"e": "intermediate/low", "d": "intermediate/low", "f": "intermediate/high",
		"i": "frequent/low", "g": "frequent/medium", "h": "frequent/high",
	})
	rs := []Tenant{}
	for _, m := range ms {
		rs = append(rs, Tenant{Tenant: m.Name, ReimageGroup: ReimageGroups[m.Row], PeakGroup: PeakGroups[m.Col], StorageBytes: m.StorageBytes, Servers: int(m.StorageBytes)})
	}
	cls := classes(rs, 18)
	wantS := []float64{2, 2, 2, 2, 0, 4, 2, 3, 1}
	for k, c := range cls {
		if c.StorageBytes != wantS[k] {
			t.Errorf("class %s: %g units, want %g", c.Class, c.StorageBytes, wantS[k])
		}
	}
	if cls[4].MinRate != nil || len(cls[4].Tenants) != 0 {
		t.Errorf("empty class %+v", cls[4])
	}
}

// Properties over seeded random tenants: every tenant in one class of the
// 3 × 3; rows hold S/3 within the largest tenant's storage and classes S/9
// within 4/3 of it (doc.go); rows are ordered by rate and columns, within
// a row, by peak; the result does not depend on the input order.
func TestClusterProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 3))
	for trial := 0; trial < 500; trial++ {
		n := 1 + r.IntN(80)
		ms := make([]Member, n)
		smax, total := 0.0, 0.0
		for i := range ms {
			ms[i] = Member{Name: string(rune('A'+i%26)) + string(rune('a'+i/26)), Rate: math.Floor(r.ExpFloat64()*4) / 4,
				Peak: math.Round(r.Float64()*20) / 20, StorageBytes: float64(1+r.IntN(1+r.IntN(30))) * 4e12}
			smax = max(smax, ms[i].StorageBytes)
			total += ms[i].StorageBytes
		}
		Cluster(ms)
		var row [3]float64
		var cls [3][3]float64
		for _, m := range ms {
			if m.Row < 0 || m.Row > 2 || m.Col < 0 || m.Col > 2 {
				t.Fatalf("trial %d: %+v outside the 3 × 3", trial, m)
			}
			row[m.Row] += m.StorageBytes
			cls[m.Row][m.Col] += m.StorageBytes
		}
		for k := 0; k < 3; k++ {
			if d := math.Abs(row[k] - total/3); d > smax*(1+1e-9) {
				t.Fatalf("trial %d: row %d holds %g, S/3 = %g, largest tenant %g", trial, k, row[k], total/3, smax)
			}
			for c := 0; c < 3; c++ {
				if d := math.Abs(cls[k][c] - total/9); d > smax*4/3*(1+1e-9) {
					t.Fatalf("trial %d: class %d,%d holds %g, S/9 = %g, largest tenant %g", trial, k, c, cls[k][c], total/9, smax)
				}
			}
		}
		for i := range ms {
			for j := range ms {
				a, b := ms[i], ms[j]
				if a.Row < b.Row && a.Rate > b.Rate {
					t.Fatalf("trial %d: %+v in a lower row than %+v", trial, a, b)
				}
				if a.Row == b.Row && a.Col < b.Col && a.Peak > b.Peak {
					t.Fatalf("trial %d: %+v in a lower column than %+v", trial, a, b)
				}
			}
		}
		sh := append([]Member(nil), ms...)
		r.Shuffle(len(sh), func(i, j int) { sh[i], sh[j] = sh[j], sh[i] })
		Cluster(sh)
		got := classOf(sh)
		for _, m := range ms {
			if got[m.Name] != ClassName(m.Row, m.Col) {
				t.Fatalf("trial %d: %s is %s shuffled, %s not", trial, m.Name, got[m.Name], ClassName(m.Row, m.Col))
			}
		}
	}
}

// Tied values share a group; distinct ones split in thirds by rank.
func TestGroupsByCount(t *testing.T) {
	got := groupsByCount([]float64{5, 0, 0, 0, 0, 1, 2, 3, 4})
	// Ranks: the four zeros hold ranks 0–3 (middle 1.5 → group 0); 1 is
	// rank 4 (group 1), 2 rank 5 (1), 3 rank 6 (2), 4, 5 ranks 7, 8 (2).
	want := []int{2, 0, 0, 0, 0, 1, 1, 2, 2}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("groups %v, want %v", got, want)
		}
	}
	if g := groupsByCount([]float64{1, 2, 3, 4, 5, 6}); g[0] != 0 || g[1] != 0 || g[2] != 1 || g[3] != 1 || g[4] != 2 || g[5] != 2 {
		t.Fatalf("six distinct: %v", g)
	}
}

// Sizes read as --server-storage takes them, and its default text reads
// back to the default; bad ones are named.
func TestFlagsServerStorage(t *testing.T) {
	for in, want := range map[string]float64{"4TB": 4 << 40, "4T": 4 << 40, "500GiB": 500 << 30, "1.5e12": 1.5e12, " 2 TB ": 2 << 40, "4096": 4096, "1PiB": 1 << 50} {
		o := DefaultOptions()
		if err := (storage{&o.ServerStorageBytes}).Set(in); err != nil || o.ServerStorageBytes != want {
			t.Errorf("%q: %g %v, want %g", in, o.ServerStorageBytes, err, want)
		}
	}
	o := DefaultOptions()
	if s := (storage{&o.ServerStorageBytes}).String(); s != "4TB" {
		t.Errorf("default written %q, want 4TB", s)
	}
	for _, in := range []string{"lots", "0", "-1TB", "NaN", "4XB"} {
		o := DefaultOptions()
		if err := (storage{&o.ServerStorageBytes}).Set(in); err == nil {
			t.Errorf("%q: accepted (%g)", in, o.ServerStorageBytes)
		}
	}
}
