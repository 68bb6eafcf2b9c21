package harvest

import (
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteText writes the result as wlprof harvest prints it: the world, the
// workload and thresholds, a row per policy, the change Algorithm 1
// makes, the same by pattern and by job type, then the assumptions and
// warnings.
func (r *Result) WriteText(out io.Writer) error {
	world, workload, types := r.Summary()
	fmt.Fprintf(out, "%s\nworkload: %s\njob types: %s\n\n", world, workload, types)
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "POLICY\tCONTAINERS\tKILLED\tKILLED_SHARE\tHARVESTED_CORE_H\tLOST_CORE_H\tUNPLACED\tMULTI_CLASS_JOBS\tFALLBACK_JOBS")
	for _, p := range r.Policies {
		fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%.1f\t%.1f\t%d\t%d\t%d\n", p.Policy, p.Containers, p.Killed, share(p.Killed, p.Containers),
			p.HarvestedCoreH, p.LostCoreH, p.Unplaced, p.MultiClass, p.Fallback)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(r.Policies) >= 2 {
		h, b := r.Policies[0], r.Policies[1]
		fmt.Fprintf(out, "history against blind: killed %s, lost core-hours %s, harvested core-hours %s\n",
			change(float64(h.Killed), float64(b.Killed)), change(h.LostCoreH, b.LostCoreH), change(h.HarvestedCoreH, b.HarvestedCoreH))
	}
	// Job execution times (Zhang et al., OSDI'16 §6, Fig. 11, 13, 14):
	// every job runs to its end, killed tasks again, so completed
	// core-hours are the same work under every policy and wasted ones
	// what kills cost on top.
	fmt.Fprintln(out)
	w = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "POLICY\tJOBS\tFINISHED\tMEAN_JOB_S\tP50_JOB_S\tP95_JOB_S\tMEAN_WAIT_S\tJOBS_WITH_KILLS\tCOMPLETED_CORE_H\tWASTED_CORE_H\tPRIMARY_CONTENDED_CORE_H")
	for _, p := range r.Policies {
		jt := p.JobTimes
		if jt == nil {
			jt = &JobTimes{}
		}
		fmt.Fprintf(w, "%s\t%d\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%d\t%.1f\t%.1f\t%.1f\n", p.Policy, jt.Jobs, jt.Finished, jt.MeanS, jt.P50S, jt.P95S,
			jt.MeanWaitS, jt.JobsWithKills, p.CompletedCoreH, p.LostCoreH, p.ContendedCoreH)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(r.Policies) >= 3 {
		h, b, st := r.Policies[0].JobTimes, r.Policies[1].JobTimes, r.Policies[2].JobTimes
		if h != nil && b != nil && st != nil {
			fmt.Fprintf(out, "mean job execution time: history against blind %s, stock against history %s (Zhang et al., OSDI'16 §6: YARN-H/Tez-H 938 s against YARN-PT's 1181 s, −20.6%%; YARN-Stock the lowest, at the primary tenants' cost)\n",
				change(h.MeanS, b.MeanS), change(st.MeanS, h.MeanS))
		}
	}
	for _, g := range []struct {
		title string
		by    func(*Outcome) map[string]*Tally
	}{{"PATTERN", func(o *Outcome) map[string]*Tally { return o.ByPattern }}, {"JOB_TYPE", func(o *Outcome) map[string]*Tally { return o.ByType }}} {
		fmt.Fprintln(out)
		w = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintf(w, "%s\tPOLICY\tCONTAINERS\tKILLED\tKILLED_SHARE\tHARVESTED_CORE_H\tLOST_CORE_H\n", g.title)
		for _, k := range groupKeys(r, g.by) {
			for _, p := range r.Policies {
				t := g.by(p)[k]
				if t == nil {
					t = &Tally{}
				}
				fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%s\t%.1f\t%.1f\n", k, p.Policy, t.Containers, t.Killed, share(t.Killed, t.Containers), t.HarvestedCoreH, t.LostCoreH)
			}
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	fmt.Fprintln(out, "\nassumptions:")
	for _, a := range r.Assumptions {
		fmt.Fprintf(out, "  - %s\n", a)
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintln(out, "\nwarnings:")
		for _, wn := range r.Warnings {
			fmt.Fprintf(out, "  - %s\n", wn)
		}
	}
	return nil
}

// Summary is the result's first lines in words: the world, the workload
// and the job types' thresholds.
func (r *Result) Summary() (world, workload, types string) {
	day := func(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04") }
	world = fmt.Sprintf("%d tenants on %d servers of %d cores (%d reserved for the primary tenant), %gs grid; replay %s to %s UTC, %d classifications (every %s)",
		r.Tenants, r.Servers, r.Cores, r.ReserveCores, r.StepS, day(r.StartMs), day(r.EndMs), r.Epochs, fmtDur(time.Duration(r.ReclassifyS*float64(time.Second))))
	src := "the dataset's runs table"
	if r.Workload == WorkloadPoisson {
		src = fmt.Sprintf("a synthetic Poisson stream (seed %d)", r.Seed)
	}
	workload = fmt.Sprintf("%s: %d jobs (%d short, %d medium, %d long), %d runs before the replay", src, r.Jobs,
		r.JobsByType["short"], r.JobsByType["medium"], r.JobsByType["long"], r.HistoryRuns)
	types = fmt.Sprintf("short below %s, long above %s (%s)", secs(r.Thresholds.ShortBelowS), secs(r.Thresholds.LongAboveS), thresholdsFrom(r.Thresholds.From))
	if th := r.Thresholds; th.From == "history" {
		types += fmt.Sprintf("; capacity shares of their preferred classes: short (unpredictable) %.0f%%, medium (periodic) %.0f%%, long (constant) %.0f%%",
			100*th.Shares[0], 100*th.Shares[1], 100*th.Shares[2])
	}
	return world, workload, types
}

// groupKeys are a breakdown's keys over every policy, in a fixed order:
// job types short, medium, long; patterns by name, "none" last.
func groupKeys(r *Result, by func(*Outcome) map[string]*Tally) []string {
	seen := map[string]bool{}
	for _, p := range r.Policies {
		for k := range by(p) {
			seen[k] = true
		}
	}
	rank := func(k string) string {
		switch k {
		case "short":
			return "0"
		case "medium":
			return "1"
		case "long":
			return "2"
		case "none":
			return "~"
		}
		return k
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool { return rank(keys[a]) < rank(keys[b]) })
	return keys
}

// WriteCSV writes one row per policy and group: group "all" (key ""),
// "pattern" or "job_type".
func (r *Result) WriteCSV(out io.Writer) error {
	w := csv.NewWriter(out)
	_ = w.Write([]string{"policy", "group", "key", "containers", "completed", "killed", "running", "harvested_core_h", "lost_core_h",
		"completed_core_h", "jobs", "finished_jobs", "mean_job_s", "p95_job_s"})
	row := func(p *Outcome, group, key string, t *Tally) {
		jobs := []string{"", "", "", ""}
		jt := p.JobTimes
		switch group {
		case "pattern":
			jt = nil // a job's tasks may land in several patterns
		case "job_type":
			jt = p.JobTimesByType[key]
		}
		if jt != nil {
			jobs = []string{strconv.Itoa(jt.Jobs), strconv.Itoa(jt.Finished), strconv.FormatFloat(jt.MeanS, 'g', 10, 64), strconv.FormatFloat(jt.P95S, 'g', 10, 64)}
		}
		_ = w.Write(append([]string{string(p.Policy), group, key, strconv.FormatInt(t.Containers, 10), strconv.FormatInt(t.Completed, 10),
			strconv.FormatInt(t.Killed, 10), strconv.FormatInt(t.Running, 10), strconv.FormatFloat(t.HarvestedCoreH, 'g', 10, 64),
			strconv.FormatFloat(t.LostCoreH, 'g', 10, 64), strconv.FormatFloat(t.CompletedCoreH, 'g', 10, 64)}, jobs...))
	}
	for _, p := range r.Policies {
		row(p, "all", "", &p.Tally)
		for _, g := range []struct {
			name string
			by   func(*Outcome) map[string]*Tally
		}{{"pattern", func(o *Outcome) map[string]*Tally { return o.ByPattern }}, {"job_type", func(o *Outcome) map[string]*Tally { return o.ByType }}} {
			for _, k := range groupKeys(r, g.by) {
				t := g.by(p)[k]
				if t == nil {
					t = &Tally{}
				}
				row(p, g.name, k, t)
			}
		}
	}
	w.Flush()
	return w.Error()
}

func share(a, b int64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(a)/float64(b))
}

func change(a, b float64) string {
	if b == 0 {
		if a == 0 {
			return "the same"
		}
		return "from none"
	}
	d := 100 * (a/b - 1)
	s := fmt.Sprintf("%+.1f%%", d)
	return strings.Replace(s, "-", "−", 1)
}

func secs(s float64) string { return strconv.FormatFloat(s, 'f', 1, 64) + "s" }

func thresholdsFrom(from string) string {
	switch from {
	case "history":
		return "from the run durations before each classification and its classes' capacity; the last classification's shown"
	case "paper":
		return "Zhang et al., OSDI'16 §6's, too few runs to derive them"
	}
	return "given"
}
