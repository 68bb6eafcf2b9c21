package simulate

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/bytesize"
	textable "github.com/wlprof/wlprof/internal/table"
	"github.com/wlprof/wlprof/internal/timeflag"
)

// maxTextJobs is how many jobs the text output lists at most.
const maxTextJobs = 30

// WriteText writes the result as wlprof simulate prints it: the cluster,
// a row per policy, the change YARN-ME makes, the first jobs' JCTs per
// policy, the swept clusters and targets, then what was not simulated and
// the warnings.
func (r *Result) WriteText(out io.Writer) error {
	c := r.Cluster
	jobs, tasks := 0, int64(0)
	if len(r.Policies) > 0 {
		jobs, tasks = r.Policies[0].Jobs, r.Policies[0].Tasks
	}
	disk := "elastic tasks' disk not limited"
	if c.NodeDiskBytesPerS > 0 {
		disk = fmt.Sprintf("elastic tasks may take %s/s of a node's %s/s of disk", bytesize.Human(c.ElasticDiskShare*float64(c.NodeDiskBytesPerS)),
			bytesize.Human(float64(c.NodeDiskBytesPerS)))
	}
	fmt.Fprintf(out, "%d %s, %d tasks, on %s (memory in %s units; %s)\n", jobs, plural(jobs, "job", "jobs"), tasks,
		c.Describe(), bytesize.Format(c.MemoryUnitBytes), disk)
	if wl := r.Workload; wl != nil && wl.History != nil {
		h := wl.History
		at := "no run has a start time"
		if h.FirstSubmitMs != dataset.NoTime {
			at = "0 s is " + time.UnixMilli(h.FirstSubmitMs).UTC().Format("2006-01-02 15:04:05 UTC")
		}
		from := fmt.Sprintf("%d task attempts", h.Attempts)
		if h.InstanceJobs > 0 || h.InstanceJobsSkipped > 0 {
			// Alibaba jobs: the instance runs they came from, and how many
			// jobs were left out.
			ali := fmt.Sprintf("%d Alibaba task instance runs", h.Instances)
			if h.Attempts > 0 {
				ali = from + " and " + ali
			}
			if h.InstanceJobsSkipped > 0 {
				ali += fmt.Sprintf(", %d Alibaba %s left out (see the warnings)", h.InstanceJobsSkipped, plural(h.InstanceJobsSkipped, "job", "jobs"))
			}
			from = ali
		}
		fmt.Fprintf(out, "workload: %d %s of %d recurring %s, replayed from the dataset's %s (%s)", h.Runs, plural(h.Runs, "run", "runs"),
			h.Jobs, plural(h.Jobs, "job", "jobs"), from, at)
		if h.RunsWithoutAttempts > 0 {
			fmt.Fprintf(out, "; %d %s without task attempts left out", h.RunsWithoutAttempts, plural(h.RunsWithoutAttempts, "run", "runs"))
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out)
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "POLICY\tMAKESPAN\tMEAN_JCT\tMEDIAN_JCT\tP95_JCT\tMEMORY_UTILISATION\tTASKS\tELASTIC_TASKS")
	for _, p := range r.Policies {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\n", p.Policy, timeflag.FormatSeconds(p.MakespanS), timeflag.FormatSeconds(p.MeanJCTS),
			timeflag.FormatSeconds(p.MedianJCTS), timeflag.FormatSeconds(p.P95JCTS), pctText(p.MemoryUtilisation), p.Tasks, p.ElasticTasks)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(r.Policies) == 2 && r.Policies[0].MakespanS > 0 && r.Policies[0].MeanJCTS > 0 {
		a, b := r.Policies[0], r.Policies[1]
		fmt.Fprintf(out, "%s against %s: makespan %s, mean JCT %s\n", b.Policy, a.Policy, changeText(b.MakespanS/a.MakespanS), changeText(b.MeanJCTS/a.MeanJCTS))
	}
	if len(r.Jobs) > 0 && len(r.Policies) > 0 {
		fmt.Fprintln(out)
		w = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		head := []string{"JOB", "SUBMIT"}
		for _, p := range r.Policies {
			head = append(head, strings.ToUpper(strings.ReplaceAll(string(p.Policy), "-", "_"))+"_JCT")
		}
		observed := false
		for _, j := range r.Jobs {
			observed = observed || j.ObservedJCTS > 0
		}
		head = append(head, "ELASTIC_TASKS")
		if observed {
			head = append(head, "OBSERVED_JCT")
		}
		fmt.Fprintln(w, strings.Join(head, "\t"))
		type row struct {
			submit  float64
			jct     []string
			elastic int32
			obs     float64
		}
		rows := map[string]*row{}
		var order []string
		for _, j := range r.Jobs {
			rw := rows[j.Job]
			if rw == nil {
				rw = &row{submit: j.SubmitS, obs: j.ObservedJCTS}
				rows[j.Job] = rw
				order = append(order, j.Job)
			}
			rw.jct = append(rw.jct, timeflag.FormatSeconds(j.JCTS))
			rw.elastic += j.ElasticTasks
		}
		for i, id := range order {
			if i == maxTextJobs {
				break
			}
			rw := rows[id]
			fmt.Fprintf(w, "%s\t%s\t%s\t%d", id, timeflag.FormatSeconds(rw.submit), strings.Join(rw.jct, "\t"), rw.elastic)
			if observed {
				obs := "-"
				if rw.obs > 0 {
					obs = timeflag.FormatSeconds(rw.obs)
				}
				fmt.Fprintf(w, "\t%s", obs)
			}
			fmt.Fprintln(w)
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if len(order) > maxTextJobs {
			fmt.Fprintf(out, "(%d of %d jobs shown; -o json or -o csv for all)\n", maxTextJobs, len(order))
		}
	}
	if len(r.Sweep) > 0 {
		fmt.Fprintln(out, "\nclusters:")
		w = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		shapes := len(r.Sweep[0].Shapes) > 0
		if shapes {
			fmt.Fprintln(w, "  SHAPES\tNODES\tMEMORY\tPOLICY\tMAKESPAN\tMEAN_JCT\tMEMORY_UTILISATION\tELASTIC_TASKS\tJOBS_LEFT_OUT")
		} else {
			fmt.Fprintln(w, "  NODES\tNODE_MEMORY\tPOLICY\tMAKESPAN\tMEAN_JCT\tMEMORY_UTILISATION\tELASTIC_TASKS\tJOBS_LEFT_OUT")
		}
		for _, s := range r.Sweep {
			if shapes {
				fmt.Fprintf(w, "  %s\t%d\t%s\t", ShapesString(s.Shapes), s.Nodes, bytesize.Human(float64(s.MemoryBytes)))
			} else {
				fmt.Fprintf(w, "  %d\t%s\t", s.Nodes, bytesize.Human(float64(s.NodeMemoryBytes)))
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%d\n", s.Policy, timeflag.FormatSeconds(s.MakespanS),
				timeflag.FormatSeconds(s.MeanJCTS), pctText(s.MemoryUtilisation), s.ElasticTasks, s.JobsLeftOut)
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	for _, t := range r.Targets {
		if t.Nodes == nil {
			fmt.Fprintf(out, "target makespan %s: no swept cluster meets it under %s\n", timeflag.FormatSeconds(t.TargetMakespanS), t.Policy)
			continue
		}
		if len(t.Shapes) > 0 {
			fmt.Fprintf(out, "target makespan %s: %s needs %s (%d nodes, %s of memory; makespan %s)\n", timeflag.FormatSeconds(t.TargetMakespanS), t.Policy,
				ShapesString(t.Shapes), *t.Nodes, bytesize.Human(float64(*t.MemoryBytes)), timeflag.FormatSeconds(*t.MakespanS))
			continue
		}
		fmt.Fprintf(out, "target makespan %s: %s needs %d × %s (%s of memory; makespan %s)\n", timeflag.FormatSeconds(t.TargetMakespanS), t.Policy, *t.Nodes,
			bytesize.Human(float64(*t.NodeMemoryBytes)), bytesize.Human(float64(*t.Nodes)*float64(*t.NodeMemoryBytes)), timeflag.FormatSeconds(*t.MakespanS))
	}
	if len(r.Unschedulable) > 0 {
		fmt.Fprintln(out, "\nnot simulated:")
		for _, u := range r.Unschedulable {
			fmt.Fprintf(out, "  %s (task %s): %s\n", u.Job, u.Task, u.Reason)
		}
	}
	for _, s := range r.Warnings {
		fmt.Fprintf(out, "warning: %s\n", s)
	}
	return nil
}

// changeText writes a ratio as a signed percentage change.
func changeText(ratio float64) string {
	return strconv.FormatFloat(100*(ratio-1), 'f', 1, 64) + "%"
}

// WriteCSV writes one row per job and policy of the first cluster.
func (r *Result) WriteCSV(out io.Writer) error {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return textable.CSV(out, []string{"nodes", "node_memory_bytes", "node_cores", "policy", "job", "submit_s", "finish_s", "jct_s", "tasks", "elastic_tasks", "observed_jct_s"},
		func(row func(...string)) {
			for _, j := range r.Jobs {
				obs := ""
				if j.ObservedJCTS > 0 {
					obs = f(j.ObservedJCTS)
				}
				row(strconv.Itoa(r.Cluster.Nodes), strconv.FormatInt(r.Cluster.NodeMemoryBytes, 10), strconv.Itoa(r.Cluster.NodeCores),
					string(j.Policy), j.Job, f(j.SubmitS), f(j.FinishS), f(j.JCTS), strconv.Itoa(int(j.Tasks)), strconv.Itoa(int(j.ElasticTasks)), obs)
			}
		})
}

// pctText writes a share as a percentage with one decimal.
func pctText(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }

// plural is one or many by n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
