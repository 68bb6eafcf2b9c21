package classify

import (
	"math"
	"slices"
	"sort"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// slotAcc is one grid slot of a tenant being built: the sum of its
// servers' slot averages, as a whole number of 2^-24 (6e-8 of a server,
// the resolution a float32 has near 1), in the high 44 bits, and the count
// of those averages in the low 20. Whole numbers add exactly in any order,
// so a slot's value is the same whichever way its servers' averages were
// grouped and ordered: in one SeriesBuilder, or in many over parts of the
// rows whose Partials are merged (a distributed runner's shards). Zero is
// a slot without a sample.
type slotAcc uint64

const (
	slotCountBits = 20
	slotCountMax  = 1<<slotCountBits - 1
	slotUnit      = 1 << 24 // units of a server in the sum
)

// add adds one server's average for the slot, v in [0,1]. A slot that
// already counts slotCountMax averages (a million servers of one tenant in
// one slot) keeps its value: the count would overflow into the sum.
func (a *slotAcc) add(v float64) {
	if *a&slotCountMax == slotCountMax {
		return
	}
	// v·2^24 is exact and at most 2^24, so adding ½ and truncating is
	// math.Round (halves away from zero) for v ≥ 0, without its call.
	*a += slotAcc(uint64(v*slotUnit+0.5)<<slotCountBits | 1)
}

// value is the slot's average server, rounded to 1e-6 of a server; NaN
// without a sample.
func (a slotAcc) value() float64 {
	n := uint64(a & slotCountMax)
	if n == 0 {
		return math.NaN()
	}
	v := float64(uint64(a)>>slotCountBits) / slotUnit
	if n != 1 { // most slots have one server: a division less, the same value
		v /= float64(n)
	}
	return math.Round(v*1e6) / 1e6
}

// Partial is one tenant's share of the series built from part of the
// usage rows (a shard of a distributed run): per grid slot, the exact sum
// and count of its servers' slot averages. Merging the Partials of every
// part, in any grouping and order, and calling Series gives what one
// SeriesBuilder over all the rows gives, bit for bit, provided no server's
// samples of one slot were split between parts (SeriesBuilder counts a
// server once per run of samples in a slot; see there).
type Partial struct {
	Tenant string
	// Servers are the tenant's servers seen, sorted and distinct.
	Servers []string
	// FirstSlot is the slot (time / step, from the Unix epoch) of Slots[0].
	FirstSlot int64
	// Slots are the packed sums and counts, one per slot from FirstSlot;
	// 0 where no sample fell. Their encoding is this package's (slotAcc).
	Slots []uint64
}

// Partials returns every tenant's Partial, sorted by tenant; tenants
// without a sample are left out. The builder is spent afterwards.
func (b *SeriesBuilder) Partials() []Partial {
	for i := range b.srv {
		b.flush(&b.srv[i])
	}
	b.srv = nil
	servers := make([][]string, len(b.accs))
	for key := range b.servers {
		// key is tenant NUL server, and the tenant is the longest prefix
		// naming a tenant: find it through the id the map holds.
		for i := 0; i < len(key); i++ {
			if key[i] != 0 {
				continue
			}
			if t, ok := b.tenants[key[:i]]; ok {
				servers[t] = append(servers[t], key[i+1:])
				break
			}
		}
	}
	out := make([]Partial, 0, len(b.accs))
	for ti, a := range b.accs {
		lo, hi, ok := a.span()
		if !ok {
			continue
		}
		p := Partial{Tenant: a.name, FirstSlot: lo, Slots: make([]uint64, hi-lo+1)}
		for k := range p.Slots {
			slot := lo + int64(k)
			if c := a.chunks[slot>>chunkShift-a.first]; c != nil {
				p.Slots[k] = uint64(c[slot&(chunkSlots-1)])
			}
		}
		a.chunks = nil
		sort.Strings(servers[ti])
		p.Servers = servers[ti]
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tenant < out[j].Tenant })
	return out
}

// Merge adds q (a Partial of the same tenant) into p: slot by slot, and
// the union of the servers. It is exact, so associative and commutative.
func (p *Partial) Merge(q Partial) {
	if len(q.Slots) == 0 {
		p.Servers = unionSorted(p.Servers, q.Servers)
		return
	}
	if len(p.Slots) == 0 {
		p.FirstSlot = q.FirstSlot
	}
	lo := min(p.FirstSlot, q.FirstSlot)
	hi := max(p.FirstSlot+int64(len(p.Slots)), q.FirstSlot+int64(len(q.Slots)))
	if lo != p.FirstSlot || hi != p.FirstSlot+int64(len(p.Slots)) {
		grown := make([]uint64, hi-lo)
		copy(grown[p.FirstSlot-lo:], p.Slots)
		p.Slots, p.FirstSlot = grown, lo
	}
	addSlots(p.Slots[q.FirstSlot-p.FirstSlot:], q.Slots)
	p.Servers = unionSorted(p.Servers, q.Servers)
}

