package harvest

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/wlprof/wlprof/classify"
	"github.com/wlprof/wlprof/dag"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/timeflag"
	"github.com/wlprof/wlprof/profile"
)

// Workloads a replay can take its batch jobs from.
const (
	WorkloadRuns    = "runs"
	WorkloadPoisson = "poisson"
)

// Options of the harvest stage. Start from DefaultOptions.
type Options struct {
	// Seed of every draw (the policies' and the Poisson stream's).
	Seed uint64
	// Reserve is the share of a server's cores kept for the primary
	// tenant to spike into (§6: 4 of 12 cores, 33%); ReserveCores =
	// ⌈Reserve × Cores⌉.
	Reserve float64
	Cores   int
	// Workload: "runs" (the dataset's runs table) or "poisson".
	Workload string
	// ShortBelow and LongAbove override the derived thresholds (both or
	// neither; 0: derived).
	ShortBelow, LongAbove time.Duration
	// Window is how much of the data, up to its end, is replayed (the
	// classifications before the window still use all the data before
	// them); 0 replays everything. A dataset that mixes a decade-old
	// trace with this week's would otherwise be replayed day by day over
	// the decade.
	Window time.Duration
	// Reclassify is the cadence of the classification (§4.1: once a day):
	// classes in force from each multiple of it (since the Unix epoch, so
	// days start at midnight UTC) use only the data before it.
	Reclassify time.Duration
	// ClassifyWindow: each classification sees only this much of the
	// data before it (§3: "the utilization of this 'average' server for
	// one month"); 0 sees all of it.
	ClassifyWindow time.Duration
	// Containers is each run's containers in the runs workload (the runs
	// table records none).
	Containers int
	// The Poisson workload: arrivals with MeanInterarrival (§6: 300 s)
	// over the whole data, each a run of one of PoissonJobs recurring jobs
	// (§6: 52 queries); a job's typical duration is log-uniform in
	// [MinDuration, MaxDuration] and each run varies it by ±20%; its
	// containers are uniform in 1..MaxContainers.
	MeanInterarrival         time.Duration
	PoissonJobs              int
	MinDuration, MaxDuration time.Duration
	MaxContainers            int
	// Classify are the options of the classifications (AtMs is set per
	// epoch).
	Classify classify.Options
	// AverageServers decides free cores and kills on each tenant's
	// average server (the classify stage's series) even where the usage
	// table has every server's own samples; by default each server
	// decides its own (§5: each server's NM-H kills its own containers).
	AverageServers bool
}

// DefaultOptions are §6's testbed: 12 cores, 33% reserve, daily classes.
func DefaultOptions() Options {
	return Options{Seed: 1, Reserve: 0.33, Cores: 12, Workload: WorkloadRuns, Reclassify: 24 * time.Hour, ClassifyWindow: 30 * 24 * time.Hour, Window: 7 * 24 * time.Hour, Containers: 4,
		MeanInterarrival: 300 * time.Second, PoissonJobs: 52, MinDuration: 30 * time.Second, MaxDuration: time.Hour, MaxContainers: 16}
}

// Validate reports every bad option at once.
func (o *Options) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("harvest: "+format, a...)) }
	if !(o.Reserve >= 0 && o.Reserve < 1) {
		bad("reserve %g: want a share of the cores in [0, 1)", o.Reserve)
	}
	if o.Cores < 1 || o.Cores > 1<<16 {
		bad("cores %d: want 1 to 65536", o.Cores)
	}
	if o.Workload != WorkloadRuns && o.Workload != WorkloadPoisson {
		bad("workload %q: want runs or poisson", o.Workload)
	}
	if (o.ShortBelow > 0) != (o.LongAbove > 0) || o.ShortBelow < 0 || o.LongAbove < 0 {
		bad("short-below %v and long-above %v: give both (durations above 0) or neither", o.ShortBelow, o.LongAbove)
	} else if o.LongAbove < o.ShortBelow {
		bad("long-above %v is below short-below %v", o.LongAbove, o.ShortBelow)
	}
	if o.Reclassify < time.Minute {
		bad("reclassify %v: want at least 1m", o.Reclassify)
	}
	if o.ClassifyWindow < 0 {
		bad("classify-window %v: want 0 (all the data before a classification) or more", o.ClassifyWindow)
	}
	if o.Window < 0 {
		bad("window %v: want 0 (all the data) or more", o.Window)
	}
	if o.Containers < 1 || o.Containers > 1<<20 {
		bad("containers %d: want 1 to 1048576", o.Containers)
	}
	if o.Workload == WorkloadPoisson {
		if o.MeanInterarrival < time.Millisecond {
			bad("mean-interarrival %v: want at least 1ms", o.MeanInterarrival)
		}
		if o.PoissonJobs < 1 {
			bad("poisson-jobs %d: want at least 1", o.PoissonJobs)
		}
		if o.MinDuration < time.Second || o.MaxDuration < o.MinDuration {
			bad("durations %v to %v: want 1s ≤ min ≤ max", o.MinDuration, o.MaxDuration)
		}
		if o.MaxContainers < 1 || o.MaxContainers > 1<<20 {
			bad("max-containers %d: want 1 to 1048576", o.MaxContainers)
		}
	}
	if err := o.Classify.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// ReserveCores is ⌈Reserve × Cores⌉ (§6: 33% of 12 is 4).
