package classify

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// randomPartial is a Partial as builders make them: sorted distinct
// servers sharing prefixes, runs of slots without samples, counts that
// change, saturated counts and sums up to the field's top.
func randomPartial(r *rand.Rand) Partial {
	p := Partial{Tenant: "tenant-" + strconv.Itoa(r.IntN(1000)), FirstSlot: r.Int64N(1<<40) - 1<<39}
	if r.IntN(8) == 0 {
		p.Tenant = string([]byte{0, 0xff, 'x'}) // any bytes
	}
	seen := map[string]bool{}
	for range r.IntN(12) {
		s := "host-" + strings.Repeat("a", r.IntN(3)) + strconv.Itoa(r.IntN(300))
		if !seen[s] {
			seen[s] = true
			p.Servers = append(p.Servers, s)
		}
	}
	slices.Sort(p.Servers)
	n := r.IntN(3000)
	if n > 0 {
		p.Slots = make([]uint64, n)
	}
	count := uint64(1 + r.IntN(3))
	for i := range p.Slots {
		switch r.IntN(40) {
		case 0:
			count = uint64(r.IntN(4)) // 0: a run without samples
		case 1:
			count = slotCountMax
		}
		if count == 0 {
			continue
		}
		sum := uint64(r.IntN(slotUnit+1)) * count
		if r.IntN(100) == 0 {
			sum = 1<<(64-slotCountBits) - 1
		}
		p.Slots[i] = sum<<slotCountBits | count
	}
	return p
}

// The binary form gives back the Partial, bit for bit, and the series it
// makes; and it is smaller than 8 bytes a slot on builders' output.
func TestPartialBinaryRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 3))
	for i := range 400 {
		p := randomPartial(r)
		b, err := p.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var q Partial
		if err := q.UnmarshalBinary(b); err != nil {
			t.Fatalf("partial %d: %v", i, err)
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("partial %d: round trip changed it:\n%+v\n%+v", i, p, q)
		}
	}
	// Builders' Partials: the series survive, and the form is compact.
	rows := partialRows()
	b := NewSeriesBuilder(2 * time.Minute)
	for _, u := range rows {
		b.Add(u.Tenant, u.Server, u.TimeMs, u.CPU)
	}
	var slots, bytes int
	for _, p := range b.Partials() {
		bin, err := p.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var q Partial
		if err := q.UnmarshalBinary(bin); err != nil {
			t.Fatal(err)
		}
		a, b := p.Series(2*time.Minute), q.Series(2*time.Minute)
		if a.Tenant != b.Tenant || a.StartMs != b.StartMs || a.StepS != b.StepS || a.Servers != b.Servers ||
			!slices.EqualFunc(a.Values, b.Values, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }) {
			t.Fatalf("%s: series changed by the round trip", p.Tenant)
		}
		slots += len(p.Slots)
		bytes += len(bin)
	}
	perSlot := float64(bytes) / float64(slots)
	t.Logf("%d slots in %d bytes: %.2f a slot", slots, bytes, perSlot)
	if perSlot > 4.5 {
		t.Errorf("%.2f bytes a slot, want well under the 8 of a uint64", perSlot)
	}
}

// A slot without a count but with a sum is no Partial a builder makes,
// and has no binary form.
func TestPartialBinaryRefusesSumWithoutCount(t *testing.T) {
	p := Partial{Tenant: "t", Slots: []uint64{1<<slotCountBits | 1, 5 << slotCountBits}}
	if _, err := p.MarshalBinary(); err == nil {
		t.Fatal("want an error")
	}
}

// Every cut and many byte flips of valid forms decode to an error or to a
// Partial whose own form decodes again, never a panic; and a cut is always
// an error.
func TestPartialBinaryDamage(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	for range 60 {
		p := randomPartial(r)
		b, err := p.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		for cut := 0; cut < len(b); cut += 1 + len(b)/50 {
			var q Partial
			if err := q.UnmarshalBinary(b[:cut]); err == nil {
				t.Fatalf("%d of %d bytes decoded without an error", cut, len(b))
			}
		}
		for range 50 {
			d := slices.Clone(b)
			d[r.IntN(len(d))] ^= byte(1 + r.IntN(255))
			var q Partial
			if err := q.UnmarshalBinary(d); err != nil {
				if !errors.Is(err, errPartial) && !strings.Contains(err.Error(), "version") {
					t.Fatalf("error %v is not a damaged partial's", err)
				}
				continue
			}
			again, err := q.MarshalBinary()
			if err != nil {
				t.Fatalf("a decoded partial has no form: %v", err)
			}
			var q2 Partial
			if err := q2.UnmarshalBinary(again); err != nil || !reflect.DeepEqual(q, q2) {
				t.Fatalf("a decoded partial does not round-trip: %v", err)
			}
		}
	}
	// A declared slot count past the cap is refused before allocating.
	b := []byte{partialVersion, 1, 't', 0, 0}
	b = append(b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01) // 2^56-1 slots
	b = append(b, 1, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01)
	var q Partial
	if err := q.UnmarshalBinary(b); err == nil || !strings.Contains(err.Error(), "slots, more than") {
		t.Fatalf("huge slot count: %v", err)
	}
}

// MergeAll gives what Merge one part after the other gives, bit for bit,
// and leaves the parts as they were.
func TestMergeAllAsMergeInOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 8))
	for i := range 300 {
		parts := make([]Partial, r.IntN(6))
		base := r.Int64N(1000)
		for k := range parts {
			p := randomPartial(r)
			p.Tenant = "t"
			p.FirstSlot = base + r.Int64N(4000) - 2000
			for j := range p.Slots { // counts that never saturate when added
				if c := p.Slots[j] & slotCountMax; c > 3 {
					p.Slots[j] = p.Slots[j]>>slotCountBits%(1<<30)<<slotCountBits | 3
				}
			}
			parts[k] = p
		}
		var want Partial
		if len(parts) > 0 {
			want = parts[0]
			want.Slots = slices.Clone(want.Slots)
			want.Servers = slices.Clone(want.Servers)
			for _, q := range parts[1:] {
				want.Merge(q)
			}
		}
		before := make([][]byte, len(parts))
		for k := range parts {
			before[k], _ = parts[k].MarshalBinary()
		}
		got := MergeAll(parts)
		if len(got.Slots) == 0 {
			got.Slots = want.Slots[:0:0]
			if want.Slots == nil {
				got.Slots = nil
			}
		}
		if len(got.Servers) == 0 && len(want.Servers) == 0 {
			got.Servers = want.Servers
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d (%d parts): MergeAll\n%+v\nMerge in order\n%+v", i, len(parts), got, want)
		}
		for k := range parts {
			if after, _ := parts[k].MarshalBinary(); !slices.Equal(after, before[k]) {
				t.Fatalf("case %d: part %d changed", i, k)
			}
		}
	}
}
