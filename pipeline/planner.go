package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/wlprof/wlprof/classify"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/harvest"
	"github.com/wlprof/wlprof/internal/bytesize"
	"github.com/wlprof/wlprof/internal/timeflag"
	"github.com/wlprof/wlprof/reports"
	"github.com/wlprof/wlprof/simulate"
)

// PlannerOptions are what the report's answers take beyond the sections.
type PlannerOptions struct {
	// TargetMakespan, when positive, searches the smallest cluster of the
	// simulate section's node shape that runs its workload within it.
	TargetMakespan time.Duration
	// ServerCores, when positive, is the primary tenants' cores per
	// server (else the harvest section's, else harvest's default).
	ServerCores int
	// CapacityContainers, when positive, is the cluster's capacity the
	// reservations' footprint is a share of.
	CapacityContainers int64
	// Dataset names the dataset in the reproducing commands.
	Dataset string
}

// maxSizingNodes bounds the node counts the sizing search tries.
const maxSizingNodes = 1 << 14

// foldDays folds each class's representatives by UTC hour of day: the
// mean utilisation per hour over every representative's samples.
func foldDays(reps []classify.Representative) map[string][]float64 {
	sum := map[string]*[24]float64{}
	n := map[string]*[24]float64{}
	for _, p := range reps {
		s := p.Series
		if s.StepS <= 0 {
			continue
		}
		if sum[p.Class] == nil {
			sum[p.Class], n[p.Class] = &[24]float64{}, &[24]float64{}
		}
		for k, v := range s.Values {
			if math.IsNaN(v) {
				continue
			}
			ms := s.StartMs + int64(math.Round(float64(k)*s.StepS*1000))
			h := int(((ms/3600000)%24 + 24) % 24)
			sum[p.Class][h] += v
			n[p.Class][h]++
		}
	}
	out := map[string][]float64{}
	for c, sm := range sum {
		day := make([]float64, 24)
		ok := true
		for h := range day {
			if n[c][h] == 0 {
				ok = false
				break
			}
			day[h] = sm[h] / n[c][h]
		}
		if ok {
			out[c] = day
		}
	}
	return out
}

