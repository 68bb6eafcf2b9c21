package placement

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/wlprof/wlprof/internal/timeflag"
)

func assumptions(r *Result, o *Options) []string {
	return []string{
		"disruptions: the traces record no reimages; a machine's REMOVE event (the start of a REMOVE→ADD cycle, or a removal the trace never closes) stands in for one, since either way its disk's data is gone; UPDATEs and the ADDs of machines there at the start are not disruptions",
		"reimage rate: a tenant's disruptions / Σ over its servers with events of the time from the server's first event (or the window's start) to the window's end, in months of 30 days",
		"tenants: a machine is the usage server of the same id; a server is its primary tenant's, the tenant whose usage rows there sum to the most CPU; machines no usage row names are left out",
		fmt.Sprintf("peak: the classify stage's peak, the %gth percentile (nearest rank) of the tenant's average server over its observed slots, a fraction of a server", r.PeakPercentile),
		fmt.Sprintf("storage: %s per server (--server-storage; no trace records disk capacity), a tenant's storage is that × its servers with events", FormatBytes(o.ServerStorageBytes)),
		"classes (Algorithm 2 lines 4–5, one class per tenant): tenants sorted by reimage rate are cut into three rows at S/3, then each row sorted by peak into three columns at a third of its storage; a tenant goes to the side of a cut that holds the midpoint of its storage (placement/doc.go)",
	}
}

func warnings(r *Result, in Input) []string {
	var w []string
	if r.UnjoinedMachines > 0 {
		w = append(w, fmt.Sprintf("%d of %d machines with events are no server of the usage table: left out (their ids must match the usage's server names)", r.UnjoinedMachines, r.Machines))
	}
	if in.SharedServers > 0 {
		w = append(w, fmt.Sprintf("%s usage rows of several tenants: each went to the tenant with the most CPU there (for one tenant per server, ingest usage keyed by machine or by user)", count(in.SharedServers, "server has", "servers have")))
	}
	if len(r.Excluded) > 0 {
		w = append(w, fmt.Sprintf("%s left out of the classes (see excluded)", count(len(r.Excluded), "tenant is", "tenants are")))
	}
	if n := len(r.Tenants); n < 9 {
		w = append(w, fmt.Sprintf("only %d tenants with a machine history: some of the nine classes are empty, and Algorithm 2 cannot place three replicas in distinct rows and columns of non-empty classes", n))
	}
	big := 0
	for _, t := range r.Tenants {
		if t.StorageBytes > r.ClassTargetBytes {
			big++
		}
	}
	if big > 0 {
		w = append(w, fmt.Sprintf("%s more than S/9: with one class per tenant, its class cannot hold S/9", count(big, "tenant holds", "tenants each hold")))
	}
	if r.Disruptions == 0 {
		w = append(w, "no machine was removed in the window: every tenant's reimage rate is 0, so the rows are cut by peak (the tie-break) and say nothing about durability")
	}
	if r.Months < 1 {
		w = append(w, fmt.Sprintf("the window is %.2f months: Zhang et al., OSDI'16 §3 measures rates over years; rates from a short trace are noisy", r.Months))
	}
	return w
}

