package fft

import (
	"context"
	"errors"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// DefaultStep is the grid step of the average-server series: the sampling
// interval of the paper's AutoPilot data (seed 000 §3).
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
// each tenant.
type SeriesBuilder struct {
	stepMs  int64
	tenants map[string]int32
	accs    []*tenantAcc
	servers map[string]int32 // tenant NUL server → id
	srv     []serverAcc
	// per-batch dictionary caches
	prevT, prevS []string
	mapT, mapS   []int32
}

type tenantAcc struct {
	name    string
	base    int64 // slot of sum[0]
	sum     []float32
	cnt     []uint32
	servers int32
}

type serverAcc struct {
	tenant int32
	slot   int64
	sum    float64
	n      int32
}

const noSlot = math.MinInt64

// errEnough stops the scan that samples the data's sampling interval.
var errEnough = errors.New("fft: enough samples")

// NewSeriesBuilder returns a builder with the given (already decided) step.
func NewSeriesBuilder(step time.Duration) *SeriesBuilder {
	if step <= 0 {
		step = DefaultStep
	}
	return &SeriesBuilder{stepMs: step.Milliseconds(), tenants: map[string]int32{}, servers: map[string]int32{}}
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
		b.accs = append(b.accs, &tenantAcc{name: name})
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
		b.accs[t].servers++
	}
	return id
}

func (b *SeriesBuilder) add(s int32, timeMs int64, cpu float64) {
	if timeMs == dataset.NoTime || !(cpu >= 0 && cpu <= 1) {
		return
	}
	slot := floorDiv(timeMs, b.stepMs)
	sa := &b.srv[s]
	if sa.slot == slot {
		sa.sum += cpu
		sa.n++
		return
	}
	b.flush(sa)
	sa.slot, sa.sum, sa.n = slot, cpu, 1
}

// flush moves a server's finished slot into its tenant's sums.
func (b *SeriesBuilder) flush(sa *serverAcc) {
	if sa.n == 0 {
		return
	}
	a := b.accs[sa.tenant]
	i := a.index(sa.slot)
	a.sum[i] += float32(sa.sum / float64(sa.n))
	a.cnt[i]++
	sa.n = 0
}

// index returns the position of slot in the tenant's arrays, growing them
// (at either end) when needed.
func (a *tenantAcc) index(slot int64) int {
	if len(a.sum) == 0 {
		a.base = slot
		a.sum = make([]float32, 1, 1024)
		a.cnt = make([]uint32, 1, 1024)
		return 0
	}
	if slot < a.base {
		grow := int(a.base - slot)
		sum := make([]float32, grow+len(a.sum), grow+cap(a.sum))
		cnt := make([]uint32, grow+len(a.cnt), grow+cap(a.cnt))
		copy(sum[grow:], a.sum)
		copy(cnt[grow:], a.cnt)
		a.sum, a.cnt, a.base = sum, cnt, slot
		return 0
	}
	i := int(slot - a.base)
	if i >= len(a.sum) {
		if i < cap(a.sum) {
			a.sum = a.sum[:i+1]
			a.cnt = a.cnt[:i+1]
		} else {
			n := max(i+1, 2*cap(a.sum))
			sum := make([]float32, i+1, n)
			cnt := make([]uint32, i+1, n)
			copy(sum, a.sum)
			copy(cnt, a.cnt)
			a.sum, a.cnt = sum, cnt
		}
	}
	return i
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
	for i := 0; i < ub.Len; i++ {
		t := b.mapT[ub.TenantIdx[i]]
		si := ub.ServerIdx[i]
		s := b.mapS[si]
		if s < 0 || b.srv[s].tenant != t {
			s = b.serverID(t, ub.Servers[si])
			b.mapS[si] = s
		}
		b.add(s, ub.TimeMs[i], ub.CPU[i])
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
// without samples. The builder is spent afterwards.
func (b *SeriesBuilder) Series() []dataset.Series {
	for i := range b.srv {
		b.flush(&b.srv[i])
	}
	out := make([]dataset.Series, 0, len(b.accs))
	for _, a := range b.accs {
		if len(a.sum) == 0 {
			continue
		}
		vals := make([]float64, len(a.sum))
		for i, c := range a.cnt {
			if c == 0 {
				vals[i] = math.NaN()
			} else {
				// Sums are float32 to halve the memory of 216 M slots;
				// round away their last digits (1e-7 of a server).
				vals[i] = math.Round(float64(a.sum[i])/float64(c)*1e6) / 1e6
			}
		}
		out = append(out, dataset.Series{Tenant: a.name, StartMs: a.base * b.stepMs,
			StepS: float64(b.stepMs) / 1000, Values: vals, Servers: a.servers})
		a.sum, a.cnt = nil, nil
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tenant < out[j].Tenant })
	return out
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// sampleStep returns the typical sampling interval of a stream of samples:
// the median gap between consecutive samples of the same server. Zero when
// there are too few to say.
type stepSampler struct {
	last map[string]int64
	gaps []int64
}

func (s *stepSampler) add(key string, timeMs int64) {
	if s.last == nil {
		s.last = map[string]int64{}
	}
	if prev, ok := s.last[key]; ok {
		if d := timeMs - prev; d > 0 {
			s.gaps = append(s.gaps, d)
		} else if d < 0 {
			s.gaps = append(s.gaps, -d)
		}
	}
	s.last[key] = timeMs
}

func (s *stepSampler) median() int64 {
	if len(s.gaps) < 8 {
		return 0
	}
	sort.Slice(s.gaps, func(i, j int) bool { return s.gaps[i] < s.gaps[j] })
	return s.gaps[len(s.gaps)/2]
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
	var ss stepSampler
	err := dataset.ScanUsageBatches(ctx, ds, func(ub *dataset.UsageBatch) error {
		for i := 0; i < ub.Len; i++ {
			if ub.TimeMs[i] != dataset.NoTime {
				ss.add(ub.Tenants[ub.TenantIdx[i]]+"\x00"+ub.Servers[ub.ServerIdx[i]], ub.TimeMs[i])
			}
		}
		return errEnough
	})
	if err != nil && !errors.Is(err, errEnough) {
		return nil, 0, err
	}
	if data := time.Duration(ss.median()) * time.Millisecond; data > step {
		step = data.Round(time.Second)
	}
	b := NewSeriesBuilder(step)
	err = dataset.ScanUsageBatches(ctx, ds, func(ub *dataset.UsageBatch) error {
		b.AddBatch(ub)
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return b.Series(), step, nil
}