// addPlanner fills what the answers need: cores per server, the harvest
// replay's outcome, the cluster sizing and the reproducing commands.
func (r *reportInput) addPlanner(ctx context.Context, ds *dataset.Dataset, o Options) error {
	po := o.Planner
	p := &reports.Planner{ClassDays: r.classDays, CapacityContainers: po.CapacityContainers, Commands: map[string]string{}}
	p.CoresPerServer, p.CoresFrom = harvest.DefaultOptions().Cores, "wlprof harvest's default: the 12-core servers of Zhang et al., OSDI'16 §6 (--server-cores to set)"
	switch {
	case po.ServerCores > 0:
		p.CoresPerServer, p.CoresFrom = po.ServerCores, "--server-cores"
	case o.Harvest != nil && o.Harvest.Cores != harvest.DefaultOptions().Cores:
		p.CoresPerServer, p.CoresFrom = o.Harvest.Cores, "the harvest section's servers"
	}
	d := ""
	if po.Dataset != "" {
		d = " -d " + shellQuote(po.Dataset)
	}
	step := ""
	if o.Skyline.StepS > 0 {
		step = " --step " + timeflag.FormatSeconds(o.Skyline.StepS)
	}
	over := ""
	if o.SLOOverrides != "" {
		over = " --overrides " + shellQuote(o.SLOOverrides)
	}
	p.Commands["plan"] = "wlprof plan" + d + step + over
	p.Commands["skyline"] = "wlprof skyline" + d + step
	p.Commands["elasticity"] = "wlprof elasticity" + d
	if o.Harvest != nil {
		p.Commands["harvest"] = "wlprof harvest" + d + " --workload " + o.Harvest.Workload
		if o.Harvest.Window == 0 {
			p.Commands["harvest"] += " --window 0"
		}
	}
	if err := addKubernetes(ctx, ds, o, p, d+step); err != nil {
		return err
	}
	if t := r.in.Tenants; p.Platform == reports.PlatformKubernetes && t != nil && t.File != nil && len(t.File.Classes) > 0 {
		own := po.ServerCores <= 0 && (o.Harvest == nil || o.Harvest.Cores == harvest.DefaultOptions().Cores)
		ns, err := nodeSpare(ctx, ds, t.File, p, own)
		if err != nil {
			return err
		}
		p.NodeSpare = ns
	}
	p.HarvestRuns, p.HarvestWindow = r.harvestRuns, r.harvestWindow
	era, err := eras(ctx, ds)
	if err != nil {
		return err
	}
	p.Eras = era
	if err := r.addSizing(ctx, ds, o, p, d); err != nil {
		return err
	}
	r.in.Planner = p
	return nil
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./:=@,+", c))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// addSizing searches, per policy, the smallest cluster of the simulate
// section's node shape (a cluster of several shapes is scaled as a whole)
// whose makespan meets the target: node counts double until both
// policies meet it, then each policy's count is bisected. Makespan falls
// with nodes in practice, not by law; the search says so.
func (r *reportInput) addSizing(ctx context.Context, ds *dataset.Dataset, o Options, p *reports.Planner, d string) error {
	target := o.Planner.TargetMakespan
	switch {
	case target <= 0 && o.Simulate == nil:
		p.SizingMissing = "--target-makespan DURATION with a workload (--simulate-trace FILE or --simulate-history) and a node shape (--simulate-nodes and --simulate-node-memory, or --simulate-node-shapes) for the smallest cluster that meets a makespan"
		return nil
	case target <= 0:
		p.SizingMissing = "--target-makespan DURATION for the smallest cluster of the simulated node shape that runs the workload within it"
		return nil
	case o.Simulate == nil:
		p.SizingMissing = "a workload for --target-makespan: --simulate-trace FILE or --simulate-history"
		return nil
	}
	base := *o.Simulate
	base.TargetMakespan, base.SeriesPoints, base.KeepSchedule = target, 0, false
	var unit []simulate.NodeShape
	var nodeMem int64
	var shape string
	if len(base.NodeShapes) > 0 {
		unit = base.NodeShapes[0]
		if len(unit) == 1 {
			nodeMem = unit[0].NodeMemoryBytes
			shape = "nodes of " + nodeShape(unit[0].NodeMemoryBytes, coresOr(unit[0].NodeCores, base.NodeCores))
		} else {
			shape = "× (" + simulate.ShapesString(unit) + ")"
		}
	} else {
		nodeMem = base.NodeMemoryBytes[0]
		shape = "nodes of " + nodeShape(nodeMem, base.NodeCores)
	}
	cluster := func(k int) simulate.Options {
		c := base
		if unit == nil {
			c.Nodes, c.NodeMemoryBytes = []int{k}, []int64{nodeMem}
			return c
		}
		if len(unit) == 1 {
			sh := unit[0]
			sh.Nodes = k
			c.NodeShapes = [][]simulate.NodeShape{{sh}}
			return c
		}
		scaled := make([]simulate.NodeShape, len(unit))
		for i, sh := range unit {
			sh.Nodes *= k
			scaled[i] = sh
		}
		c.NodeShapes = [][]simulate.NodeShape{scaled}
		return c
	}
	var in simulate.Input
	err := r.around(reports.StageSimulate, func() (err error) {
		in, err = simulate.Load(ctx, ds, cluster(1))
		return err
	})
	if errors.Is(err, simulate.ErrNoJobs) {
		p.SizingMissing = "a workload with jobs for --target-makespan: " + err.Error()
		return nil
	}
	if err != nil {
		return fmt.Errorf("sizing: %w", err)
	}
	type met struct {
		k, nodes int
		memory   int64
		mk       float64
	}
	runs, leftOut := 0, 0
	try := func(k int) (map[simulate.Policy]*met, error) {
		runs++
		res, err := simulate.Run(ctx, in, cluster(k))
		if err != nil {
			return nil, err
		}
		leftOut = 0
		for _, sp := range res.Sweep {
			leftOut = max(leftOut, sp.JobsLeftOut)
		}
		out := map[simulate.Policy]*met{}
		for _, t := range res.Targets {
			if t.Nodes != nil {
				out[t.Policy] = &met{k, *t.Nodes, *t.MemoryBytes, *t.MakespanS}
			}
		}
		return out, nil
	}
	best := map[simulate.Policy]*met{}
	lo := map[simulate.Policy]int{} // largest count known to miss
	k, tried := 1, []string{}
	for ; k <= maxSizingNodes; k *= 2 {
		tried = append(tried, fmt.Sprint(k))
		m, err := try(k)
		if err != nil {
			if errors.Is(err, simulate.ErrNoJobs) {
				break
			}
			return fmt.Errorf("sizing: %w", err)
		}
		for _, pol := range base.Policies {
			if best[pol] == nil {
				if m[pol] != nil {
					best[pol] = m[pol]
				} else {
					lo[pol] = k
				}
			}
		}
		// A job with a task larger than a node runs on no count of
		// these nodes: more of them cannot help.
		if len(best) == len(base.Policies) || leftOut > 0 {
			break
		}
	}
	for _, pol := range base.Policies {
		b := best[pol]
		if b == nil {
			continue
		}
		l, h := lo[pol], b
		for h.k-l > 1 {
			mid := (l + h.k) / 2
			m, err := try(mid)
			if err != nil {
				return fmt.Errorf("sizing: %w", err)
			}
			if m[pol] != nil {
				h = m[pol]
			} else {
				l = mid
			}
		}
		best[pol] = h
	}
	sz := &reports.Sizing{Workload: workloadText(in, base), TargetMakespanS: target.Seconds(), Shape: shape, NodeMemoryBytes: nodeMem, NodeCores: base.NodeCores,
		Searched: fmt.Sprintf("%s %s tried, then each policy's count bisected between the last that missed and the first that met the target (%d simulations in all; makespan falls with nodes in practice, not by law)",
			unitWord(unit), strings.Join(tried, ", "), runs)}
	for _, pol := range base.Policies {
		cs := reports.ClusterSize{Policy: string(pol)}
		if b := best[pol]; b != nil {
			n, m, mk := b.nodes, b.memory, b.mk
			cs.Nodes, cs.MemoryBytes, cs.MakespanS = &n, &m, &mk
		}
		sz.Sizes = append(sz.Sizes, cs)
	}
	if leftOut > 0 {
		sz.Why = fmt.Sprintf("%d jobs have a task larger than one of these nodes, so no count of them runs every job: give larger nodes (--simulate-node-memory)", leftOut)
		sz.Searched = sz.Why
	}
	p.Sizing = sz
	var cmd strings.Builder
	cmd.WriteString("wlprof simulate" + d)
	if base.Trace != "" {
		cmd.WriteString(" --trace " + shellQuote(base.Trace))
	}
	var counts []string
	for _, pol := range base.Policies {
		if b := best[pol]; b != nil {
			counts = append(counts, fmt.Sprint(b.nodes))
		}
	}
	sort.Slice(counts, func(a, b int) bool {
		return len(counts[a]) < len(counts[b]) || len(counts[a]) == len(counts[b]) && counts[a] < counts[b]
	})
	if len(counts) == 2 && counts[0] == counts[1] {
		counts = counts[:1]
	}
	if unit == nil {
		fmt.Fprintf(&cmd, " --nodes %s --node-memory %s", strings.Join(counts, ","), bytesize.Format(nodeMem))
	} else if len(unit) == 1 {
		fmt.Fprintf(&cmd, " --nodes %s --node-memory %s --node-cores %d", strings.Join(counts, ","), bytesize.Format(nodeMem), coresOr(unit[0].NodeCores, base.NodeCores))
	}
	if base.DefaultModel != "" && base.DefaultModel != "none" {
		cmd.WriteString(" --default-model " + base.DefaultModel)
	}
	cmd.WriteString(" --target-makespan " + timeflag.FormatDuration(target))
	p.Commands["simulate"] = cmd.String()
	return nil
}

func unitWord(unit []simulate.NodeShape) string {
	if len(unit) > 1 {
		return "multiples of the cluster"
	}
	return "node counts"
}

func coresOr(c, def int) int {
	if c > 0 {
		return c
	}
	return def
}

func nodeShape(mem int64, cores int) string {
	return fmt.Sprintf("%s and %d cores", bytesize.Human(float64(mem)), cores)
}

// workloadText names the simulated workload in a few words.
func workloadText(in simulate.Input, o simulate.Options) string {
	if o.Trace != "" {
		return fmt.Sprintf("the %d jobs of %s", len(in.Jobs), o.Trace)
	}
	return fmt.Sprintf("the dataset's job history (%d jobs)", len(in.Jobs))
}