func (o *Options) ReserveCores() int {
	return int(math.Ceil(o.Reserve*float64(o.Cores) - 1e-9))
}

// ErrNoSeries: the dataset has no usage to replay.
var ErrNoSeries = errors.New("harvest: no tenant usage to replay (ingest utilisation first)")

// Input is what Run replays: every tenant's series (on one grid, as the
// classify stage builds them) and the dataset's job runs.
type Input struct {
	Series []dataset.Series
	Runs   []dataset.Run
	// ServerUsage is each tenant's servers' own usage over the replay
	// (Load reads it from the usage table), by tenant: those servers'
	// kills are their own. Tenants without it use their average server.
	ServerUsage map[string]ServerUsage
	// Notes are Load's caveats, repeated in the result's warnings.
	Notes []string
	// DAGContainers are the most containers at once of runs whose stage
	// DAG the dataset holds (package dag), by job and run: the runs
	// workload gives such a run that many containers (Alg. 1's J.req), a
	// run of a job with other DAG'd runs their largest, and others
	// Options.Containers.
	DAGContainers map[[2]string]int
	// NodeCores, on data from a Kubernetes ingest, is a node's cores
	// (dataset.KubernetesNodeCores: the median node's allocatable,
	// rounded) and NodeCoresFrom says so: Run takes them for a server's
	// cores when Options.Cores is the default, as the report does. 0
	// otherwise.
	NodeCores     int
	NodeCoresFrom string
}

// Load reads the tenants' series as the classify stage owns them
// (classify.Series, which builds and stores the series table when it is
// missing or stale) and the runs table.
func Load(ctx context.Context, ds *dataset.Dataset, opts Options) (Input, error) {
	if err := opts.Validate(); err != nil {
		return Input{}, err
	}
	set, err := classify.Series(ctx, ds, classify.SeriesOptions{Step: opts.Classify.Step})
	if err != nil {
		return Input{}, err
	}
	if err := set.Stored(); err != nil {
		return Input{}, err
	}
	series, err := set.All(ctx)
	if err != nil {
		return Input{}, err
	}
	if len(series) == 0 {
		return Input{}, ErrNoSeries
	}
	in := Input{Series: series}
	if opts.Cores == DefaultOptions().Cores {
		if in.NodeCores, in.NodeCoresFrom, err = dataset.KubernetesNodeCores(ctx, ds); err != nil {
			return Input{}, err
		}
	}
	if !opts.AverageServers {
		// The replay's window, less what its end may lose to the median
		// end, with a classification period before it.
		span := int64(0)
		if opts.Window > 0 {
			span = (opts.Window + opts.Reclassify).Milliseconds()
		}
		su, note, err := loadServerUsage(ctx, ds, series, span)
		if err != nil {
			return Input{}, err
		}
		in.ServerUsage = su
		if note != "" {
			in.Notes = append(in.Notes, note)
		}
	}
	if ds.Rows(dataset.RunsTable.Name) > 0 {
		if in.Runs, err = dataset.ReadAll(ctx, ds, dataset.RunsTable); err != nil {
			return Input{}, err
		}
	}
	if opts.Workload == WorkloadRuns && (ds.Rows(dataset.StagesTable.Name) > 0 || ds.Rows(dataset.ProfRunsTable.Name) > 0) {
		din, err := dag.Load(ctx, ds, dag.DefaultOptions())
		if err != nil {
			return Input{}, err
		}
		dres, err := dag.Run(ctx, din, dag.DefaultOptions())
		if err != nil && !errors.Is(err, dag.ErrNoDAGs) {
			return Input{}, err
		}
		if dres != nil {
			in.DAGContainers = map[[2]string]int{}
			for _, j := range dres.Jobs {
				if j.MaxLevel >= 0 && j.MaxContainers > 0 {
					in.DAGContainers[[2]string{j.Job, j.Run}] = int(min(j.MaxContainers, 1<<20))
				}
			}
		}
	}
	return in, nil
}