// WriteText writes the result as wlprof placement prints it: the window
// and storage, the nine classes, the tenants, the stability, then the
// assumptions and warnings.
func (r *Result) WriteText(out io.Writer) error {
	day := func(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04") }
	fmt.Fprintf(out, "machine history: %s with events, %d of them usage servers; %s to %s UTC (%.2f months); %s (REMOVE events)\n",
		count(r.Machines, "machine", "machines"), r.JoinedMachines, day(r.StartMs), day(r.EndMs), r.Months, count(r.Disruptions, "disruption", "disruptions"))
	fmt.Fprintf(out, "storage: %s per server, S = %s over %s, S/9 = %s\n\n", FormatBytes(r.ServerStorageBytes), FormatBytes(r.TotalStorageBytes), count(len(r.Tenants), "tenant", "tenants"), FormatBytes(r.ClassTargetBytes))
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "CLASS\tTENANTS\tSERVERS\tSTORAGE\tSHARE\tREIMAGES/SERVER/MONTH\tPEAK\tMEMBERS")
	for _, c := range r.Classes {
		fmt.Fprintf(w, "%s\t%d\t%d\t%s\t%.1f%%\t%s\t%s\t%s\n", c.Class, len(c.Tenants), c.Servers, FormatBytes(c.StorageBytes), 100*c.StorageShare,
			span(c.MinRate, c.MaxRate, 3), span(c.MinPeak, c.MaxPeak, 2), members(c.Tenants))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(out)
	w = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "TENANT\tCLASS\tSERVERS\tDISRUPTIONS\tREIMAGES/SERVER/MONTH\tPEAK\tSTORAGE")
	for _, t := range r.Tenants {
		fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%.3f\t%.2f\t%s\n", t.Tenant, t.Class, t.Servers, t.Disruptions, t.Rate, t.Peak, FormatBytes(t.StorageBytes))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if len(r.Excluded) > 0 {
		fmt.Fprintln(out, "\nexcluded:")
		for _, e := range r.Excluded {
			fmt.Fprintf(out, "  - %s: %s\n", e.Tenant, e.Reason)
		}
	}
	fmt.Fprintf(out, "\nstability of the reimage groups (windows of %s): ", timeflag.FormatDuration(time.Duration(r.Stability.WindowS*float64(time.Second))))
	if r.Stability.MeanSameFraction == nil {
		fmt.Fprintln(out, r.Stability.Reason)
	} else {
		fs := make([]string, len(r.Stability.SameFraction))
		for i, f := range r.Stability.SameFraction {
			fs[i] = fmt.Sprintf("%.0f%%", 100*f)
		}
		fmt.Fprintf(out, "%d windows; tenants in the same group as in the window before: %s (mean %.0f%%)\n", r.Stability.Windows, strings.Join(fs, ", "), 100**r.Stability.MeanSameFraction)
	}
	if rp := r.Replay; rp != nil {
		fmt.Fprintf(out, "\ndurability and availability replay: %d blocks × %d replicas on %s in %s, seeds %d–%d (mean, min–max over them)\n",
			rp.Blocks, rp.Replicas, count(rp.Servers, "server", "servers"), count(rp.Racks, "rack", "racks"), rp.Seeds[0], rp.Seeds[len(rp.Seeds)-1])
		w = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(w, "POLICY\tLOST_BLOCKS\tLOST_SHARE\tFAILED_ACCESSES\tFAILED_SHARE\tUNDER_REPLICATED_AT_END")
		for _, p := range rp.Policies {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", p.Policy, spreadText(p.LostBlocks, false), spreadText(p.LostShare, true),
				spreadText(p.FailedAccesses, false), spreadText(p.FailedShare, true), spreadText(p.UnderReplicated, false))
		}
		if err := w.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(out, "replay assumptions:")
		for _, a := range rp.Assumptions {
			fmt.Fprintf(out, "  - %s\n", a)
		}
		for _, wn := range rp.Warnings {
			fmt.Fprintf(out, "  - warning: %s\n", wn)
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

// count is "1 tenant is" or "3 tenants are".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// spreadText is "mean (min–max)", as a percentage when share.
func spreadText(sp Spread, share bool) string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	if share {
		f = func(v float64) string { return strconv.FormatFloat(100*v, 'f', 4, 64) + "%" }
	}
	if sp.Min == sp.Max {
		return f(sp.Mean)
	}
	return f(sp.Mean) + " (" + f(sp.Min) + "–" + f(sp.Max) + ")"
}

func span(lo, hi *float64, prec int) string {
	if lo == nil {
		return "-"
	}
	a, b := strconv.FormatFloat(*lo, 'f', prec, 64), strconv.FormatFloat(*hi, 'f', prec, 64)
	if a == b {
		return a
	}
	return a + "–" + b
}

// members lists a class's tenants, the first few.
func members(ts []string) string {
	if len(ts) == 0 {
		return "-"
	}
	const show = 5
	if len(ts) <= show {
		return strings.Join(ts, " ")
	}
	return strings.Join(ts[:show], " ") + fmt.Sprintf(" (+%d)", len(ts)-show)
}

// WriteCSV writes one row per tenant with its class.
func (r *Result) WriteCSV(out io.Writer) error {
	w := csv.NewWriter(out)
	_ = w.Write([]string{"tenant", "class", "reimage_group", "peak_group", "servers", "usage_servers", "disruptions", "exposure_months", "reimages_per_server_month", "peak", "storage_bytes"})
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	for _, t := range r.Tenants {
		_ = w.Write([]string{t.Tenant, t.Class, t.ReimageGroup, t.PeakGroup, strconv.Itoa(t.Servers), strconv.Itoa(t.UsageServers),
			strconv.Itoa(t.Disruptions), g(t.ExposureMonths), g(t.Rate), g(t.Peak), g(t.StorageBytes)})
	}
	w.Flush()
	return w.Error()
}
