package classify

import (
	"context"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/prefetch"
	"github.com/wlprof/wlprof/internal/quantile"
)

// DefaultStep is the grid step of the average-server series: the sampling
// interval of the paper's AutoPilot data (Zhang et al., OSDI'16 §3).
const DefaultStep = 2 * time.Minute

// SeriesOptions control how usage samples become series.
type SeriesOptions struct {
	// Step is the grid step; 0 means DefaultStep. When the data is sampled
	// more coarsely than Step (e.g. Azure's 5 minutes), the step becomes the
	// data's typical sampling interval instead, so the grid has no
	// systematic empty slots.
	Step time.Duration
}

// SeriesBuilder turns a stream of usage samples into one average-server
// series per tenant, on a grid anchored at the Unix epoch (slot =
// floor(time / step)), so every tenant's slots line up. Per slot, each
// server's samples are averaged first (duplicates count once), then the
// servers are averaged. Rows may come in any order; a server whose samples
// for one slot are split by samples of other slots of the same server
// counts once per run of samples in that slot (an approximation that costs
// nothing on time-ordered data and a little weight on the rest).
//
// Memory is 8 bytes per tenant-slot between the first and last sample of
// each tenant, held in chunks of chunkSlots slots so that growing a
// tenant never copies or over-allocates more than a chunk.
type SeriesBuilder struct {
	stepMs  int64
	tenants map[string]int32
	accs    []*tenantAcc
	servers map[string]int32 // tenant NUL server → id
	srv     []serverAcc
	// per-batch dictionary caches
	prevT, prevS []string
	mapT, mapS   []int32
	// AddBatch folds rows in parallel, each worker owning the servers
	// (and tenants) of one part; part is per server id, sid per row.
	parts int
	part  []uint8
	slabs []*chunkSlab // one per part: a part's worker allocates from its own
	sid   []int32
}

type tenantAcc struct {
	name    string
	first   int64    // chunk number (slot / chunkSlots) of chunks[0]
	chunks  []*chunk // nil where no sample fell
	servers int32
	slab    *chunkSlab // where its chunks come from: its part's
}

// chunkSlots is the grid slots per accumulator chunk (1.4 days at 2
// minutes, 8 KB).
const chunkSlots = 1024

// chunk holds per-slot sums and server counts packed in one word (slotAcc,
// partial.go): 8 bytes a slot, as a float32 sum beside a count took, but
// the sum is exact, so a slot's value does not depend on the order its
// servers were added in (nor on how the rows were split between builders
// whose Partials are merged). On time-ordered data every sample lands in
// another tenant's chunk, and one cache line per sample is what the build
// costs at 10,000 tenants.
type chunk [chunkSlots]slotAcc

type serverAcc struct {
	tenant int32
	n      int32
	slot   int64
	sum    float64
	// the tenant's chunk that holds slot, cached: chunkNo is its number
	chunk   *chunk
	chunkNo int64
}

const noSlot = math.MinInt64

// NewSeriesBuilder returns a builder with the given (already decided) step.
func NewSeriesBuilder(step time.Duration) *SeriesBuilder {
	if step <= 0 {
		step = DefaultStep
	}
	return &SeriesBuilder{stepMs: step.Milliseconds(), tenants: map[string]int32{}, servers: map[string]int32{},
		parts: min(runtime.GOMAXPROCS(0), 256)}
}

// Step returns the builder's grid step.
func (b *SeriesBuilder) Step() time.Duration { return time.Duration(b.stepMs) * time.Millisecond }

// Add adds one sample. Samples with an unknown time or a CPU value that is
// NaN or outside [0,1] are ignored (ingest rejects them before they reach
// the dataset; this is a guard, not the place that reports them).
func (b *SeriesBuilder) Add(tenant, server string, timeMs int64, cpu float64) {
	t := b.tenantID(tenant)
	s := b.serverID(t, server)
	b.add(s, timeMs, cpu)
}