// Result is the replay of both policies over the same world.
type Result struct {
	Version  int    `json:"version"`
	Workload string `json:"workload"`
	Seed     uint64 `json:"seed"`
	// The world: cores per server and the reserve, the grid, the replay
	// window (epoch ms UTC), the classification cadence and epochs.
	Cores        int     `json:"cores"`
	Reserve      float64 `json:"reserve"`
	ReserveCores int     `json:"reserve_cores"`
	StepS        float64 `json:"step_s"`
	StartMs      int64   `json:"start_ms"`
	EndMs        int64   `json:"end_ms"`
	ReclassifyS  float64 `json:"reclassify_s"`
	// ClassifyWindowS: how much data before it a classification sees
	// (0: all of it).
	ClassifyWindowS float64 `json:"classify_window_s"`
	Epochs          int     `json:"epochs"`
	Tenants         int     `json:"tenants"`
	Servers         int     `json:"servers"`
	// ServersWithOwnUsage: servers whose free cores and kills follow
	// their own samples (the others follow their tenant's average server).
	ServersWithOwnUsage int `json:"servers_with_own_usage"`
	// Jobs replayed (submitted in the window), by type; HistoryRuns the
	// runs before the window the thresholds came from.
	Jobs        int            `json:"jobs"`
	JobsByType  map[string]int `json:"jobs_by_type"`
	HistoryRuns int            `json:"history_runs"`
	// Thresholds are the last epoch's (the profiles'); EpochThresholds
	// every epoch's, which typed the jobs submitted in it.
	Thresholds      Thresholds   `json:"thresholds"`
	EpochThresholds []Thresholds `json:"epoch_thresholds"`
	// Policies: history (Algorithm 1), blind (§6's YARN-PT), then stock
	// (§6's YARN-Stock, unaware of the primary tenants).
	Policies []*Outcome `json:"policies"`
	// MeanExecReduction is 1 − history's mean job execution time /
	// blind's (§6 reports 1 − 938/1181 = 0.21 on its testbed); null when
	// either finished no job.
	MeanExecReduction *float64 `json:"mean_exec_reduction"`
	Assumptions       []string `json:"assumptions"`
	// RunsWithDAG are the runs of the runs workload whose containers come
	// from a stage DAG (Input.DAGContainers).
	RunsWithDAG int      `json:"runs_with_dag,omitempty"`
	Warnings    []string `json:"warnings"`

	lastRuns map[string]float64
}

