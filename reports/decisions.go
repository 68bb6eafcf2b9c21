package reports

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/internal/bytesize"
	"github.com/wlprof/wlprof/internal/timeflag"
	"github.com/wlprof/wlprof/profile"
)

// DecisionsVersion is the version of the decisions document (FORMAT.md).
const DecisionsVersion = 1

// Decisions are the report's answers to a capacity planner's four
// questions, each backed by the section that proves it (Section, an
// anchor of index.html). Shape: reports/FORMAT.md.
type Decisions struct {
	Version int `json:"version"`
	// Platform is "kubernetes" when the data came from a Kubernetes
	// ingest: the answers then speak of nodes, namespaces (or workloads),
	// CronJobs and pods. Absent otherwise.
	Platform string `json:"platform,omitempty"`
	// Warning, when set, is what a reader must know before the answers
	// (inputs years apart).
	Warning string          `json:"warning,omitempty"`
	Cluster ClusterDecision `json:"cluster"`
	Harvest HarvestDecision `json:"harvest"`
	AtRisk  AtRiskDecision  `json:"at_risk"`
	Actions []Action        `json:"actions"`
}

// ClusterDecision: how big must the cluster be?
type ClusterDecision struct {
	Answer string `json:"answer"`
	// The reservations' footprint (Jyothi et al., OSDI'16 §6): LowCost's
	// packed peak and the naive plan's, in containers; shares of the
	// capacity when one is known (null otherwise).
	FootprintContainers  *int64   `json:"footprint_containers"`
	NaivePeakContainers  *int64   `json:"naive_peak_containers"`
	LowerBoundContainers *int64   `json:"lower_bound_containers"`
	CapacityContainers   *int64   `json:"capacity_containers"`
	FootprintShare       *float64 `json:"footprint_share"`
	NaivePeakShare       *float64 `json:"naive_peak_share"`
	// The smallest cluster meeting a target makespan, per policy (yarn,
	// yarn-me), and the memory YARN-ME saves against stock YARN.
	TargetMakespanS  *float64      `json:"target_makespan_s"`
	NodeMemoryBytes  *int64        `json:"node_memory_bytes"`
	Sizes            []ClusterSize `json:"sizes"`
	MemorySavedBytes *int64        `json:"memory_saved_bytes"`
	// Missing says what to pass for the parts not computed.
	Missing  []string `json:"missing"`
	Sections []string `json:"sections"`
}

// HarvestDecision: what can be harvested?
type HarvestDecision struct {
	Answer         string `json:"answer"`
	CoresPerServer int    `json:"cores_per_server"`
	CoresFrom      string `json:"cores_per_server_from"`
	// CapacityUnits is what a headroom of 1 is (tenants.json's
	// capacity_units: "server" unless the trace says otherwise).
	CapacityUnits string `json:"capacity_units"`
	// Classes: per class, its servers, its headroom (a fraction of a
	// server) and the spare cores that makes, per job type.
	Classes []HarvestClass `json:"classes"`
	// SpareCores are the classes' spare cores per job type, in all; on
	// Kubernetes data, the nodes' (each node's cores less what all its
	// tenants use together), and ClassSpareCores the classes' sum, which
	// counts a node once per class on it. SpareRule says how they were
	// counted, when not as the classes' sum.
	SpareCores      *JobTypeCores `json:"spare_cores"`
	ClassSpareCores *JobTypeCores `json:"class_spare_cores,omitempty"`
	SpareRule       string        `json:"spare_cores_rule,omitempty"`
	// SpareCoresByHour are the spare cores over the day (UTC hours 0–23)
	// from the classes' folded series, and SpareCoreHPerDay their sum
	// over the day, core-hours a day; null without folded series.
	SpareCoresByHour []float64 `json:"spare_cores_by_hour"`
	SpareCoreHPerDay *float64  `json:"spare_core_h_per_day"`
	// Replay is the harvest replay's outcome per policy; Window the part
	// of the data it replayed.
	Replay []HarvestOutcome `json:"replay"`
	Window string           `json:"replay_window,omitempty"`
	// SpareAnswer and ReplayAnswer are Answer's two parts.
	SpareAnswer  string   `json:"spare_answer,omitempty"`
	ReplayAnswer string   `json:"replay_answer,omitempty"`
	Outcome      string   `json:"outcome,omitempty"`
	Missing      []string `json:"missing"`
	Sections     []string `json:"sections"`
}

