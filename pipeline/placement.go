package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/timeflag"
	"github.com/wlprof/wlprof/placement"
	"github.com/wlprof/wlprof/reports"
)

// addPlacement, when o.Placement is set, runs the placement stage as
// wlprof placement does and keeps what the report's section shows.
func (r *reportInput) addPlacement(ctx context.Context, ds *dataset.Dataset, o Options) error {
	if o.Placement == nil {
		r.note(reports.StagePlacement, "Not asked for: --placement clusters the primary tenants into the 3 × 3 classes of Zhang et al., OSDI'16 §4.2 (reimage rate × peak CPU, S/9 of the storage each) from the machines' history, and replays stock HDFS placement against Algorithm 2 for blocks lost and accesses failed.")
		return nil
	}
	if ds.Rows(dataset.MachineEventsTable.Name) == 0 {
		r.note(reports.StagePlacement, "No machine events in the dataset: the classes need each machine's history; ingest google2019-machine-events or alibaba2018-machine-meta beside the usage (machine ids as the usage's server names).")
		return nil
	}
	if ds.Rows(dataset.UsageTable.Name) == 0 {
		r.note(reports.StagePlacement, "No usage table in the dataset: the machines' tenants and the tenants' peaks come from it; ingest utilisation keyed by machine (google2019-usage, alibaba2018-machine, csv).")
		return nil
	}
	opts := *o.Placement
	var res *placement.Result
	err := r.around(reports.StagePlacement, func() (err error) {
		res, err = placement.Contract.Execute(ctx, ds, opts)
		return err
	})
	switch {
	case errors.Is(err, placement.ErrNoServers), errors.Is(err, placement.ErrNoUsage):
		r.note(reports.StagePlacement, err.Error()+".")
		return nil
	case err != nil:
		return fmt.Errorf("placement: %w", err)
	}
	r.in.Placement = placementSection(res)
	return nil
}

// placementSection is what the report shows of a result.
func placementSection(res *placement.Result) *reports.Placement {
	day := func(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02 15:04") }
	fb := placement.FormatBytes
	p := &reports.Placement{Tenants: len(res.Tenants),
		Summary: fmt.Sprintf("%s with machine events, %d of them servers of the usage table, from %s to %s UTC (%.2f months); %s. The traces record no reimages: a machine's REMOVE event stands in for one, since its disk's data is gone either way. Storage: %s per server (assumed: no trace records disk capacity), S = %s over %s, S/9 = %s.",
			plural(res.Machines, "machine", "machines"), res.JoinedMachines, day(res.StartMs), day(res.EndMs), res.Months,
			plural(res.Disruptions, "disruption", "disruptions"), fb(res.ServerStorageBytes), fb(res.TotalStorageBytes),
			plural(len(res.Tenants), "tenant", "tenants"), fb(res.ClassTargetBytes)),
		Assumptions: reportFlags(res.Assumptions), Warnings: res.Warnings}
	for _, c := range res.Classes {
		p.Classes = append(p.Classes, reports.PlacementClass{Class: c.Class, ReimageGroup: c.ReimageGroup, PeakGroup: c.PeakGroup,
			Tenants: len(c.Tenants), Servers: c.Servers, Storage: fb(c.StorageBytes), Share: c.StorageShare,
			Rates: span(c.MinRate, c.MaxRate, 3), Peaks: span(c.MinPeak, c.MaxPeak, 2), Members: firstNames(c.Tenants, 5)})
	}
	st := res.Stability
	win := timeflag.FormatDuration(time.Duration(st.WindowS * float64(time.Second)))
	if st.MeanSameFraction == nil {
		p.Stability = fmt.Sprintf("Stability of the reimage groups (windows of %s, Zhang et al., OSDI'16 Fig. 6): %s.", win, reportFlags([]string{st.Reason})[0])
	} else {
		fs := make([]string, len(st.SameFraction))
		for i, f := range st.SameFraction {
			fs[i] = fmt.Sprintf("%.0f%%", 100*f)
		}
		p.Stability = fmt.Sprintf("Stability of the reimage groups (windows of %s, Zhang et al., OSDI'16 Fig. 6): over %d windows, the tenants in the same group as in the window before: %s (mean %.0f%%).",
			win, st.Windows, strings.Join(fs, ", "), 100**st.MeanSameFraction)
	}
	// The excluded tenants, the first few: a whole trace leaves out
	// thousands (wlprof placement -o json lists them all).
	const showExcluded = 10
	for i, e := range res.Excluded {
		if i == showExcluded {
			p.Warnings = append(p.Warnings, fmt.Sprintf("excluded: %d more (wlprof placement -o json lists them)", len(res.Excluded)-showExcluded))
			break
		}
		p.Warnings = append(p.Warnings, "excluded: "+e.Tenant+": "+e.Reason)
	}
	rp := res.Replay
	if rp == nil {
		p.Replay = "No durability and availability replay (--placement-blocks 0)."
		return p
	}
	p.Replay = fmt.Sprintf("Durability and availability replay (Zhang et al., OSDI'16 §6, Fig. 15/16): %d blocks × %d replicas on %s in %s, under stock HDFS placement and under Algorithm 2, over the same removals, busy periods (CPU above %g) and %d accesses; seeds %d–%d, mean (min–max) over them.",
		rp.Blocks, rp.Replicas, plural(rp.Servers, "server", "servers"), plural(rp.Racks, "rack", "racks"), rp.BusyThreshold, rp.Accesses, rp.Seeds[0], rp.Seeds[len(rp.Seeds)-1])
	for _, pol := range rp.Policies {
		p.Policies = append(p.Policies, reports.PlacementPolicy{Policy: pol.Policy,
			LostBlocks:  reports.PlacementSpread{Mean: pol.LostBlocks.Mean, Min: pol.LostBlocks.Min, Max: pol.LostBlocks.Max},
			FailedShare: reports.PlacementSpread{Mean: pol.FailedShare.Mean, Min: pol.FailedShare.Min, Max: pol.FailedShare.Max}})
	}
	p.Assumptions = append(append([]string{}, p.Assumptions...), rp.Assumptions...)
	p.Warnings = append(p.Warnings, rp.Warnings...)
	return p
}

// reportFlags names wlprof placement's flags in the stage's text as the
// report's: --server-storage is --placement-server-storage.
func reportFlags(texts []string) []string {
	out := make([]string, len(texts))
	for i, s := range texts {
		out[i] = strings.NewReplacer("--server-storage", "--placement-server-storage", "--stability-window", "--placement-stability-window").Replace(s)
	}
	return out
}

// plural is "1 rack" or "4 racks".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// span is a class's range of values, "-" for an empty class.
func span(lo, hi *float64, prec int) string {
	if lo == nil || hi == nil {
		return "-"
	}
	a, b := strconv.FormatFloat(*lo, 'f', prec, 64), strconv.FormatFloat(*hi, 'f', prec, 64)
	if a == b {
		return a
	}
	return a + "–" + b
}

// firstNames lists the first n names and how many more there are.
func firstNames(names []string, n int) string {
	if len(names) == 0 {
		return "-"
	}
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" (+%d)", len(names)-n)
}