// Run replays the batch workload over the tenants' usage under
// Algorithm 1 and under the history-blind baseline.
func Run(ctx context.Context, in Input, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if len(in.Series) == 0 {
		return nil, ErrNoSeries
	}
	// On Kubernetes data a server is a node: it has the nodes' cores
	// unless --cores says otherwise (12, the default, cannot be told from
	// an explicit --cores 12).
	nodeCores := ""
	if in.NodeCores > 0 && opts.Cores == DefaultOptions().Cores && in.NodeCores != opts.Cores {
		opts.Cores, nodeCores = in.NodeCores, fmt.Sprintf("a server is a Kubernetes node of %d cores: %s (--cores to set)", in.NodeCores, in.NodeCoresFrom)
	}
	stepS := in.Series[0].StepS
	stepMs := int64(math.Round(stepS * 1000))
	if stepMs <= 0 {
		return nil, fmt.Errorf("harvest: series step %gs", stepS)
	}
	series := append([]dataset.Series(nil), in.Series...)
	sort.SliceStable(series, func(a, b int) bool { return series[a].Tenant < series[b].Tenant })
	w := &World{StepMs: stepMs}
	idx := map[string]int{}
	startMs, endMs := int64(math.MaxInt64), int64(math.MinInt64)
	servers := 0
	own := 0
	for i, s := range series {
		if s.StepS != stepS {
			return nil, fmt.Errorf("harvest: series of %q has step %gs, others %gs", s.Tenant, s.StepS, stepS)
		}
		n := int(max(s.Servers, 1))
		wt := WorldTenant{Name: s.Tenant, Servers: n, StartMs: s.StartMs, Values: s.Values}
		if su, ok := in.ServerUsage[s.Tenant]; ok && len(su.Values) > 0 && !opts.AverageServers {
			// Servers without samples in the replay follow the average
			// server (an empty row); a tenant's series counts them all.
			wt.Servers = max(n, len(su.Values))
			wt.ServerStartMs = su.StartMs
			wt.ServerValues = make([][]float32, wt.Servers)
			copy(wt.ServerValues, su.Values)
			own += len(su.Values)
			n = wt.Servers
		}
		servers += n
		w.Tenants = append(w.Tenants, wt)
		idx[s.Tenant] = i
		if len(s.Values) > 0 {
			startMs = min(startMs, s.StartMs)
			endMs = max(endMs, s.StartMs+int64(len(s.Values))*stepMs)
		}
	}
	if startMs >= endMs {
		return nil, ErrNoSeries
	}
	res := &Result{Version: 1, Workload: opts.Workload, Seed: opts.Seed, Cores: opts.Cores, Reserve: opts.Reserve,
		ReserveCores: opts.ReserveCores(), StepS: stepS, ReclassifyS: opts.Reclassify.Seconds(), ClassifyWindowS: opts.ClassifyWindow.Seconds(), Tenants: len(series),
		Servers: servers, ServersWithOwnUsage: own, JobsByType: map[string]int{}, Warnings: append([]string{}, in.Notes...)}

	// Epochs: a classification at every multiple of the cadence, from data
	// strictly before it; the replay starts at the first with classes.
	cad := opts.Reclassify.Milliseconds()
	fin := classify.Input{Series: series}
	from := startMs
	if w := opts.Window.Milliseconds(); w > 0 && endMs-w > from {
		// The window ends where the servers' data does, by the median:
		// a tenant whose data ends earlier has no usage to harvest
		// beside, and the data's very end may be one late tenant's.
		if m := medianEnd(series, stepMs); m < endMs && m-w > startMs {
			res.Warnings = append(res.Warnings, fmt.Sprintf("the replay ends where half the servers' data has ended (%s before the data's last sample)",
				timeflag.FormatDuration(time.Duration(endMs-m)*time.Millisecond)))
			endMs = m
		}
		from = max(startMs, endMs-w)
		if from > startMs {
			res.Warnings = append(res.Warnings, fmt.Sprintf("replayed %s of the data (--window); it starts %s earlier",
				timeflag.FormatDuration(opts.Window), timeflag.FormatDuration(time.Duration(from-startMs)*time.Millisecond)))
		}
	}
	for b := (floorDiv(from, cad) + 1) * cad; b < endMs; b += cad {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ep, err := classifyEpoch(ctx, fin.Series, idx, b, &opts)
		if err != nil {
			return nil, err
		}
		if len(ep.Classes) == 0 && len(w.Epochs) == 0 {
			continue
		}
		w.Epochs = append(w.Epochs, ep)
	}
	if len(w.Epochs) == 0 {
		return nil, fmt.Errorf("harvest: no classification before any %s boundary has classes: too little history (the classify stage wants %v of it)",
			opts.Reclassify, minHistory(opts.Classify))
	}
	res.StartMs, res.EndMs, res.Epochs = w.Epochs[0].FromMs, endMs, len(w.Epochs)
	w.EndMs = endMs

	// The batch workload and its types.
	var runs []jobRun
	switch opts.Workload {
	case WorkloadRuns:
		var fromDAG int
		runs, fromDAG = fromRuns(in.Runs, opts.Containers, in.DAGContainers)
		res.RunsWithDAG = fromDAG
		if len(runs) == 0 {
			return nil, errors.New("harvest: the dataset has no runs with a start and an end (ingest job logs, or use --workload poisson)")
		}
	case WorkloadPoisson:
		runs = poisson(from, endMs, &opts)
	}
	// Thresholds per epoch: from the runs ended before it and its classes'
	// capacity (§4.1: "the current computational capacity").
	res.EpochThresholds = make([]Thresholds, len(w.Epochs))
	for k := range w.Epochs {
		res.EpochThresholds[k] = thresholds(runs, w, k, &opts)
	}
	res.Thresholds = res.EpochThresholds[len(w.Epochs)-1]
	if n := emptyMedium(res.EpochThresholds); n > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("job types: in %d of %d classifications the thresholds met (no medium jobs): a few long runs carry most of the work, so the work-weighted quantiles coincide; --short-below and --long-above set them", n, len(res.EpochThresholds)))
	}
	// A run is typed by its job's run that finished last before it was
	// submitted (§4.1, line 3: "its last run"); a run still going has no
	// duration yet. Ends are taken in order from a heap of the runs
	// started so far.
	last := map[string]float64{}
	var going runEnds
	ep := 0
	for _, r := range runs {
		for len(going) > 0 && going[0].endMs <= r.startMs {
			g := heap.Pop(&going).(runEnd)
			last[g.job] = g.durS
		}
		lastS, seen := last[r.job]
		if !seen {
			lastS = -1
		}
		heap.Push(&going, runEnd{job: r.job, endMs: r.startMs + r.durMs, startMs: r.startMs, durS: float64(r.durMs) / 1000})
		if r.startMs < res.StartMs {
			res.HistoryRuns++
			continue
		}
		if r.startMs >= endMs {
			continue
		}
		for ep+1 < len(w.Epochs) && w.Epochs[ep+1].FromMs <= r.startMs {
			ep++
		}
		j := Job{ID: r.job, Type: res.EpochThresholds[ep].Classify(lastS), SubmitMs: r.startMs, DurationMs: r.durMs, Containers: r.containers}
		w.Jobs = append(w.Jobs, j)
		res.JobsByType[j.Type.String()]++
	}
	if opts.Workload == WorkloadRuns {
		for len(going) > 0 {
			g := heap.Pop(&going).(runEnd)
			last[g.job] = g.durS
		}
		res.lastRuns = last
	}
	res.Jobs = len(w.Jobs)

	p := Params{Cores: opts.Cores, ReserveCores: res.ReserveCores, Seed: opts.Seed}
	pols := []Policy{History, Blind, Stock}
	res.Policies = make([]*Outcome, len(pols))
	var wg sync.WaitGroup
	for k, pol := range pols {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res.Policies[k] = Replay(w, p, pol, false)
		}()
	}
	wg.Wait()
	if h, b := res.Policies[0].JobTimes, res.Policies[1].JobTimes; h.Finished > 0 && b.Finished > 0 && b.MeanS > 0 {
		x := 1 - h.MeanS/b.MeanS
		res.MeanExecReduction = &x
	}
	res.Assumptions = assumptions(res, &opts)
	if nodeCores != "" {
		res.Assumptions = append(res.Assumptions, nodeCores)
	}
	paper := 0
	for _, th := range res.EpochThresholds {
		if th.From == "paper" {
			paper++
		}
	}
	if paper > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d of %d classifications had fewer than %d runs (or no class capacity) before them: their jobs were typed by Zhang et al., OSDI'16 §6's 173 s and 433 s",
			paper, len(res.EpochThresholds), MinThresholdRuns))
	}
	for _, p := range res.Policies {
		if jt := p.JobTimes; jt != nil && jt.Finished < jt.Jobs {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: %d of %d jobs never finished: after the data ended no server had a free core for what still waited (their times are left out)",
				p.Policy, jt.Jobs-jt.Finished, jt.Jobs))
		}
	}
	return res, nil
}