func (b *SeriesBuilder) tenantID(name string) int32 {
	id, ok := b.tenants[name]
	if !ok {
		name = strings.Clone(name)
		id = int32(len(b.accs))
		b.tenants[name] = id
		for len(b.slabs) < max(b.parts, 1) {
			b.slabs = append(b.slabs, &chunkSlab{})
		}
		b.accs = append(b.accs, &tenantAcc{name: name, slab: b.slabs[b.tenantPart(id)]})
	}
	return id
}

func (b *SeriesBuilder) serverID(t int32, server string) int32 {
	key := b.accs[t].name + "\x00" + server
	id, ok := b.servers[key]
	if !ok {
		id = int32(len(b.srv))
		b.servers[key] = id
		b.srv = append(b.srv, serverAcc{tenant: t, slot: noSlot})
		// Blocks of 64 tenants per part keep neighbouring serverAccs in
		// one part (no false sharing between workers).
		b.part = append(b.part, uint8(b.tenantPart(t)))
		b.accs[t].servers++
	}
	return id
}

func (b *SeriesBuilder) add(s int32, timeMs int64, cpu float64) {
	if timeMs == dataset.NoTime || !(cpu >= 0 && cpu <= 1) {
		return
	}
	sa := &b.srv[s]
	var slot int64
	if sa.slot != noSlot {
		// Most samples fall in their server's current or next slot:
		// no division for them.
		switch d := timeMs - sa.slot*b.stepMs; {
		case d >= 0 && d < b.stepMs:
			sa.sum += cpu
			sa.n++
			return
		case d >= b.stepMs && d < 2*b.stepMs:
			slot = sa.slot + 1
		default:
			slot = floorDiv(timeMs, b.stepMs)
		}
	} else {
		slot = floorDiv(timeMs, b.stepMs)
	}
	b.flush(sa)
	sa.slot, sa.sum, sa.n = slot, cpu, 1
}

// tenantPart is the part whose worker folds tenant t's rows.
func (b *SeriesBuilder) tenantPart(t int32) int { return int(t>>6) % max(b.parts, 1) }

// flush moves a server's finished slot into its tenant's sums.
func (b *SeriesBuilder) flush(sa *serverAcc) {
	if sa.n == 0 {
		return
	}
	k := sa.slot >> chunkShift
	if sa.chunk == nil || sa.chunkNo != k {
		sa.chunk, sa.chunkNo = b.accs[sa.tenant].chunk(k), k
	}
	j := sa.slot & (chunkSlots - 1)
	// Entering a line, ask for the next one: on time-ordered data each
	// tenant fills its chunk a line at a time, in turn with every other
	// tenant, and the line was written last when its slab was cleared, so
	// the read below missed every cache once per line. Further ahead than
	// one line, 10,000 tenants' lines no longer fit the L2 cache.
	if j&7 == 0 && j+8 < chunkSlots {
		prefetch.Line(unsafe.Pointer(&sa.chunk[j+8]))
	}
	sa.chunk[j].add(sa.sum / float64(sa.n))
	sa.n = 0
}

const chunkShift = 10 // log2(chunkSlots)

// chunkSlab hands out chunks carved from larger allocations, each one
// cache line after the previous one's end. Chunks allocated on their own
// are 8 KB-aligned, so on time-ordered data the slot every tenant is
// filling sits at the same offset in each tenant's chunk, and all those
// lines fall in the few cache sets that offset selects: at 10,000 tenants
// nearly every sample missed both private caches. Staggered by a line per
// chunk, the lines spread over every set.
type chunkSlab struct{ free []slotAcc }

// slabChunks is the chunks per slab allocation (1 MB): enough that their
// lines cover every set of a 2 MB cache, few enough that a slab, freed
// only with its last chunk, does not keep many tenants' chunks alive once
// their series are out.
const slabChunks = 128

// chunkStride is a chunk and one cache line, in slots.
const chunkStride = chunkSlots + 8

// pageSlots is the slots in a 4 KB page.
const pageSlots = 4096 / 8