// MergeAll merges Partials of one tenant into one, as Merge one after
// the other in their order does, but allocating the slots once: merging
// a tenant's shards one by one copied its growing slots at every step,
// quadratic in the number of shards that each cover a stretch of time.
// The parts are left as they were.
func MergeAll(parts []Partial) Partial {
	if len(parts) == 0 {
		return Partial{}
	}
	out := Partial{Tenant: parts[0].Tenant}
	lo, hi, has := int64(0), int64(0), false
	for i := range parts {
		q := &parts[i]
		if len(q.Slots) == 0 {
			continue
		}
		a, b := q.FirstSlot, q.FirstSlot+int64(len(q.Slots))
		if !has {
			lo, hi, has = a, b, true
		}
		lo, hi = min(lo, a), max(hi, b)
	}
	if has {
		out.FirstSlot, out.Slots = lo, make([]uint64, hi-lo)
	}
	for i := range parts {
		q := &parts[i]
		if len(q.Slots) == 0 {
			if !has && i == 0 {
				out.FirstSlot = q.FirstSlot
			}
			out.Servers = unionSorted(out.Servers, q.Servers)
			continue
		}
		addSlots(out.Slots[q.FirstSlot-lo:], q.Slots)
		out.Servers = unionSorted(out.Servers, q.Servers)
	}
	return out
}

// addSlots adds src into dst slot by slot, as Merge does.
func addSlots(dst, src []uint64) {
	for i, v := range src {
		a, b := slotAcc(dst[i]), slotAcc(v)
		if a&slotCountMax+b&slotCountMax > slotCountMax {
			continue // saturated (a million servers in a slot): as add, keep it
		}
		dst[i] = uint64(a + b)
	}
}

// Series is the tenant's average-server series on a grid of step, as
// SeriesBuilder.Series makes it: trimmed to its first and last sample,
// NaN where no sample fell.
func (p *Partial) Series(step time.Duration) dataset.Series {
	stepMs := step.Milliseconds()
	lo, hi := 0, len(p.Slots)
	for lo < hi && p.Slots[lo] == 0 {
		lo++
	}
	for hi > lo && p.Slots[hi-1] == 0 {
		hi--
	}
	s := dataset.Series{Tenant: p.Tenant, StartMs: (p.FirstSlot + int64(lo)) * stepMs,
		StepS: float64(stepMs) / 1000, Servers: int32(len(p.Servers))}
	if lo == hi {
		return s
	}
	s.Values = make([]float64, hi-lo)
	for i, v := range p.Slots[lo:hi] {
		s.Values[i] = slotAcc(v).value()
	}
	s.ThinTail = thinTail(hi-lo, func(i int) int { return slotAcc(p.Slots[lo+i]).count() }, stepMs)
	return s
}

// count is how many server averages the slot holds.
func (a slotAcc) count() int { return int(a & slotCountMax) }

// thinWindow is how far back from a series' last slot its servers are
// counted to tell a thin tail: servers that stopped within the last hour
// of the trace stopped "at its end"; a tenant that shrank earlier than
// that reports on fewer servers, and those are its current servers.
const thinWindow = time.Hour

// thinTail is dataset.Series.ThinTail for a series of n slots whose slot
// i holds count(i) servers: the last slots holding at most half of the
// most servers any slot of the last thinWindow holds. A tenant's servers
// end at slightly different instants (two Alibaba 2018 machines, 150 s
// apart), and its last slots then average the late servers alone.
func thinTail(n int, count func(int) int, stepMs int64) int32 {
	w := min(n, max(2, int((thinWindow.Milliseconds()+stepMs-1)/stepMs)))
	most := 0
	for i := n - w; i < n; i++ {
		most = max(most, count(i))
	}
	k := 0
	for k < w && 2*count(n-1-k) <= most {
		k++
	}
	if k == w { // no slot of the window has most servers: none is thin
		return 0
	}
	return int32(k)
}

// unionSorted merges two sorted lists of distinct names.
func unionSorted(a, b []string) []string {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return slices.Clone(b)
	}
	out := make([]string, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}
