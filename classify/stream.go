package classify

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/wlprof/wlprof/dataset"
)

// errRebuild: the stored series cannot be used as they are (another step
// was asked for, or the table is not in tenant order); Run
// then goes the way of loadSeries. errOtherStep is the case of another
// step, found on the first group read.
var (
	errRebuild   = errors.New("classify: stored series need rebuilding")
	errOtherStep = fmt.Errorf("%w: stored on another step", errRebuild)
)

// seriesMeta is what headroom needs of a series besides its values.
type seriesMeta struct {
	startMs int64
	n       int
}

// classifyStored classifies the series table in two passes over it,
// holding a few row groups at a time instead of every series (1.7 GB at
// 10,000 tenants × 30 days, which also had to be faulted in): the first
// analyses each tenant as its group is read; K-Means then makes the
// classes; the second adds each series to its class's sums for headroom,
// one group after another in table order, which is tenant order, so the
// sums are made in the order classify makes them and are bit for bit the
// same.
func classifyStored(ctx context.Context, ds *dataset.Dataset, sopts SeriesOptions, opts Options) (*Result, error) {
	o := opts.withDefaults()
	type group struct {
		tenants []Tenant
		meta    []seriesMeta
		steps   []float64
	}
	var mu sync.Mutex
	groups := map[int]*group{}
	wss := make([]*workspace, runtime.GOMAXPROCS(0))
	ngroups, err := dataset.ScanSeries(ctx, ds, func(ctx context.Context, w, g int, rows []dataset.Series) error {
		if wss[w] == nil {
			wss[w] = newWorkspace()
		}
		if sopts.Step > 0 && len(rows) > 0 && !stepMatches(rows[0].StepS, sopts.Step) {
			return errOtherStep // before analysing a whole table for nothing
		}
		out := &group{tenants: make([]Tenant, len(rows)), meta: make([]seriesMeta, len(rows)), steps: make([]float64, len(rows))}
		for i := range rows {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			out.tenants[i] = analyse(&rows[i], &o, wss[w])
			out.meta[i] = seriesMeta{startMs: rows[i].StartMs, n: len(o.upTo(&rows[i]))}
			out.steps[i] = rows[i].StepS
		}
		mu.Lock()
		groups[g] = out
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	var tenants []Tenant
	var meta []seriesMeta
	first := make([]int, ngroups+1) // index of each group's first tenant
	for g := 0; g < ngroups; g++ {
		first[g] = len(tenants)
		tenants = append(tenants, groups[g].tenants...)
		meta = append(meta, groups[g].meta...)
	}
	first[ngroups] = len(tenants)
	if len(tenants) == 0 {
		return nil, ErrNoSeries
	}
	step := groups[0].steps[0]
	for g := 0; g < ngroups; g++ {
		for i, s := range groups[g].steps {
			if s != step || step <= 0 {
				return nil, errStep(groups[g].tenants[i].Tenant, s, step)
			}
		}
	}
	if sopts.Step > 0 && !stepMatches(step, sopts.Step) {
		return nil, errOtherStep
	}
	for i := 1; i < len(tenants); i++ {
		switch a, b := tenants[i-1].Tenant, tenants[i].Tenant; {
		case a == b:
			return nil, errDuplicate(b)
		case a > b:
			return nil, errRebuild // not in tenant order: not a table writeSeries wrote
		}
	}
	res := &Result{StepS: step, Tenants: tenants, Warnings: []string{}}
	res.Classes = cluster(res.Tenants, &o)
	gr := newGrid(step, &o)
	for _, m := range meta {
		gr.span(m.startMs, m.n)
	}
	res.Warnings = append(res.Warnings, gr.place()...)
	accs := newClassAccs(res, gr, &o)
	// The second pass: groups are decoded at once on every worker and
	// added in table order, each waiting for its turn.
	turn := make([]chan struct{}, ngroups+1)
	for g := range turn {
		turn[g] = make(chan struct{})
	}
	close(turn[0])
	n2, err := dataset.ScanSeries(ctx, ds, func(ctx context.Context, _, g int, rows []dataset.Series) error {
		if g >= ngroups || len(rows) != first[g+1]-first[g] {
			return fmt.Errorf("classify: the series table changed while it was read")
		}
		select {
		case <-turn[g]:
		case <-ctx.Done():
			return ctx.Err()
		}
		for i := range rows {
			t := first[g] + i
			if rows[i].Tenant != tenants[t].Tenant {
				return fmt.Errorf("classify: the series table changed while it was read")
			}
			if ci := accs.class[t]; ci >= 0 {
				accs.add(ci, &tenants[t], &rows[i])
			}
		}
		close(turn[g+1])
		return nil
	})
	if err != nil {
		return nil, err
	}
	if n2 != ngroups {
		return nil, fmt.Errorf("classify: the series table changed while it was read")
	}
	for ci := range res.Classes {
		res.Warnings = append(res.Warnings, accs.finish(ci)...)
	}
	res.AtMs = gr.at * gr.stepMs
	return res, nil
}