func (s *chunkSlab) chunk() *chunk {
	if len(s.free) < chunkSlots {
		s.free = make([]slotAcc, slabChunks*chunkStride)
		// Write each page of the new slab before its sums are read: a
		// fresh page that is read first maps the zero page and faults
		// again at the first write; at 10,000 tenants that second fault
		// was 420,000 of a first classify's million, each dear on a
		// virtual machine. One word a page does it (make's memory is
		// zero already); clearing every word cost a fifth more.
		for i := 0; i < len(s.free); i += pageSlots {
			s.free[i] = 0
		}
	}
	c := (*chunk)(s.free[:chunkSlots])
	s.free = s.free[min(chunkStride, len(s.free)):]
	return c
}

// chunk returns the tenant's chunk number k, allocating it (and widening
// the chunk list at either end) when needed.
func (a *tenantAcc) chunk(k int64) *chunk {
	if len(a.chunks) == 0 {
		a.first = k
		a.chunks = append(a.chunks, nil)
	}
	if k < a.first {
		grow := int(a.first - k)
		a.chunks = append(make([]*chunk, grow, grow+len(a.chunks)), a.chunks...)
		a.first = k
	}
	i := int(k - a.first)
	for i >= len(a.chunks) {
		a.chunks = append(a.chunks, nil)
	}
	c := a.chunks[i]
	if c == nil {
		c = a.slab.chunk()
		a.chunks[i] = c
	}
	return c
}

// span returns the first and last slot holding a sample (ok false when
// none does). A chunk exists only where a sample fell, so only the first
// and the last chunk are searched.
func (a *tenantAcc) span() (lo, hi int64, ok bool) {
	first, last := -1, -1
	for ci, c := range a.chunks {
		if c != nil {
			if first < 0 {
				first = ci
			}
			last = ci
		}
	}
	if first < 0 {
		return 0, 0, false
	}
	lo, hi = math.MaxInt64, math.MinInt64
	for j := range a.chunks[first] {
		if a.chunks[first][j] != 0 {
			lo = (a.first+int64(first))<<chunkShift + int64(j)
			break
		}
	}
	for j := chunkSlots - 1; j >= 0; j-- {
		if a.chunks[last][j] != 0 {
			hi = (a.first+int64(last))<<chunkShift + int64(j)
			break
		}
	}
	return lo, hi, lo <= hi
}

// AddBatch adds a column-wise batch of usage rows; dictionaries equal to
// the previous batch's reuse their id mappings.
func (b *SeriesBuilder) AddBatch(ub *dataset.UsageBatch) {
	if !equalStrings(ub.Tenants, b.prevT) {
		b.mapT = b.mapT[:0]
		for _, s := range ub.Tenants {
			b.mapT = append(b.mapT, b.tenantID(s))
		}
		b.prevT = cloneStrings(ub.Tenants)
		b.prevS = nil // server ids depend on the tenant too
	}
	if !equalStrings(ub.Servers, b.prevS) {
		b.mapS = b.mapS[:0]
		for range ub.Servers {
			b.mapS = append(b.mapS, -1) // resolved lazily: the pair needs a row's tenant
		}
		b.prevS = cloneStrings(ub.Servers)
	}
	for lo := 0; lo < ub.Len; lo += foldRows {
		hi := min(lo+foldRows, ub.Len)
		view := *ub
		view.Len = hi - lo
		view.TenantIdx, view.ServerIdx = ub.TenantIdx[lo:hi], ub.ServerIdx[lo:hi]
		view.TimeMs, view.CPU = ub.TimeMs[lo:hi], ub.CPU[lo:hi]
		b.fold(&view)
	}
}

// foldRows is the rows AddBatch folds at a time: the parts' workers each
// read every row's server id, time and value, so a range of rows small
// enough for the cache is read from memory once rather than once per part
// (a usage row group is up to a million rows, 20 MB of them).
var foldRows = 1 << 17 // a variable for the tests

