package profile

import (
	"errors"
	"fmt"
	"math"
)

// problems collects every problem of a document with its JSON path, so a
// file is refused once with all of them.
type problems []error

func (p *problems) addf(path, format string, a ...any) {
	*p = append(*p, fmt.Errorf("%s: %s", path, fmt.Sprintf(format, a...)))
}

func (p *problems) finite(path string, v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		p.addf(path, "%g is not a finite number", v)
		return false
	}
	return true
}

func (p *problems) nonNeg(path string, v float64) {
	if p.finite(path, v) && v < 0 {
		p.addf(path, "%g is negative", v)
	}
}

func (p *problems) positive(path string, v float64) {
	if p.finite(path, v) && v <= 0 {
		p.addf(path, "%g is not positive", v)
	}
}

func (p *problems) fraction(path string, v float64) {
	if p.finite(path, v) && (v < 0 || v > 1) {
		p.addf(path, "%g is not a fraction in [0,1]", v)
	}
}

func (p *problems) number(path string, n *Number) {
	if n == nil {
		return
	}
	p.finite(path+".value", n.Value)
	switch n.Source {
	case SourceInferred, SourceOverride, SourceMeasured, SourceDefault:
	default:
		p.addf(path+".source", "%q is not inferred, override, measured or default", n.Source)
	}
}

// Validate checks what the schema cannot: finite numbers, fractions,
// lengths that must agree, curves in order. It returns every problem at
// once (errors.Join), each prefixed with its JSON path.
func (j *Job) Validate() error {
	var p problems
	if j.Version != Version {
		p.addf("version", "%d, want %d", j.Version, Version)
	}
	if j.Kind != "job" {
		p.addf("kind", "%q, want \"job\"", j.Kind)
	}
	if j.Job == "" {
		p.addf("job", "empty")
	}
	if j.Identity.Runs < 0 {
		p.addf("identity.runs", "%d is negative", j.Identity.Runs)
	}
	if f, l := j.Identity.FirstStartMs, j.Identity.LastStartMs; f != nil && l != nil && *f > *l {
		p.addf("identity", "first_start_ms %d after last_start_ms %d", *f, *l)
	}
	p.number("period_s", j.PeriodS)
	if j.PeriodS != nil {
		p.positive("period_s.value", j.PeriodS.Value)
	}
	if s := j.SLO; s != nil {
		p.number("slo.arrival_s", s.ArrivalS)
		p.number("slo.deadline_s", s.DeadlineS)
		if s.ArrivalS != nil && s.DeadlineS != nil && s.ArrivalS.Value > s.DeadlineS.Value {
			p.addf("slo", "arrival_s %g after deadline_s %g", s.ArrivalS.Value, s.DeadlineS.Value)
		}
		if s.SlackRatio != nil {
			p.finite("slo.slack_ratio", *s.SlackRatio)
		}
		if !s.Actionable && s.Reason == "" {
			p.addf("slo.reason", "empty, but the SLO is not actionable: say why")
		}
		if s.Runs < 0 {
			p.addf("slo.runs", "%d is negative", s.Runs)
		}
		if s.Override.Applies && s.Override.File == "" {
			p.addf("slo.override.file", "empty, but an override applies")
		}
	}
	if s := j.Skyline; s != nil {
		j.Skyline.validate(&p)
	}
	for i, m := range j.Elasticity {
		m.validate(&p, fmt.Sprintf("elasticity[%d]", i))
	}
	for i, ph := range j.Phases {
		at := fmt.Sprintf("phases[%d]", i)
		if ph.Phase == "" {
			p.addf(at+".phase", "empty")
		}
		if ph.Tasks < 0 || ph.Slots < 0 {
			p.addf(at, "negative tasks or slots")
		}
		p.nonNeg(at+".task_runtime_s", ph.TaskRuntimeS)
		p.fraction(at+".cpu_share", ph.CPUShare)
		p.fraction(at+".io_share", ph.IOShare)
		p.nonNeg(at+".io_capacity_bytes_per_s", ph.IOCapacityBytesPerS)
		p.nonNeg(at+".memory_bytes", ph.MemoryBytes)
	}
	if e := j.Estimate; e != nil {
		if e.SReq < 0 || (e.SFit != nil && *e.SFit < 0) || (e.SReqWaves != nil && *e.SReqWaves < 0) || (e.LateTasks != nil && *e.LateTasks < 0) {
			p.addf("estimate", "negative s_req, s_fit, s_req_waves or late_tasks")
		}
		if e.Rank != nil && *e.Rank < 1 {
			p.addf("estimate.rank", "%d: want 1 or more", *e.Rank)
		}
		for i, ph := range e.Phases {
			at := fmt.Sprintf("estimate.phases[%d]", i)
			if ph.Phase == "" {
				p.addf(at+".phase", "empty")
			}
			if ph.Tasks < 0 || ph.PendingTasks < 0 || ph.SReq < 0 || ph.PendingTasks > ph.Tasks {
				p.addf(at, "tasks %d, pending %d, s_req %d: want counts ≥ 0, pending at most tasks", ph.Tasks, ph.PendingTasks, ph.SReq)
			}
			p.positive(at+".mu_s", ph.MuS)
		}
	}
	if h := j.Harvest; h != nil {
		switch h.JobType {
		case "short", "medium", "long":
		default:
			p.addf("harvest.job_type", "%q: want short, medium or long", h.JobType)
		}
		p.nonNeg("harvest.last_run_s", h.LastRunS)
		p.nonNeg("harvest.short_below_s", h.ShortBelowS)
		p.nonNeg("harvest.long_above_s", h.LongAboveS)
		if h.LongAboveS < h.ShortBelowS {
			p.addf("harvest", "long_above_s %g below short_below_s %g", h.LongAboveS, h.ShortBelowS)
		}
	}
	return errors.Join(p...)
}