// classifyEpoch is the classification in force from b: the classify
// stage's (classify.Run) on the data strictly before b.
func classifyEpoch(ctx context.Context, series []dataset.Series, idx map[string]int, b int64, opts *Options) (Epoch, error) {
	copts := opts.Classify
	copts.AtMs = b - 1
	if w := opts.ClassifyWindow.Milliseconds(); w > 0 {
		series = since(series, b-w)
	}
	cr, err := classify.Run(ctx, classify.Input{Series: series}, copts)
	if err != nil {
		return Epoch{}, err
	}
	ep := Epoch{FromMs: b}
	for _, c := range cr.Classes {
		ep.Classes = append(ep.Classes, WorldClass{Name: c.Class, Pattern: string(c.Pattern), Mean: c.Mean, Peak: c.Peak,
			Weights: [3]float64{c.Weights.Short, c.Weights.Medium, c.Weights.Long}})
	}
	ci := map[string]int{}
	for k, c := range ep.Classes {
		ci[c.Name] = k
	}
	for _, t := range cr.Tenants {
		if k, ok := ci[t.Class]; ok && t.Class != "" {
			ep.Classes[k].Members = append(ep.Classes[k].Members, idx[t.Tenant])
		}
	}
	return ep, nil
}

// since is every series from its first slot at or after fromMs on (the
// values are shared, not copied).
func since(series []dataset.Series, fromMs int64) []dataset.Series {
	out := make([]dataset.Series, len(series))
	for i, s := range series {
		out[i] = s
		stepMs := int64(math.Round(s.StepS * 1000))
		if s.StartMs >= fromMs || stepMs <= 0 {
			continue
		}
		k := min((fromMs-s.StartMs+stepMs-1)/stepMs, int64(len(s.Values)))
		out[i].StartMs += k * stepMs
		out[i].Values = s.Values[k:]
	}
	return out
}

