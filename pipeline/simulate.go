package pipeline

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/wlprof/wlprof/internal/timeflag"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/reports"
	"github.com/wlprof/wlprof/simulate"
)

// idleSpan is the makespan past which a history is called spread out.
const idleSpan = 30 * 24 * time.Hour

// seriesPoints is how finely the report draws memory in use over time.
const seriesPoints = 120

// addSimulate runs the simulate stage on o.Simulate's trace with the
// dataset's elasticity models, as wlprof simulate does, on its first
// cluster, and keeps what the report's section shows.
func (r *reportInput) addSimulate(ctx context.Context, ds *dataset.Dataset, o Options) error {
	if o.Simulate == nil {
		r.note(reports.StageSimulate, "No workload to simulate: give a simjobs-csv trace (--simulate-trace FILE), or replay the dataset's job history (--simulate-history), to compare YARN and YARN-ME on a cluster with the elasticity models.")
		return nil
	}
	opts := *o.Simulate
	if len(opts.NodeShapes) == 0 { // the first swept cluster
		opts.Nodes, opts.NodeMemoryBytes = opts.Nodes[:1], opts.NodeMemoryBytes[:1]
	} else {
		opts.NodeShapes = opts.NodeShapes[:1]
	}
	opts.SeriesPoints, opts.TargetMakespan = seriesPoints, 0
	var res *simulate.Result
	err := r.around(reports.StageSimulate, func() error {
		in, err := simulate.Load(ctx, ds, opts)
		if err != nil {
			return err
		}
		res, err = simulate.Run(ctx, in, opts)
		return err
	})
	if err != nil {
		return fmt.Errorf("simulate: %w", err)
	}
	c := res.Cluster
	s := &reports.Simulation{Trace: opts.Trace, Warnings: res.Warnings,
		Cluster: c.Describe()}
	if h := res.Workload; h != nil && h.History != nil {
		s.Trace = fmt.Sprintf("the dataset's job history (%d runs of %d jobs, replayed from %d task attempts)", h.History.Runs, h.History.Jobs, h.History.Attempts)
		for _, j := range res.Jobs {
			if j.Policy == res.Policies[0].Policy && j.ObservedJCTS > 0 {
				s.ObservedJCTS = append(s.ObservedJCTS, j.ObservedJCTS)
			}
		}
	}
	for _, p := range res.Policies {
		sp := reports.SimPolicy{Policy: string(p.Policy), MakespanS: p.MakespanS, MeanJCTS: p.MeanJCTS, MedianJCTS: p.MedianJCTS, P95JCTS: p.P95JCTS,
			MemoryUtilisation: p.MemoryUtilisation, Tasks: p.Tasks, ElasticTasks: p.ElasticTasks}
		for _, j := range res.Jobs {
			if j.Policy == p.Policy {
				sp.JCTS = append(sp.JCTS, j.JCTS)
			}
		}
		var first float64
		if len(p.MemorySeries) > 0 {
			first = p.MemorySeries[0].StartS
		}
		for _, m := range p.MemorySeries {
			sp.MemoryStartS = append(sp.MemoryStartS, m.StartS-first)
			sp.MemoryEndS = append(sp.MemoryEndS, m.EndS-first)
			sp.MemoryUtilSeries = append(sp.MemoryUtilSeries, m.Utilisation)
		}
		s.Policies = append(s.Policies, sp)
	}
	// A history of runs months or years apart keeps the idle time between
	// them: its makespan and utilisation say how far apart the runs were,
	// not how the cluster coped; the JCTs still compare the policies.
	if h := res.Workload; h != nil && h.History != nil && len(res.Policies) > 0 && res.Policies[0].MakespanS > idleSpan.Seconds() {
		s.Warnings = append(s.Warnings, fmt.Sprintf("the history's runs are spread over %s: the makespan and the memory utilisation include the idle time between them, so compare the job completion times instead (or simulate one era of the history)",
			timeflag.FormatSeconds(math.Round(res.Policies[0].MakespanS/86400)*86400)))
	}
	for _, u := range res.Unschedulable {
		s.LeftOut = append(s.LeftOut, reports.Skipped{Stage: reports.StageSimulate, Job: u.Job, Reason: "task " + u.Task + ": " + u.Reason})
	}
	r.in.Simulation = s
	return nil
}
