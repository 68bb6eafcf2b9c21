package classify

import (
	"context"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// loadSeries returns every tenant's series: the series table when
// useStored and the table was built after every usage file was ingested
// (and, when opts.Step is set, on that step); otherwise it builds the
// series from the usage table and stores them as the new series table
// (one transaction, replacing the old table). built says which. When the
// series were built, they are written to the series table in the
// background (mostly the kernel's copy of 1.7 GB at 10,000 tenants,
// which classification overlaps), and store waits for that write and
// returns its error. store must be called, and the series must not be
// modified before it returns.
func loadSeries(ctx context.Context, ds *dataset.Dataset, opts SeriesOptions, useStored bool) (series []dataset.Series, built bool, store func() error, err error) {
	none := func() error { return nil }
	if useStored && seriesFresh(ds, opts) {
		series, err = dataset.ReadSeries(ctx, ds)
		if err == nil && (opts.Step <= 0 || len(series) == 0 || stepMatches(series[0].StepS, opts.Step)) {
			return series, false, none, nil
		}
		if err != nil {
			return nil, false, none, err
		}
	}
	series, _, err = BuildSeries(ctx, ds, opts)
	if err != nil {
		return nil, false, none, err
	}
	done := make(chan error, 1)
	go func() { done <- writeSeries(ds, series) }()
	return series, true, func() error { return <-done }, nil
}

// testHookWriteSeries, when set by tests, fails the series write (a
// read-only dataset cannot be simulated with permissions as root).
var testHookWriteSeries func() error

// writeSeries replaces the series table with series, in one transaction,
// through its own handle on the dataset (a transaction updates its
// handle's manifest, which the caller may be reading meanwhile).
func writeSeries(ds *dataset.Dataset, series []dataset.Series) error {
	if testHookWriteSeries != nil {
		return testHookWriteSeries()
	}
	own, err := dataset.Open(ds.Dir)
	if err != nil {
		return err
	}
	tx, err := own.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	tx.Replace(dataset.SeriesTable.Name)
	if err := tx.WriteSeries(series); err != nil {
		return err
	}
	return tx.Commit()
}

// seriesFresh reports a non-empty series table written after the last
// usage file.
func seriesFresh(ds *dataset.Dataset, opts SeriesOptions) bool {
	m := ds.Manifest()
	st, ut := m.Tables[dataset.SeriesTable.Name], m.Tables[dataset.UsageTable.Name]
	if st.Rows == 0 {
		return false
	}
	lastUsage := 0
	for _, f := range ut.Files {
		lastUsage = max(lastUsage, f.Ingest)
	}
	for _, f := range st.Files {
		if f.Ingest < lastUsage {
			return false
		}
	}
	return true
}

// stepMatches: a stored step equals the requested one. (A stored step
// that is coarser because the data was would be rebuilt the same; telling
// that case apart costs a scan, so it is rebuilt.)
func stepMatches(stepS float64, want time.Duration) bool {
	return stepS == want.Seconds()
}