func (s *Skyline) validate(p *problems) {
	if s.Runs < 1 {
		p.addf("skyline.runs", "%d, want at least 1", s.Runs)
	}
	p.positive("skyline.step_s", s.StepS)
	p.fraction("skyline.alpha", s.Alpha)
	p.nonNeg("skyline.beta", s.Beta)
	if len(s.Containers) != len(s.Reservation) {
		p.addf("skyline", "%d containers but %d reservation steps", len(s.Containers), len(s.Reservation))
	}
	for k, v := range s.Containers {
		p.nonNeg(fmt.Sprintf("skyline.containers[%d]", k), v)
		if k < len(s.Reservation) && float64(s.Reservation[k]) < v-1e-6 {
			p.addf(fmt.Sprintf("skyline.reservation[%d]", k), "%d is below the skyline %g", s.Reservation[k], v)
		}
	}
	peak := int64(0)
	for _, r := range s.Reservation {
		peak = max(peak, r)
	}
	if peak != s.PeakReservation {
		p.addf("skyline.peak_reservation", "%d, but the reservation peaks at %d", s.PeakReservation, peak)
	}
	end := 0.0
	for i, st := range s.Stages {
		at := fmt.Sprintf("skyline.stages[%d]", i)
		p.positive(at+".duration_s", st.DurationS)
		if st.OffsetS < end-1e-9 {
			p.addf(at+".offset_s", "%g overlaps the previous stage (ends at %g)", st.OffsetS, end)
		}
		if st.Containers < 0 {
			p.addf(at+".containers", "%d is negative", st.Containers)
		}
		end = st.OffsetS + st.DurationS
	}
	p.finite("skyline.objective", s.Objective)
	p.nonNeg("skyline.over_allocation", s.OverAllocation)
	p.nonNeg("skyline.under_allocation", s.UnderAllocation)
	p.nonNeg("skyline.reserved_area_container_s", s.ReservedAreaContainerS)
	p.nonNeg("skyline.used_area_container_s", s.UsedAreaContainerS)
	p.nonNeg("skyline.provisioning_ratio", s.ProvisioningRatio)
	for i, sp := range s.AlphaSweep {
		at := fmt.Sprintf("skyline.alpha_sweep[%d]", i)
		p.fraction(at+".alpha", sp.Alpha)
		p.nonNeg(at+".over_allocation", sp.OverAllocation)
		p.nonNeg(at+".under_allocation", sp.UnderAllocation)
		p.nonNeg(at+".provisioning_ratio", sp.ProvisioningRatio)
	}
}

func (m *ElasticityModel) validate(p *problems, at string) {
	if m.Task == "" {
		p.addf(at+".task", "empty")
	}
	if m.Kind == "" {
		p.addf(at+".kind", "empty")
	}
	p.positive(at+".ideal_memory_bytes", m.IdealMemoryBytes)
	p.nonNeg(at+".ideal_runtime_s", m.IdealRuntimeS)
	for k, v := range m.Params {
		p.finite(at+".params."+k, v)
	}
	prev := 0.0
	for i, c := range m.Curve {
		cat := fmt.Sprintf("%s.curve[%d]", at, i)
		p.positive(cat+".memory_bytes", c.MemoryBytes)
		p.nonNeg(cat+".runtime_s", c.RuntimeS)
		p.nonNeg(cat+".penalty", c.Penalty)
		p.nonNeg(cat+".slowdown", c.Slowdown)
		p.nonNeg(cat+".spilled_bytes", c.SpilledBytes)
		p.nonNeg(cat+".disk_bytes_per_s", c.DiskBytesPerS)
		if c.MemoryBytes <= prev && i > 0 {
			p.addf(cat+".memory_bytes", "%g does not increase (previous %g)", c.MemoryBytes, prev)
		}
		prev = c.MemoryBytes
	}
	if v := m.Validation; v != nil {
		if v.Runs < 0 {
			p.addf(at+".validation.runs", "%d is negative", v.Runs)
		}
		p.nonNeg(at+".validation.mean_abs_error", v.MeanAbsError)
		p.nonNeg(at+".validation.max_abs_error", v.MaxAbsError)
	}
}

