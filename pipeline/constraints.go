package pipeline

import (
	"context"
	"fmt"
	"math"

	"github.com/wlprof/wlprof/constraints"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/reports"
)

// addConstraints, when o.Constraints is set, runs the constraints stage
// as wlprof constraints does and keeps what the report's section shows.
func (r *reportInput) addConstraints(ctx context.Context, ds *dataset.Dataset, o Options) error {
	if o.Constraints == nil {
		r.note(reports.StageConstraints, "Not asked for: --constraints profiles the tasks' placement constraints (Thinakaran et al., Phoenix §3): demand over supply per attribute and an M/G/1 wait per constraint against the trace's.")
		return nil
	}
	if ds.Rows(dataset.TaskEventsTable.Name) == 0 {
		r.note(reports.StageConstraints, "No task events in the dataset: ingest google2019-instance-events or google2011-task-events (with task constraints and machine attributes).")
		return nil
	}
	var res *constraints.Result
	err := r.around(reports.StageConstraints, func() error {
		in, err := constraints.Load(ctx, ds, *o.Constraints)
		if err != nil {
			return err
		}
		res, err = constraints.Run(ctx, in, *o.Constraints)
		return err
	})
	if err != nil {
		return fmt.Errorf("constraints: %w", err)
	}
	c := &reports.Constraints{WindowS: res.WindowS, Start: res.Start, Rules: res.Rules, Warnings: res.Warnings,
		Summary: fmt.Sprintf("%d tasks, %d of them constrained, %d distinct constraints on %d attributes, %d machines with attributes.",
			res.Tasks, res.ConstrainedTasks, len(res.Constraints), len(res.Attributes), res.Machines)}
	for _, k := range res.Constraints {
		c.Rows = append(c.Rows, reports.ConstraintRow{Attribute: k.Attribute, Relation: k.Relation, Value: k.Value, Tasks: k.Tasks,
			Hard: k.Hard, Machines: k.Machines, Rho: k.Rho, PredictedS: k.PredictedWaitS, ObservedS: k.ObservedWaitS, Fit: k.Fit})
	}
	for _, a := range res.Attributes {
		s := reports.CRVSeries{Attribute: a.Attribute, Ratio: make([]float64, len(a.DemandSupply))}
		for i, w := range a.DemandSupply {
			s.Ratio[i] = math.NaN()
			if w.Ratio != nil {
				s.Ratio[i] = *w.Ratio
			}
		}
		c.CRV = append(c.CRV, s)
	}
	r.in.Constraints = c
	return nil
}