// JobTypeCores are cores per job type (Zhang et al., OSDI'16 §4.1).
type JobTypeCores struct {
	Short  float64 `json:"short"`
	Medium float64 `json:"medium"`
	Long   float64 `json:"long"`
}

// HarvestClass is one class's spare capacity.
type HarvestClass struct {
	Class    string           `json:"class"`
	Pattern  string           `json:"pattern"`
	Servers  int              `json:"servers"`
	Headroom profile.JobTypes `json:"headroom"`
	Cores    JobTypeCores     `json:"spare_cores"`
}

// AtRiskDecision: which jobs will miss their deadline?
type AtRiskDecision struct {
	Answer string `json:"answer"`
	// Checked names the evidence looked for (whether or not found).
	Checked []string    `json:"checked"`
	Jobs    []JobAtRisk `json:"jobs"`
}

// JobAtRisk is a job with evidence that it may miss its deadline.
type JobAtRisk struct {
	Job      string     `json:"job"`
	Evidence []Evidence `json:"evidence"`
}

// Evidence is one reason, from one stage's section.
type Evidence struct {
	// Kind: plan-misses, estimate-goal, estimate-slots, slo-no-slack,
	// skyline-ratio, memory-starved.
	Kind    string  `json:"kind"`
	Section string  `json:"section"`
	Text    string  `json:"text"`
	Value   float64 `json:"value"`
}

// Action is one thing to do, with its gain, its evidence and the command
// that reproduces it.
type Action struct {
	Rank int `json:"rank"`
	// Kind: size-cluster, reserve-skyline, shrink-memory, harvest-history.
	Kind string `json:"kind"`
	Job  string `json:"job,omitempty"`
	Text string `json:"text"`
	// Gain in words, and as a share of what it is taken from (ranks
	// actions: the largest share first).
	Gain      string  `json:"gain"`
	GainShare float64 `json:"gain_share"`
	Evidence  string  `json:"evidence"`
	Section   string  `json:"section"`
	Command   string  `json:"command"`
}

// Thresholds of the at-risk evidence.
const (
	// lowSlack: an SLO whose output is read within 10% of the job's
	// runtime after it ends has no room for a slower run.
	lowSlack = 0.1
	// highRatio: a skyline reserving over twice what its runs use fits
	// runs that differ widely; the next run may be larger still.
	highRatio = 2.0
	// maxActions keeps the list short; minGainShare drops actions that
	// save under 1% of what they are taken from.
	maxActions   = 10
	minGainShare = 0.01
)