func minHistory(o classify.Options) time.Duration {
	if o.MinHistory > 0 {
		return o.MinHistory
	}
	return 72 * time.Hour
}

// runEnd is a run's end, for typing later runs by the last one finished.
type runEnd struct {
	job            string
	endMs, startMs int64
	durS           float64
}

// runEnds is a min-heap by end, then start (of equal ends the later
// start is popped last and so counts as the last run).
type runEnds []runEnd

func (h runEnds) Len() int { return len(h) }
func (h runEnds) Less(i, j int) bool {
	if h[i].endMs != h[j].endMs {
		return h[i].endMs < h[j].endMs
	}
	return h[i].startMs < h[j].startMs
}
func (h runEnds) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *runEnds) Push(x any)   { *h = append(*h, x.(runEnd)) }
func (h *runEnds) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// jobRun is one run of the workload, in start order.
type jobRun struct {
	job        string
	startMs    int64
	durMs      int64
	containers int
}

// fromRuns are the runs table's runs (MergeRuns), each of containers.
func fromRuns(runs []dataset.Run, containers int, dagMax map[[2]string]int) ([]jobRun, int) {
	byJob := map[string]int{}
	for k, n := range dagMax {
		byJob[k[0]] = max(byJob[k[0]], n)
	}
	var out []jobRun
	fromDAG := 0
	for _, s := range MergeRuns(runs) {
		c := containers
		if n, ok := dagMax[[2]string{s.Job, s.Run}]; ok {
			c = n
			fromDAG++
		} else if n, ok := byJob[s.Job]; ok {
			c = n
			fromDAG++
		}
		out = append(out, jobRun{job: s.Job, startMs: s.StartMs, durMs: s.EndMs - s.StartMs, containers: c})
	}
	return out, fromDAG
}

// thresholds are the flags', else DeriveThresholds over the runs that
// ended before epoch k, with the capacity of its classes.
func thresholds(runs []jobRun, w *World, k int, o *Options) Thresholds {
	startMs := w.Epochs[k].FromMs
	if o.ShortBelow > 0 {
		return Thresholds{ShortBelowS: o.ShortBelow.Seconds(), LongAboveS: o.LongAbove.Seconds(), From: "flags"}
	}
	var d, c []float64
	for _, r := range runs {
		if r.startMs+r.durMs < startMs {
			d = append(d, float64(r.durMs)/1000)
			c = append(c, float64(r.containers))
		}
	}
	var capa Capacity
	rc := float64(o.ReserveCores())
	for _, cl := range w.Epochs[k].Classes {
		s := 0
		for _, m := range cl.Members {
			s += w.Tenants[m].Servers
		}
		v := float64(s) * math.Max(0, float64(o.Cores)*(1-cl.Mean)-rc)
		switch cl.Pattern {
		case string(classify.Unpredictable):
			capa.Short += v
		case string(classify.Periodic):
			capa.Medium += v
		case string(classify.Constant):
			capa.Long += v
		}
	}
	return DeriveThresholds(d, c, capa)
}

// Profile sets every job of the runs table's length type (§4.1) from its
// last run, with the last classification's thresholds (nothing for the
// Poisson workload, whose jobs are not the dataset's).
func (r *Result) Profile(jobs profile.Jobs) error {
	Typing{Thresholds: r.Thresholds, LastRunS: r.lastRuns}.Profile(jobs)
	return nil
}

