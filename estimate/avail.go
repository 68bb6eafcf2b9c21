package estimate

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/classify"
	"github.com/wlprof/wlprof/dataset"
)

const day = 86400.0

// ReadAvailability reads a daily profile: CSV rows start_s,slots (a
// header line is skipped), start_s seconds after UTC midnight, in
// [0, 86400), ascending; the profile repeats every day.
func ReadAvailability(path string) (*Availability, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = 2
	cr.Comment = '#'
	var starts, slots []float64
	var errs []error
	for line := 1; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		s, err1 := strconv.ParseFloat(strings.TrimSpace(rec[0]), 64)
		n, err2 := strconv.ParseFloat(strings.TrimSpace(rec[1]), 64)
		if err1 != nil || err2 != nil {
			if line == 1 && len(starts) == 0 {
				continue // header
			}
			errs = append(errs, fmt.Errorf("line %d: %q,%q: want start_s,slots numbers", line, rec[0], rec[1]))
			continue
		}
		if !(s >= 0 && s < day) {
			errs = append(errs, fmt.Errorf("line %d: start_s %g: want seconds after midnight in [0, 86400)", line, s))
			continue
		}
		starts, slots = append(starts, s), append(slots, n)
	}
	if len(errs) == 0 && len(starts) == 0 {
		errs = append(errs, errors.New("no start_s,slots rows"))
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s: %w", path, errors.Join(errs...))
	}
	if starts[0] != 0 { // the day starts with the step that wraps around
		starts = append([]float64{0}, starts...)
		slots = append([]float64{slots[len(slots)-1]}, slots...)
	}
	a, err := NewAvailability(starts, slots, day)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// foldAvailability is Ω over the UTC day from the periodic tenants: per
// bin, Σ servers·(1 − reserve) less Σ servers·(the tenant's mean usage in
// the bin), in slots (doc.go). The series and which tenants are periodic
// are the classify stage's, through its public surface: classify.Load
// (whose series step builds and stores the series table when it is
// missing or stale, as wlprof classify does) and classify.Run.
func foldAvailability(ctx context.Context, ds *dataset.Dataset, opts Options) (*Availability, []string, []string, error) {
	cin, err := classify.Load(ctx, ds, opts.Classify)
	if err != nil {
		return nil, nil, nil, err
	}
	periodic := map[string]bool{}
	switch cres, err := classify.Run(ctx, cin, opts.Classify); {
	case errors.Is(err, classify.ErrNoSeries):
	case err != nil:
		return nil, nil, nil, err
	default:
		for _, t := range cres.Tenants {
			periodic[t.Tenant] = t.Pattern == classify.Periodic
		}
	}
	series, err := cin.AllSeries(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	binS := opts.AvailabilityStep.Seconds()
	bins := int(day / binS)
	cpu := make([]float64, bins)
	capacity := 0.0
	var tenants, warn []string
	for i := range series {
		s := &series[i]
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		if !periodic[s.Tenant] {
			continue
		}
		sum := make([]float64, bins)
		cnt := make([]int, bins)
		all, nall := 0.0, 0
		for k, v := range s.Values {
			if math.IsNaN(v) {
				continue
			}
			t := float64(s.StartMs)/1000 + float64(k)*s.StepS
			b := int(math.Mod(math.Mod(t, day)+day, day) / binS)
			sum[b] += v
			cnt[b]++
			all += v
			nall++
		}
		if nall == 0 {
			continue
		}
		servers := float64(max(s.Servers, 1))
		empty := 0
		for b := range cpu {
			u := all / float64(nall)
			if cnt[b] > 0 {
				u = sum[b] / float64(cnt[b])
			} else {
				empty++
			}
			cpu[b] -= servers * u
		}
		if empty > 0 {
			warn = append(warn, fmt.Sprintf("tenant %s has no sample in %d of the %d bins of the day: its mean usage stands in", s.Tenant, empty, bins))
		}
		capacity += servers * (1 - opts.Reserve)
		tenants = append(tenants, s.Tenant)
	}
	if len(tenants) == 0 {
		return nil, nil, append(warn, "no periodic tenant in the usage: no availability, so s_fit is not computed (give --availability)"), nil
	}
	sort.Strings(tenants)
	var mem []float64
	if opts.SlotMemory > 0 {
		servers := map[string]float64{}
		for i := range series {
			servers[series[i].Tenant] = float64(max(series[i].Servers, 1))
		}
		m, mwarn, err := foldMemory(ctx, ds, tenants, servers, bins, binS)
		if err != nil {
			return nil, nil, nil, err
		}
		mem, warn = m, append(warn, mwarn...)
	}
	starts := make([]float64, bins)
	slots := make([]float64, bins)
	for b := range cpu {
		starts[b] = float64(b) * binS
		n := math.Floor(math.Max(capacity+cpu[b], 0)/opts.SlotCPU + 1e-9)
		if opts.SlotMemory > 0 {
			n = math.Min(n, math.Floor(math.Max(capacity+mem[b], 0)/opts.SlotMemory+1e-9))
		}
		slots[b] = n
	}
	a, err := NewAvailability(starts, slots, day)
	return a, tenants, warn, err
}

// foldMemory is the memory the periodic tenants use over the UTC day,
// from the usage table's memory column: per bin, −Σ servers · (the
// tenant's mean memory over its samples in the bin), as foldAvailability
// does for CPU (so capacity + the result is the memory left). A tenant
// with no memory samples subtracts nothing, and a warning says so; bins
// without a sample take the tenant's mean over the day.
func foldMemory(ctx context.Context, ds *dataset.Dataset, tenants []string, servers map[string]float64, bins int, binS float64) ([]float64, []string, error) {
	idx := make(map[string]int, len(tenants))
	for i, t := range tenants {
		idx[t] = i
	}
	sum := make([][]float64, len(tenants))
	cnt := make([][]int, len(tenants))
	for i := range tenants {
		sum[i], cnt[i] = make([]float64, bins), make([]int, bins)
	}
	n := 0
	err := dataset.Scan(ctx, ds, dataset.UsageTable, func(u *dataset.Usage) error {
		i, ok := idx[u.Tenant]
		if !ok || math.IsNaN(u.Memory) {
			return nil
		}
		if n++; n&0xffff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		t := float64(u.TimeMs) / 1000
		b := min(int(math.Mod(math.Mod(t, day)+day, day)/binS), bins-1)
		sum[i][b] += u.Memory
		cnt[i][b]++
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	mem := make([]float64, bins)
	var none []string
	for i, t := range tenants {
		all, nall := 0.0, 0
		for b := range sum[i] {
			all += sum[i][b]
			nall += cnt[i][b]
		}
		if nall == 0 {
			none = append(none, t)
			continue
		}
		for b := range mem {
			m := all / float64(nall)
			if cnt[i][b] > 0 {
				m = sum[i][b] / float64(cnt[i][b])
			}
			mem[b] -= servers[t] * m
		}
	}
	var warn []string
	if len(none) > 0 {
		warn = append(warn, fmt.Sprintf("%d periodic tenant(s) have no memory samples (%s): their memory use is taken as 0 in Ω's memory bound", len(none), strings.Join(none, ", ")))
	}
	return mem, warn, nil
}