// sig writes x with 3 significant digits and no exponent.
func sig(x float64) string {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	d := 2 - int(math.Floor(math.Log10(math.Abs(x))))
	if d <= 0 {
		p := math.Pow(10, float64(-d))
		return thousands(int64(math.Round(x/p) * p))
	}
	s := strconv.FormatFloat(x, 'f', d, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return thousands(n) + " " + many
}

func cmdWith(p *Planner, key string) string {
	if p == nil || p.Commands[key] == "" {
		return ""
	}
	return p.Commands[key]
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=@,+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// PlatformKubernetes is Planner.Platform (and Decisions.Platform) for data
// from a Kubernetes ingest.
const PlatformKubernetes = "kubernetes"

// terms are the words the answers use for the cluster's parts: a YARN
// cluster's by default, Kubernetes' when the data came from it.
type terms struct {
	server, job, jobs, container, containers string
	// tenants is what classify's tenants are ("tenants", "namespaces",
	// "workloads").
	tenants string
	kube    bool
}

// standaloneJob says whether a job id is a Kubernetes Job no CronJob owns,
// as wlprof ingest prometheus names it (NAMESPACE/Job/NAME): not a
// CronJob, and finished, so wlprof export kubernetes does not patch it.
func standaloneJob(id string) bool {
	p := strings.Split(id, "/")
	return len(p) == 3 && p[1] == "Job"
}

// jobOf is the word for one job: on Kubernetes data a Job of its own is a
// Job, not a CronJob.
func (t terms) jobOf(id string) string {
	if t.kube && standaloneJob(id) {
		return "Job"
	}
	return t.job
}

func termsOf(in *Input) terms {
	t := terms{server: "server", job: "job", jobs: "jobs", container: "container", containers: "containers", tenants: "tenants"}
	if in.Planner == nil || in.Planner.Platform != PlatformKubernetes {
		return t
	}
	t = terms{server: "node", job: "CronJob", jobs: "CronJobs", container: "pod", containers: "pods", tenants: "namespaces", kube: true}
	// wlprof ingest prometheus names a workload NAMESPACE/KIND/NAME, a
	// namespace by its name alone.
	if tn := in.Tenants; tn != nil && tn.File != nil {
		for _, x := range tn.File.Tenants {
			if strings.Count(x.Tenant, "/") >= 2 {
				t.tenants = "workloads"
				break
			}
		}
	}
	return t
}

// decide answers the four questions from the report's input.
func decide(in *Input, jobs []Job, opts Options) Decisions {
	d := Decisions{Version: DecisionsVersion}
	if in.Planner != nil {
		d.Warning = in.Planner.Eras
		if in.Planner.Platform == PlatformKubernetes {
			d.Platform = PlatformKubernetes
		}
	}
	d.Cluster = decideCluster(in)
	d.Harvest = decideHarvest(in)
	d.AtRisk = decideAtRisk(in, jobs)
	d.Actions = decideActions(in, jobs, opts)
	return d
}

func decideCluster(in *Input) ClusterDecision {
	c := ClusterDecision{Sizes: []ClusterSize{}, Missing: []string{}, Sections: []string{}}
	p := in.Planner
	w := termsOf(in)
	var parts []string
	if pl := in.Plan; pl != nil && len(pl.Rows) > 0 {
		f, n, lb := pl.Footprint, pl.NaiveFootprint, pl.LowerBound
		c.FootprintContainers, c.NaivePeakContainers, c.LowerBoundContainers = &f, &n, &lb
		c.Sections = append(c.Sections, StagePlan)
		s := fmt.Sprintf("the reservations of %s need %s at peak packed by LowCost (%s if each is reserved at its arrival; lower bound %s)",
			plural(int64(len(planJobs(pl))), w.job, w.jobs), plural(f, w.container, w.containers), plural(n, w.container, w.containers), thousands(lb))
		if p != nil && p.CapacityContainers > 0 {
			capc := p.CapacityContainers
			fs, ns := float64(f)/float64(capc), float64(n)/float64(capc)
			c.CapacityContainers, c.FootprintShare, c.NaivePeakShare = &capc, &fs, &ns
			s += fmt.Sprintf(", %s%% and %s%% of the %s-%s capacity", sig(100*fs), sig(100*ns), thousands(capc), w.container)
		} else {
			c.Missing = append(c.Missing, "--capacity-containers N for the footprint as a share of the cluster")
		}
		parts = append(parts, s)
	} else {
		c.Missing = append(c.Missing, "job runs with skylines and a window (an actionable SLO, or period_s, arrival_s and deadline_s in --overrides) for the reservations' footprint")
	}
	if p != nil && p.Sizing != nil {
		sz := p.Sizing
		t, m := sz.TargetMakespanS, sz.NodeMemoryBytes
		c.TargetMakespanS = &t
		if m > 0 {
			c.NodeMemoryBytes = &m
		}
		c.Sizes = append(c.Sizes, sz.Sizes...)
		c.Sections = append(c.Sections, StageSimulate)
		var met []string
		var yarn, me *ClusterSize
		for i := range sz.Sizes {
			s := &sz.Sizes[i]
			switch s.Policy {
			case "yarn":
				yarn = s
			case "yarn-me":
				me = s
			}
			if s.Nodes == nil {
				met = append(met, fmt.Sprintf("no searched cluster under %s", policyName(s.Policy)))
				continue
			}
			met = append(met, fmt.Sprintf("%d %s (%s) under %s", *s.Nodes, sz.Shape, bytesize.Human(float64(*s.MemoryBytes)), policyName(s.Policy)))
		}
		if yarn != nil && me != nil && yarn.Nodes != nil && me.Nodes != nil {
			saved := *yarn.MemoryBytes - *me.MemoryBytes
			c.MemorySavedBytes = &saved
		}
		s := fmt.Sprintf("to run %s within %s: %s", sz.Workload, timeflag.FormatSeconds(t), strings.Join(met, ", "))
		if sz.Why != "" {
			s += " (" + sz.Why + ")"
		}
		if c.MemorySavedBytes != nil {
			s += fmt.Sprintf("; memory elasticity saves %s", bytesize.Human(float64(*c.MemorySavedBytes)))
		}
		parts = append(parts, s)
	} else {
		why := "--target-makespan DURATION with a workload (--simulate-trace FILE or --simulate-history) and a node shape (--simulate-nodes and --simulate-node-memory, or --simulate-node-shapes) for the smallest cluster that meets a makespan"
		if p != nil && p.SizingMissing != "" {
			why = p.SizingMissing
		}
		c.Missing = append(c.Missing, why)
	}
	if len(parts) == 0 {
		c.Answer = "Not computed: pass " + strings.Join(c.Missing, "; ") + "."
	} else {
		c.Answer = upperFirst(strings.Join(parts, "; ")) + "."
	}
	return c
}

func planJobs(pl *Plan) map[string]bool {
	m := map[string]bool{}
	for _, r := range pl.Rows {
		m[r.Job] = true
	}
	return m
}

func policyName(p string) string {
	switch p {
	case "yarn":
		return "stock YARN"
	case "yarn-me":
		return "YARN-ME"
	}
	return p
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func decideHarvest(in *Input) HarvestDecision {
	h := HarvestDecision{Classes: []HarvestClass{}, Replay: []HarvestOutcome{}, Missing: []string{}, Sections: []string{}}
	p := in.Planner
	w := termsOf(in)
	h.CoresPerServer, h.CoresFrom = 12, "wlprof harvest's default: the 12-core servers of Zhang et al., OSDI'16 §6"
	if p != nil && p.CoresPerServer > 0 {
		h.CoresPerServer, h.CoresFrom = p.CoresPerServer, p.CoresFrom
	}
	var parts []string
	if t := in.Tenants; t != nil && t.File != nil && len(t.File.Classes) > 0 {
		h.Sections = append(h.Sections, StageClassify)
		h.CapacityUnits = t.File.CapacityUnits
		if h.CapacityUnits == "" {
			h.CapacityUnits = "server"
		}
		total := JobTypeCores{}
		cores := float64(h.CoresPerServer)
		for _, c := range t.File.Classes {
			hc := HarvestClass{Class: c.Class, Pattern: c.Pattern, Servers: c.Servers, Headroom: c.Headroom,
				Cores: JobTypeCores{Short: c.Headroom.Short * float64(c.Servers) * cores, Medium: c.Headroom.Medium * float64(c.Servers) * cores,
					Long: c.Headroom.Long * float64(c.Servers) * cores}}
			total.Short += hc.Cores.Short
			total.Medium += hc.Cores.Medium
			total.Long += hc.Cores.Long
			h.Classes = append(h.Classes, hc)
		}
		h.SpareCores = &total
		s := fmt.Sprintf("%s spare cores for short jobs, %s for medium and %s for long ones now (%d classes, %d cores per server)",
			sig(total.Short), sig(total.Medium), sig(total.Long), len(h.Classes), h.CoresPerServer)
		ns := (*NodeSpare)(nil)
		if w.kube && p != nil {
			ns = p.NodeSpare
		}
		switch {
		case ns != nil:
			// Namespaces share nodes: the spare cores are counted node by
			// node, the classes' sum kept beside them for comparison.
			classSum := total
			h.ClassSpareCores, total = &classSum, ns.Cores
			h.SpareCores = &total
			s = fmt.Sprintf("%s spare cores for short jobs, %s for medium and %s for long ones now, on the %d nodes the %s run on: each node's cores less what all its %s use together (%s cores in all)",
				sig(total.Short), sig(total.Medium), sig(total.Long), ns.Nodes, w.tenants, w.tenants, sig(ns.AllCores))
			h.SpareRule = fmt.Sprintf("Spare cores = Σ over the %d nodes of the node's cores (%s) × (1 − what all its %s use together: now for short jobs, Max(mean, now) for medium, Max(P99, now) for long; Zhang et al., OSDI'16 §4.1's headroom on the node's own total); "+
				"the classes' headroom × nodes × cores, %s, %s and %s, would count a node once per %s on it",
				ns.Nodes, ns.CoresFrom, w.tenants, sig(classSum.Short), sig(classSum.Medium), sig(classSum.Long), strings.TrimSuffix(w.tenants, "s"))
		case w.kube:
			s = fmt.Sprintf("%s spare cores for short jobs, %s for medium and %s for long ones now, on the nodes of %d classes of %s (%d cores per node)",
				sig(total.Short), sig(total.Medium), sig(total.Long), len(h.Classes), w.tenants, h.CoresPerServer)
		}
		if ns != nil {
			if ns.ByHour != nil {
				sum := 0.0
				lo, hi := ns.ByHour[0], ns.ByHour[0]
				for _, x := range ns.ByHour {
					sum += x
					lo, hi = math.Min(lo, x), math.Max(hi, x)
				}
				h.SpareCoresByHour, h.SpareCoreHPerDay = append([]float64(nil), ns.ByHour...), &sum
				s += fmt.Sprintf("; over the day %s to %s cores, %s core-hours a day", sig(lo), sig(hi), sig(sum))
			}
		} else if p != nil && len(p.ClassDays) > 0 {
			byHour := make([]float64, 24)
			for _, c := range t.File.Classes {
				day := p.ClassDays[c.Class]
				if len(day) != 24 {
					continue
				}
				for k, u := range day {
					byHour[k] += math.Max(0, 1-u) * float64(c.Servers) * cores
				}
			}
			sum := 0.0
			for _, x := range byHour {
				sum += x
			}
			lo, hi := byHour[0], byHour[0]
			for _, x := range byHour {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
			h.SpareCoresByHour, h.SpareCoreHPerDay = byHour, &sum
			s += fmt.Sprintf("; over the day %s to %s cores, %s core-hours a day", sig(lo), sig(hi), sig(sum))
		}
		if h.CapacityUnits != "server" {
			s += fmt.Sprintf(" (headroom here is a fraction of %s: see tenant classes)", unitWord(h.CapacityUnits))
		}
		h.SpareAnswer = upperFirst(s) + "."
		parts = append(parts, s)
	} else {
		h.Missing = append(h.Missing, "a utilisation trace (csv, series-csv, google2019-usage, azure-cpu, alibaba2018-machine) for the tenants' spare cores")
	}
	if p != nil && len(p.HarvestRuns) > 0 {
		h.Replay = append(h.Replay, p.HarvestRuns...)
		h.Window = p.HarvestWindow
		h.Sections = append(h.Sections, StageHarvest)
		h.Outcome = harvestOutcome(p.HarvestRuns, p.HarvestWindow, w)
		h.ReplayAnswer = upperFirst(harvestBrief(p.HarvestRuns, p.HarvestWindow, w)) + "."
		parts = append(parts, harvestBrief(p.HarvestRuns, p.HarvestWindow, w))
	} else {
		h.Missing = append(h.Missing, "--harvest (or --harvest-workload poisson) to replay batch work on the spare cores")
	}
	if len(parts) == 0 {
		h.Answer = "Not computed: pass " + strings.Join(h.Missing, "; ") + "."
	} else {
		for i := range parts {
			parts[i] = upperFirst(parts[i])
		}
		h.Answer = strings.Join(parts, ". ") + "."
	}
	return h
}

func unitWord(u string) string {
	if u == "ncu" {
		return "the cell's largest machine (NCU)"
	}
	return "servers of different sizes"
}

// harvestBrief is the replay's outcome in one sentence: containers
// killed and mean job time per policy.
func harvestBrief(runs []HarvestOutcome, window string, w terms) string {
	var b []string
	for _, r := range runs {
		s := fmt.Sprintf("%s %s of %s %s killed", r.Policy, thousands(r.Killed), thousands(r.Containers), w.containers)
		if r.MeanJobS != nil {
			s += ", jobs " + timeflag.FormatSeconds(math.Round(*r.MeanJobS)) + " on average"
		}
		b = append(b, s)
	}
	out := "the replay"
	if window != "" {
		out += " of " + window
	}
	return out + " — " + strings.Join(b, "; ")
}

// harvestOutcome says the replay's outcome in plain words.
func harvestOutcome(runs []HarvestOutcome, window string, w terms) string {
	var b []string
	for _, r := range runs {
		s := fmt.Sprintf("%s: %s core-hours of work completed, %s core-hours lost to kills (%s of %s %s killed)", r.Label, sig(r.CompletedCoreH), sig(r.LostCoreH),
			thousands(r.Killed), thousands(r.Containers), w.containers)
		if r.MeanJobS != nil {
			s += fmt.Sprintf(", jobs took %s on average", timeflag.FormatSeconds(math.Round(*r.MeanJobS)))
			if r.JobsFinished < r.Jobs {
				s += fmt.Sprintf(" (%d of %d finished)", r.JobsFinished, r.Jobs)
			}
		}
		b = append(b, s)
	}
	out := "Replaying the batch jobs"
	if window != "" {
		out += " over " + window
	}
	return out + ": " + strings.Join(b, "; ")
}

func decideAtRisk(in *Input, jobs []Job) AtRiskDecision {
	a := AtRiskDecision{Jobs: []JobAtRisk{}, Checked: []string{}}
	ev := map[string][]Evidence{}
	add := func(job string, e Evidence) { ev[job] = append(ev[job], e) }
	if pl := in.Plan; pl != nil && len(pl.Rows) > 0 {
		a.Checked = append(a.Checked, "held-out runs against their reservation (plan)")
		for _, r := range pl.Rows {
			if r.Misses > 0 {
				add(r.Job, Evidence{Kind: "plan-misses", Section: StagePlan, Value: float64(r.Misses),
					Text: fmt.Sprintf("%d of %d held-out runs missed the deadline against its reservation (%d with DRA)", r.Misses, r.TestRuns, r.MissesDRA)})
			}
		}
	}
	if e := in.Estimate; e != nil && len(e.Rows) > 0 {
		a.Checked = append(a.Checked, "s_req and s_fit against the slots available (estimate)")
		for _, r := range e.Rows {
			switch {
			case !r.MeetsGoal:
				add(r.Job, Evidence{Kind: "estimate-goal", Section: StageEstimate, Value: float64(r.SReq),
					Text: fmt.Sprintf("cannot meet its goal: it needs s_req = %d slots for its %s phase", r.SReq, r.Phase)})
			case r.AvailMeanSlots != nil && float64(r.SReq) > *r.AvailMeanSlots:
				add(r.Job, Evidence{Kind: "estimate-slots", Section: StageEstimate, Value: float64(r.SReq),
					Text: fmt.Sprintf("needs s_req = %d slots, more than the %s available on average before its goal", r.SReq, sig(*r.AvailMeanSlots))})
			}
		}
	}
	sloChecked, skyChecked, memChecked := false, false, false
	for _, j := range jobs {
		p := j.Profile
		if s := p.SLO; s != nil && s.SlackRatio != nil {
			sloChecked = true
			if s.Actionable && *s.SlackRatio < lowSlack {
				add(p.Job, Evidence{Kind: "slo-no-slack", Section: StageSLO, Value: *s.SlackRatio,
					Text: fmt.Sprintf("its output is read %s of its runtime after it ends (slack ratio %s): a slower run misses", share(math.Max(0, *s.SlackRatio)), sig(*s.SlackRatio))})
			}
		}
		if sk := p.Skyline; sk != nil {
			skyChecked = true
			if sk.ProvisioningRatio > highRatio {
				add(p.Job, Evidence{Kind: "skyline-ratio", Section: StageSkyline, Value: sk.ProvisioningRatio,
					Text: fmt.Sprintf("its skyline reserves %s× what its runs use: its runs differ widely, the next may exceed it", sig(sk.ProvisioningRatio))})
			}
		}
		for _, m := range p.Elasticity {
			memChecked = true
			var most float64
			n := 0
			for _, ms := range j.Measured {
				if ms.Task == m.Task {
					most = math.Max(most, ms.MemoryBytes)
					n++
				}
			}
			if n > 0 && most < m.IdealMemoryBytes {
				add(p.Job, Evidence{Kind: "memory-starved", Section: StageElasticity, Value: most / m.IdealMemoryBytes,
					Text: fmt.Sprintf("its %s tasks always ran with less memory than they need: at most %s of the ideal %s (%d runs)", m.Task,
						memText(most, m.IdealMemoryBytes), memText(m.IdealMemoryBytes, m.IdealMemoryBytes), n)})
			}
		}
	}
	if sloChecked {
		a.Checked = append(a.Checked, fmt.Sprintf("SLO slack below %s (slo)", sig(lowSlack)))
	}
	if skyChecked {
		a.Checked = append(a.Checked, fmt.Sprintf("skylines reserving over %s× what runs use (skyline)", sig(highRatio)))
	}
	if memChecked {
		a.Checked = append(a.Checked, "tasks that never ran with their ideal memory (elasticity)")
	}
	ids := make([]string, 0, len(ev))
	for id := range ev {
		ids = append(ids, id)
	}
	// The jobs with the most kinds of evidence first, then by id.
	sort.Slice(ids, func(x, y int) bool {
		if len(ev[ids[x]]) != len(ev[ids[y]]) {
			return len(ev[ids[x]]) > len(ev[ids[y]])
		}
		return ids[x] < ids[y]
	})
	for _, id := range ids {
		a.Jobs = append(a.Jobs, JobAtRisk{Job: id, Evidence: ev[id]})
	}
	switch {
	case len(a.Checked) == 0:
		a.Answer = "Not computed: no stage with deadline evidence ran (job runs with provenance for SLOs, skylines, --estimate-jobs, profiling runs)."
	case len(a.Jobs) == 0:
		a.Answer = "No " + termsOf(in).job + " at risk; checked: " + strings.Join(a.Checked, "; ") + "."
	default:
		w := termsOf(in)
		a.Answer = fmt.Sprintf("%s may miss %s deadline; checked: %s.", plural(int64(len(a.Jobs)), w.job, w.jobs), map[bool]string{true: "its", false: "their"}[len(a.Jobs) == 1],
			strings.Join(a.Checked, "; "))
	}
	return a
}

// memText writes b in the unit that fits ref (MiB for MiB-sized data).
func memText(b, ref float64) string {
	switch {
	case ref >= 1<<30:
		return sig(b/(1<<30)) + " GiB"
	case ref >= 1<<20:
		return sig(b/(1<<20)) + " MiB"
	case ref >= 1<<10:
		return sig(b/(1<<10)) + " KiB"
	}
	return sig(b) + " B"
}

func decideActions(in *Input, jobs []Job, opts Options) []Action {
	out := []Action{}
	p := in.Planner
	w := termsOf(in)
	if p != nil && p.Sizing != nil {
		var yarn, me *ClusterSize
		for i := range p.Sizing.Sizes {
			switch s := &p.Sizing.Sizes[i]; s.Policy {
			case "yarn":
				yarn = s
			case "yarn-me":
				me = s
			}
		}
		if yarn != nil && me != nil && me.Nodes != nil {
			text := fmt.Sprintf("%d %s meet the %s target makespan with YARN-ME", *me.Nodes, p.Sizing.Shape, timeflag.FormatSeconds(p.Sizing.TargetMakespanS))
			gain, shr := "", 0.0
			if yarn.Nodes != nil {
				text += fmt.Sprintf(", %d without", *yarn.Nodes)
				saved := *yarn.MemoryBytes - *me.MemoryBytes
				if *yarn.MemoryBytes > 0 {
					shr = float64(saved) / float64(*yarn.MemoryBytes)
				}
				gain = fmt.Sprintf("%s less memory (%s)", bytesize.Human(float64(saved)), share(shr))
			} else {
				text += ", no searched cluster without it"
				gain, shr = "meets a target stock YARN does not", 1
			}
			out = append(out, Action{Kind: "size-cluster", Text: text, Gain: gain, GainShare: shr, Section: StageSimulate, Command: cmdWith(p, "simulate"),
				Evidence: fmt.Sprintf("simulated %s; %s", p.Sizing.Workload, p.Sizing.Searched)})
		}
	}
	if pl := in.Plan; pl != nil && len(pl.Rows) > 0 && pl.NaiveFootprint > pl.Footprint {
		saved := pl.NaiveFootprint - pl.Footprint
		out = append(out, Action{Kind: "reserve-skyline", Text: fmt.Sprintf("pack the reservations of %s with LowCost: peak %s → footprint %s %s",
			plural(int64(len(planJobs(pl))), w.job, w.jobs), thousands(pl.NaiveFootprint), thousands(pl.Footprint), w.containers),
			Gain:      fmt.Sprintf("%s fewer at peak (%s)", plural(saved, w.container, w.containers), share(float64(saved)/float64(pl.NaiveFootprint))),
			GainShare: float64(saved) / float64(pl.NaiveFootprint), Section: StagePlan, Command: cmdWith(p, "plan"),
			Evidence: fmt.Sprintf("the packed load over the %s LCM against each job reserved at its arrival", timeflag.FormatSeconds(pl.LCMS))})
	}
	for _, j := range jobs {
		pr := j.Profile
		if sk := pr.Skyline; sk != nil && len(j.Runs) > 0 {
			peak := 0.0
			for _, r := range j.Runs {
				for _, v := range r.Values {
					peak = math.Max(peak, v)
				}
			}
			np := int64(math.Ceil(peak))
			if np > sk.PeakReservation && np > 0 {
				saved := np - sk.PeakReservation
				c := cmdWith(p, "skyline")
				if c != "" {
					c += " --job " + shellQuote(pr.Job)
				}
				text := fmt.Sprintf("reserve job %s's skyline: peak %d → %d containers", pr.Job, np, sk.PeakReservation)
				if w.kube && standaloneJob(pr.Job) {
					// A Job no CronJob owns has finished: set its
					// parallelism where it is created.
					text = fmt.Sprintf("create Job %s with parallelism at its skyline's peak: %d → %d pods at once", pr.Job, np, sk.PeakReservation)
				} else if w.kube {
					// A CronJob's skyline is its pods at once: its job
					// template's parallelism, which export kubernetes sets.
					text = fmt.Sprintf("set CronJob %s's parallelism to its skyline's peak: %d → %d pods at once", pr.Job, np, sk.PeakReservation)
					if k := cmdWith(p, "kubernetes"); k != "" {
						c = k
					}
				}
				out = append(out, Action{Kind: "reserve-skyline", Job: pr.Job, Text: text,
					Gain: fmt.Sprintf("%s fewer at its peak (%s)", plural(saved, w.container, w.containers), share(float64(saved)/float64(np))), GainShare: float64(saved) / float64(np),
					Section: StageSkyline, Command: c,
					Evidence: fmt.Sprintf("fitted on %d runs; the largest run peaks at %d %s", sk.Runs, np, w.containers)})
			}
		}
		for _, m := range pr.Elasticity {
			if unreliable(m) {
				continue
			}
			least := smallestMemory(m, opts.MaxPenalty)
			if !(m.IdealMemoryBytes > 0) || least >= m.IdealMemoryBytes {
				continue
			}
			pen := 0.0
			for _, c := range m.Curve {
				if c.MemoryBytes == least {
					pen = c.Penalty
				}
			}
			saved := 1 - least/m.IdealMemoryBytes
			c := cmdWith(p, "elasticity")
			if c != "" {
				c += " --job " + shellQuote(pr.Job)
			}
			if k := cmdWith(p, "kubernetes"); w.kube && k != "" && !standaloneJob(pr.Job) {
				c = k // sets the pods' memory request and limit from the model
			}
			out = append(out, Action{Kind: "shrink-memory", Job: pr.Job,
				Text: fmt.Sprintf("run the %s tasks of %s %s at %s of their ideal memory (%s instead of %s): +%s runtime, −%s memory", m.Task, w.jobOf(pr.Job), pr.Job,
					share(least/m.IdealMemoryBytes), memText(least, m.IdealMemoryBytes), memText(m.IdealMemoryBytes, m.IdealMemoryBytes), share(pen), share(saved)),
				Gain: fmt.Sprintf("%s less memory per task", memText(m.IdealMemoryBytes-least, m.IdealMemoryBytes)), GainShare: saved,
				Section: StageElasticity, Command: c,
				Evidence: fmt.Sprintf("the %s model's curve, at most %s slower (Iorgulescu et al., ATC'17 §2)", m.Kind, share(opts.MaxPenalty))})
		}
	}
	if p != nil && len(p.HarvestRuns) >= 2 {
		var hist, blind *HarvestOutcome
		for i := range p.HarvestRuns {
			switch p.HarvestRuns[i].Policy {
			case "history":
				hist = &p.HarvestRuns[i]
			case "blind":
				blind = &p.HarvestRuns[i]
			}
		}
		if hist != nil && blind != nil && blind.Killed > hist.Killed && blind.Killed > 0 {
			fewer := blind.Killed - hist.Killed
			text := fmt.Sprintf("place batch containers by the tenant classes' history (Zhang et al., OSDI'16 Algorithm 1): %d → %d killed", blind.Killed, hist.Killed)
			if w.kube {
				text = fmt.Sprintf("place batch pods on nodes by the history of the classes of %s (Zhang et al., OSDI'16 Algorithm 1): %d → %d killed", w.tenants, blind.Killed, hist.Killed)
			}
			out = append(out, Action{Kind: "harvest-history", Text: text, Gain: fmt.Sprintf("%s fewer kills (%s)", plural(fewer, w.container, w.containers), share(float64(fewer)/float64(blind.Killed))),
				GainShare: float64(fewer) / float64(blind.Killed), Section: StageHarvest, Command: cmdWith(p, "harvest"),
				Evidence: "the harvest replay, history against a placement blind to it"})
		}
	}
	// An action that saves under 1% of what it is taken from is not worth
	// a planner's time.
	kept := out[:0]
	for _, a := range out {
		if a.GainShare >= minGainShare {
			kept = append(kept, a)
		}
	}
	out = kept
	sort.SliceStable(out, func(a, b int) bool { return out[a].GainShare > out[b].GainShare })
	if len(out) > maxActions {
		out = out[:maxActions]
	}
	for i := range out {
		out[i].Rank = i + 1
	}
	return out
}

// unreliable says whether an elasticity model's own warnings say its
// measurements contradict it (a smaller memory ran faster): no action is
// built on such a model.
func unreliable(m profile.ElasticityModel) bool {
	for _, w := range m.Warnings {
		if strings.Contains(w, "non-monotone") || strings.Contains(w, "less than the ideal runtime") {
			return true
		}
	}
	return false
}
