package pipeline

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// eraSpan is how far apart the data's instants may be before the report
// warns: the analyses read a dataset as one cluster over one stretch of
// time (classify's month, the harvest's week), and inputs years apart
// (the demo mixes 2014, 2016, 2018 and 2024 traces) are not that.
const eraSpan = 90 * 24 * time.Hour

// eras says, once, when the dataset's utilisation series and job runs
// span far more than an analysis window: which years hold how much. ""
// when they do not.
func eras(ctx context.Context, ds *dataset.Dataset) (string, error) {
	type tally struct{ series, runs int }
	years := map[int]*tally{}
	lo, hi := int64(0), int64(0)
	seen := false
	note := func(ms int64) {
		if !seen || ms < lo {
			lo = ms
		}
		if !seen || ms > hi {
			hi = ms
		}
		seen = true
	}
	year := func(ms int64) *tally {
		y := time.UnixMilli(ms).UTC().Year()
		if years[y] == nil {
			years[y] = &tally{}
		}
		return years[y]
	}
	// The classify stage may have stored the series since ds was opened.
	if fresh, err := dataset.Open(ds.Dir); err == nil {
		ds = fresh
	}
	if ds.Rows(dataset.SeriesTable.Name) > 0 {
		err := dataset.Scan(ctx, ds, dataset.SeriesTable, func(s *dataset.Series) error {
			if len(s.Values) == 0 {
				return nil
			}
			end := s.StartMs + int64(float64(len(s.Values))*s.StepS*1000)
			note(s.StartMs)
			note(end)
			year(s.StartMs).series++
			return nil
		})
		if err != nil {
			return "", err
		}
	} else if ds.Rows(dataset.UsageTable.Name) > 0 {
		// Before the classify stage has built the series (wlprof run warns
		// before the stages run), a tenant's usage rows stand for its series:
		// it starts at the tenant's first row and ends at its last.
		// Column batches with dictionary tenants, as the stages read usage:
		// a row-by-row scan would decode every name again.
		span := map[string][2]int64{}
		var lo, hi []int64 // per batch tenant id; lo > hi: no row yet
		err := dataset.ScanUsageBatches(ctx, ds, func(b *dataset.UsageBatch) error {
			lo, hi = lo[:0], hi[:0]
			for range b.Tenants {
				lo, hi = append(lo, math.MaxInt64), append(hi, math.MinInt64)
			}
			for r := 0; r < b.Len; r++ {
				if t, ti := b.TimeMs[r], b.TenantIdx[r]; t != dataset.NoTime {
					lo[ti], hi[ti] = min(lo[ti], t), max(hi[ti], t)
				}
			}
			for ti, name := range b.Tenants {
				if lo[ti] > hi[ti] {
					continue
				}
				s, ok := span[name]
				if !ok {
					s = [2]int64{lo[ti], hi[ti]}
				}
				span[name] = [2]int64{min(s[0], lo[ti]), max(s[1], hi[ti])}
			}
			return nil
		})
		if err != nil {
			return "", err
		}
		for _, s := range span {
			note(s[0])
			note(s[1])
			year(s[0]).series++
		}
	}
	if ds.Rows(dataset.RunsTable.Name) > 0 {
		err := dataset.Scan(ctx, ds, dataset.RunsTable, func(r *dataset.Run) error {
			t := r.StartMs
			if t == dataset.NoTime {
				t = r.SubmitMs
			}
			if t == dataset.NoTime {
				return nil
			}
			note(t)
			year(t).runs++
			return nil
		})
		if err != nil {
			return "", err
		}
	}
	if !seen || time.Duration(hi-lo)*time.Millisecond <= eraSpan || len(years) < 2 {
		return "", nil
	}
	ys := make([]int, 0, len(years))
	for y := range years {
		ys = append(ys, y)
	}
	sort.Ints(ys)
	var parts []string
	for _, y := range ys {
		t := years[y]
		var what []string
		if t.series > 0 {
			what = append(what, plural(t.series, "tenant series", "tenant series"))
		}
		if t.runs > 0 {
			what = append(what, plural(t.runs, "job run", "job runs"))
		}
		label := fmt.Sprint(y)
		if y == 1970 {
			label = "1970 (times counted from the trace's start, as in Alibaba's and Azure's traces)"
		}
		parts = append(parts, fmt.Sprintf("%s: %s", label, strings.Join(what, ", ")))
	}
	day := func(ms int64) string { return time.UnixMilli(ms).UTC().Format("2006-01-02") }
	return fmt.Sprintf("The inputs span %s to %s (%s), far more than one analysis window: %s. The stages read them as one cluster: "+
		"tenants of different years are classified together, the harvest replays only the last week (--harvest-window), "+
		"and a simulated history keeps the idle years between its runs in its makespan. Analyse one era at a time for numbers about one cluster.",
		day(lo), day(hi), spanText(hi-lo), strings.Join(parts, "; ")), nil
}

func spanText(ms int64) string {
	d := float64(ms) / 86400e3
	if d >= 730 {
		return fmt.Sprintf("%.0f years", d/365.25)
	}
	return fmt.Sprintf("%.0f days", d)
}
