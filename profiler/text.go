package profiler

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/wlprof/wlprof/internal/bytesize"
	"github.com/wlprof/wlprof/internal/table"
)

// MemText names a memory setting as the sweep tables do: 256M, or "-" for
// a run without one (not capped).
func MemText(b int64) string {
	if b == 0 {
		return "-"
	}
	return bytesize.Format(b)
}

// secondsText and bytesText print a statistic's median, or "-" when it
// has no sample (no successful run, or a counter the node did not measure).
func secondsText(s *Stat) string {
	if s == nil {
		return "-"
	}
	return fmt.Sprintf("%.3f", s.Median)
}

func bytesText(s *Stat) string {
	if s == nil {
		return "-"
	}
	return bytesize.Human(s.Median)
}

// OutcomesText lists a setting's outcomes with their counts, by name:
// "ok:2,oom-killed:1".
func OutcomesText(m map[string]int) string { return outcomesText(m) }

// SettingText names a setting as the sweep's notes do: "reduce at 64M,
// 2 slot(s)".
func SettingText(s Setting) string {
	return fmt.Sprintf("%s at %s, %d slot(s)", s.Task, memLabel(s.MemBytes), s.Slots)
}

func outcomesText(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s:%d", k, m[k])
	}
	return strings.Join(parts, ",")
}

// WriteText writes the sweep table, each setting's notes, then each
// task's job profile (Polo, PhD thesis, UPC 2014 Table 4.2) with its phases' shares of the
// node, as wlprof profile show and profile run print them.
func (rep *Report) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "job %s: %d run(s) in %d setting(s); medians over successful repetitions, spread = (max-min)/median\n",
		rep.Job, len(rep.Runs), len(rep.Settings))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tMEM\tSLOTS\tRUNS\tOK\tWALL_S\tSPREAD\tCPU_S\tPEAK_RSS\tREAD\tWRITE\tSPILLED\tCAPPED\tOUTCOMES")
	for _, s := range rep.Settings {
		spread := "-"
		if s.WallS != nil {
			spread = fmt.Sprintf("%.1f%%", 100*s.WallS.Spread)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%v\t%s\n", s.Task, MemText(s.MemBytes), s.Slots,
			s.Runs, s.OK, secondsText(s.WallS), spread, secondsText(s.CPUS), bytesText(s.PeakRSSBytes),
			bytesText(s.ReadBytes), bytesText(s.WriteBytes), bytesText(s.SpilledBytes), s.Capped, outcomesText(s.Outcomes))
	}
	tw.Flush()
	for _, s := range rep.Settings {
		for _, n := range s.Notes {
			fmt.Fprintf(w, "note: %s\n", n)
		}
	}
	for _, p := range rep.Profiles {
		fmt.Fprintf(w, "\nprofile of %s (Polo, PhD thesis, UPC 2014 Table 4.2): fastest at %d slot(s), mem %s: %.3f s per task (run %s)\n",
			p.Task, p.Slots, MemText(p.MemBytes), p.TaskS, p.Run)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "PHASE\tSTART_S\tEND_S\tCPU/TASK\tIO/TASK\tIO_BYTES/S\tMEM/TASK")
		for _, ph := range p.Phases {
			fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.1f%%\t%.1f%%\t%s\t%.2f%%\n", ph.Phase, ph.StartS, ph.EndS, 100*ph.CPU, 100*ph.IO,
				bytesize.Human(ph.IOBytesPerS), 100*ph.Memory)
		}
		tw.Flush()
		fmt.Fprintf(w, "shares are of the node; its I/O capacity %s/s (%s)\n", bytesize.Human(p.IOCapacityBytesPerS), p.IOCapacitySource)
		for _, warn := range p.Warnings {
			fmt.Fprintf(w, "note: %s\n", warn)
		}
	}
	return nil
}

// WriteCSV writes one row per run.
func (rep *Report) WriteCSV(w io.Writer) error {
	return table.CSV(w, []string{"job", "task", "run_id", "mem_bytes", "slots", "repetition", "wall_s", "cpu_s", "peak_rss_bytes",
		"read_bytes", "write_bytes", "spilled_bytes", "exit_code", "outcome", "capped"}, func(row func(...string)) {
		for _, r := range rep.Runs {
			row(r.Job, r.Task, r.RunID, fmt.Sprint(r.MemBytes), fmt.Sprint(r.Slots), fmt.Sprint(r.Repetition),
				strconv.FormatFloat(r.WallS, 'f', 3, 64), strconv.FormatFloat(r.CPUS, 'f', 3, 64), fmt.Sprint(r.PeakRSSBytes),
				fmt.Sprint(r.ReadBytes), fmt.Sprint(r.WriteBytes), fmt.Sprint(r.SpilledBytes), fmt.Sprint(r.ExitCode),
				r.Outcome, fmt.Sprint(r.Capped))
		}
	})
}