func assumptions(r *Result, o *Options) []string {
	a := []string{
		fmt.Sprintf("servers of %d cores, %d kept for the primary tenant (reserve %g); a primary tenant's usage on a server is that server's own (the usage table's samples, %d of %d servers) or else its average server's, rounded up to whole cores (§5 NM-H)", o.Cores, r.ReserveCores, o.Reserve, r.ServersWithOwnUsage, r.Servers),
		"a container is one core and a job's tasks each run its whole duration; when a server's primary usage takes cores its containers hold, that server kills its youngest first until they fit (§5 NM-H); killed tasks wait in the queue again (first come, first served, with the tasks no core was free for) and run from the start; after the data ends every server keeps its last usage until every job has finished",
		"stock (§6's YARN-Stock) offers every core of a server to containers whatever its primary uses and kills nothing; primary_contended_core_h counts, at each slot's start, the cores the primaries wanted above what the containers left them",
		fmt.Sprintf("classes are recomputed every %s from %s before it (the classify stage; §3: a month of the average server); mean and peak per class come from that history, current utilisation from the servers at submission", fmtDur(o.Reclassify), classifyWindow(o.ClassifyWindow)),
		"history: Algorithm 1 picks one class whose headroom for the job's type (cores: servers × (cores × (1 − u) − reserve) less cores already given) holds the job, with probability ∝ headroom × W[type, pattern] (3/2/1 by rank); else several drawn the same way until they hold it; else none and the default policy places it",
		"within the chosen classes, and in the blind baseline over every tenant, each container goes to a tenant with probability ∝ its free cores now, and to a server of it likewise (§5 RM-H); containers no server has room for wait in the queue",
	}
	switch o.Workload {
	case WorkloadRuns:
		dagNote := ""
		if r.RunsWithDAG > 0 {
			dagNote = fmt.Sprintf(" (%d run(s) instead the most containers at once of their stage DAG, or of their job's, as wlprof dag gives it)", r.RunsWithDAG)
		}
		a = append(a, fmt.Sprintf("workload: the dataset's runs table, each run %d containers%s for its recorded duration, submitted at its start; a job's type is from its run that finished last before the submission (none: medium)", o.Containers, dagNote))
	case WorkloadPoisson:
		a = append(a, fmt.Sprintf("workload: synthetic Poisson arrivals (mean %s, seed %d) of %d recurring jobs, durations log-uniform %s–%s per job (±20%% per run), 1–%d containers per job; a job's type is from its run that finished last before the submission (none: medium)",
			fmtDur(o.MeanInterarrival), o.Seed, o.PoissonJobs, fmtDur(o.MinDuration), fmtDur(o.MaxDuration), o.MaxContainers))
	}
	return a
}

func classifyWindow(d time.Duration) string {
	if d <= 0 {
		return "all the data"
	}
	return "the " + timeflag.FormatDuration(d) + " of data"
}

func fmtDur(d time.Duration) string {
	s := d.String()
	for _, suf := range []string{"m0s", "h0m"} {
		if len(s) > len(suf) && s[len(s)-len(suf):] == suf {
			s = s[:len(s)-len(suf)+1]
		}
	}
	return s
}

// medianEnd is the server-weighted median of the instants the tenants'
// data ends (its last sample's slot end).
func medianEnd(series []dataset.Series, stepMs int64) int64 {
	type end struct {
		ms int64
		n  int
	}
	var ends []end
	total := 0
	for _, s := range series {
		last := len(s.Values) - 1
		for last >= 0 && math.IsNaN(s.Values[last]) {
			last--
		}
		if last < 0 {
			continue
		}
		n := int(max(s.Servers, 1))
		ends = append(ends, end{s.StartMs + int64(last+1)*stepMs, n})
		total += n
	}
	sort.Slice(ends, func(a, b int) bool { return ends[a].ms < ends[b].ms })
	seen := 0
	for _, e := range ends {
		if seen += e.n; 2*seen >= total {
			return e.ms
		}
	}
	return math.MaxInt64
}

// emptyMedium counts the derived thresholds (From "history") that leave
// no duration between them.
func emptyMedium(ths []Thresholds) int {
	n := 0
	for _, th := range ths {
		if th.From == "history" && !(th.LongAboveS > th.ShortBelowS) {
			n++
		}
	}
	return n
}