// fold adds rows whose dictionaries AddBatch has mapped.
func (b *SeriesBuilder) fold(ub *dataset.UsageBatch) {
	b.sid = slices.Grow(b.sid[:0], ub.Len)[:ub.Len]
	b.serverIDs(ub)
	if b.parts <= 1 || ub.Len < 1<<14 {
		for i, s := range b.sid {
			b.add(s, ub.TimeMs[i], ub.CPU[i])
		}
		return
	}
	// Each part's rows in table order, so results do not depend on the
	// number of parts.
	var wg sync.WaitGroup
	for k := 0; k < b.parts; k++ {
		wg.Add(1)
		go func(k uint8) {
			defer wg.Done()
			for i, s := range b.sid {
				if b.part[s] == k {
					b.add(s, ub.TimeMs[i], ub.CPU[i])
				}
			}
		}(uint8(k))
	}
	wg.Wait()
}

// serverIDs sets sid, each row's server id. The rows are looked up in
// parts on the builder's workers, each only finding servers the builder
// already knows (the lookups were a serial pass that left a core idle on
// every batch); the rows left, whose server is new or whose server name
// last went with another tenant (a machine shared by tenants), then get
// theirs through serverID in row order, which gives every new server the
// id the serial pass would.
func (b *SeriesBuilder) serverIDs(ub *dataset.UsageBatch) {
	look := func(lo, hi int) (left bool) {
		tIdx, sIdx, sid := ub.TenantIdx[lo:hi], ub.ServerIdx[lo:hi], b.sid[lo:hi]
		for i := range sid {
			t := b.mapT[tIdx[i]]
			s := b.mapS[sIdx[i]]
			if s < 0 || b.srv[s].tenant != t {
				s, left = -1, true
			}
			sid[i] = s
		}
		return left
	}
	var left bool
	if n := ub.Len; b.parts <= 1 || n < 1<<14 {
		left = look(0, n)
	} else {
		lefts := make([]bool, b.parts)
		var wg sync.WaitGroup
		for k := range lefts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				lefts[k] = look(n*k/b.parts, n*(k+1)/b.parts)
			}()
		}
		wg.Wait()
		left = slices.Contains(lefts, true)
	}
	if !left {
		return
	}
	for i, s := range b.sid {
		if s >= 0 {
			continue
		}
		t := b.mapT[ub.TenantIdx[i]]
		si := ub.ServerIdx[i]
		if s = b.mapS[si]; s < 0 || b.srv[s].tenant != t {
			s = b.serverID(t, ub.Servers[si])
			b.mapS[si] = s
		}
		b.sid[i] = s
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) || a == nil || b == nil {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func cloneStrings(a []string) []string {
	out := make([]string, len(a))
	for i, s := range a {
		out[i] = strings.Clone(s)
	}
	return out
}

// Series returns every tenant's series, sorted by tenant; NaN marks a slot
// without samples. The builder is spent afterwards. Tenants are turned into
// series on GOMAXPROCS workers, each tenant's chunks let go once its
// series is made.
func (b *SeriesBuilder) Series() []dataset.Series {
	for i := range b.srv {
		b.flush(&b.srv[i])
	}
	b.srv = nil // its cached chunk pointers would keep every chunk alive
	all := make([]dataset.Series, len(b.accs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < max(b.parts, 1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(b.accs); i = int(next.Add(1) - 1) {
				all[i] = b.series(b.accs[i])
			}
		}()
	}
	wg.Wait()
	out := all[:0]
	for _, s := range all {
		if s.Values != nil {
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tenant < out[j].Tenant })
	return out
}

// series makes a tenant's series from its chunks and drops them; Values
// is nil for a tenant without a sample.
func (b *SeriesBuilder) series(a *tenantAcc) dataset.Series {
	lo, hi, ok := a.span()
	if !ok {
		return dataset.Series{}
	}
	vals := make([]float64, hi-lo+1)
	// Chunk by chunk: the slots of one are contiguous.
	for k := 0; k < len(vals); {
		slot := lo + int64(k)
		j := int(slot & (chunkSlots - 1))
		dst := vals[k:min(len(vals), k+chunkSlots-j)]
		if c := a.chunks[slot>>chunkShift-a.first]; c != nil {
			for i, acc := range c[j : j+len(dst)] {
				dst[i] = acc.value()
			}
		} else {
			for i := range dst {
				dst[i] = math.NaN()
			}
		}
		k += len(dst)
	}
	slotOf := func(k int) slotAcc {
		slot := lo + int64(k)
		if c := a.chunks[slot>>chunkShift-a.first]; c != nil {
			return c[slot&(chunkSlots-1)]
		}
		return 0
	}
	thin := thinTail(len(vals), func(k int) int { return slotOf(k).count() }, b.stepMs)
	a.chunks = nil
	return dataset.Series{Tenant: a.name, StartMs: lo * b.stepMs,
		StepS: float64(b.stepMs) / 1000, Values: vals, Servers: a.servers, ThinTail: thin}
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// BatchStep is the grid step BuildSeries uses when ub is the first batch
// of the usage table: step (0: DefaultStep), or the data's own sampling
// interval when that is coarser (the upper median gap between consecutive
// samples of a server, to the second). A distributed runner calls it on
// the first batch of its first input to choose the step every shard uses.
func BatchStep(ub *dataset.UsageBatch, step time.Duration) time.Duration {
	if step <= 0 {
		step = DefaultStep
	}
	if data := time.Duration(batchGap(ub)) * time.Millisecond; data > step {
		step = data.Round(time.Second)
	}
	return step
}

// batchGap is the upper median gap between consecutive samples of each
// server (a tenant and server pair) of a batch, gaps of zero left out,
// or 0 when there are fewer than 8 gaps: the median of measured gaps,
// never the mean of two, so a step is always an interval the data has.
// It runs on the first batch before any worker starts, so the last time
// of a pair is kept per server id of the batch rather than in a map, and
// only a pair whose server id came first with another tenant (a machine
// shared by tenants, as in Google's traces) goes to a map.
func batchGap(ub *dataset.UsageBatch) int64 {
	type seen struct {
		tenant int32 // -1: no sample yet
		ms     int64
	}
	last := make([]seen, len(ub.Servers))
	for i := range last {
		last[i].tenant = -1
	}
	var shared map[[2]int32]int64
	gaps := make([]int64, 0, ub.Len)
	for i := 0; i < ub.Len; i++ {
		ms := ub.TimeMs[i]
		if ms == dataset.NoTime {
			continue
		}
		ti, si := ub.TenantIdx[i], ub.ServerIdx[i]
		var prev int64
		var ok bool
		if l := &last[si]; l.tenant == ti || l.tenant < 0 {
			prev, ok = l.ms, l.tenant >= 0
			l.tenant, l.ms = ti, ms
		} else {
			if shared == nil {
				shared = map[[2]int32]int64{}
			}
			key := [2]int32{ti, si}
			prev, ok = shared[key]
			shared[key] = ms
		}
		if ok && ms != prev {
			gaps = append(gaps, max(ms-prev, prev-ms))
		}
	}
	if len(gaps) < 8 {
		return 0
	}
	return quantile.UpperMedian(gaps)
}

// BuildSeries reads the dataset's usage table once and returns the series
// of every tenant, and the step it used. The step is opts.Step, or the
// data's own sampling interval when that is coarser (measured on the first
// batch of the table).
func BuildSeries(ctx context.Context, ds *dataset.Dataset, opts SeriesOptions) ([]dataset.Series, time.Duration, error) {
	step := opts.Step
	if step <= 0 {
		step = DefaultStep
	}
	// One scan: the first batch sets the step, then joins the series.
	var b *SeriesBuilder
	err := dataset.ScanUsageBatches(ctx, ds, func(ub *dataset.UsageBatch) error {
		if b == nil {
			step = BatchStep(ub, step)
			b = NewSeriesBuilder(step)
		}
		b.AddBatch(ub)
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	if b == nil {
		b = NewSeriesBuilder(step)
	}
	return b.Series(), step, nil
}