// Validate checks tenants.json: patterns known, fractions in [0,1], every
// tenant's class listed with the same pattern, class sizes adding up.
func (t *Tenants) Validate() error {
	var p problems
	if t.Version != Version {
		p.addf("version", "%d, want %d", t.Version, Version)
	}
	if t.Kind != "tenants" {
		p.addf("kind", "%q, want \"tenants\"", t.Kind)
	}
	p.nonNeg("step_s", t.StepS)
	for _, r := range []struct {
		name  string
		order []string
	}{{"short", t.Ranking.Short}, {"medium", t.Ranking.Medium}, {"long", t.Ranking.Long}} {
		for i, pat := range r.order {
			if pat != Periodic && pat != Constant && pat != Unpredictable {
				p.addf(fmt.Sprintf("ranking.%s[%d]", r.name, i), "%q is not a pattern", pat)
			}
		}
	}
	classes := map[string]*Class{}
	for i := range t.Classes {
		c := &t.Classes[i]
		at := fmt.Sprintf("classes[%d]", i)
		if c.Class == "" {
			p.addf(at+".class", "empty")
		} else if classes[c.Class] != nil {
			p.addf(at+".class", "%q listed twice", c.Class)
		}
		classes[c.Class] = c
		if c.Pattern != Periodic && c.Pattern != Constant && c.Pattern != Unpredictable {
			p.addf(at+".pattern", "%q is not periodic, constant or unpredictable", c.Pattern)
		}
		if c.Tenants < 0 {
			p.addf(at+".tenants", "%d is negative", c.Tenants)
		}
		p.fraction(at+".mean", c.Mean)
		p.fraction(at+".peak", c.Peak)
		if c.Mean > c.Peak+1e-9 {
			p.addf(at, "mean %g above peak %g", c.Mean, c.Peak)
		}
		if c.PeriodS != nil {
			p.positive(at+".period_s", *c.PeriodS)
		}
		for _, h := range []struct {
			n string
			v float64
		}{{"headroom.short", c.Headroom.Short}, {"headroom.medium", c.Headroom.Medium}, {"headroom.long", c.Headroom.Long},
			{"weights.short", c.Weights.Short}, {"weights.medium", c.Weights.Medium}, {"weights.long", c.Weights.Long}} {
			p.fraction(at+"."+h.n, h.v)
		}
	}
	count := map[string]int{}
	prev := ""
	for i, tn := range t.Tenants {
		at := fmt.Sprintf("tenants[%d]", i)
		if tn.Tenant == "" {
			p.addf(at+".tenant", "empty")
		} else if i > 0 && tn.Tenant <= prev {
			p.addf(at+".tenant", "%q out of order or repeated (after %q)", tn.Tenant, prev)
		}
		prev = tn.Tenant
		switch tn.Pattern {
		case Periodic, Constant, Unpredictable, Insufficient:
		default:
			p.addf(at+".pattern", "%q is not a pattern", tn.Pattern)
		}
		if tn.Class != "" {
			c := classes[tn.Class]
			switch {
			case c == nil:
				p.addf(at+".class", "%q is not in classes", tn.Class)
			case c.Pattern != tn.Pattern:
				p.addf(at+".class", "%q is a %s class, the tenant is %s", tn.Class, c.Pattern, tn.Pattern)
			}
			count[tn.Class]++
		}
		if tn.PeriodS != nil {
			p.positive(at+".period_s", *tn.PeriodS)
		}
		p.fraction(at+".strength", tn.Strength)
		p.fraction(at+".mean", tn.Mean)
		p.fraction(at+".peak", tn.Peak)
	}
	if len(t.Tenants) > 0 {
		for i, c := range t.Classes {
			if count[c.Class] != c.Tenants {
				p.addf(fmt.Sprintf("classes[%d].tenants", i), "%d, but %d tenants name class %q", c.Tenants, count[c.Class], c.Class)
			}
		}
	}
	return errors.Join(p...)
}
