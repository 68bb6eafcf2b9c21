package fft

import (
	"context"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// SeriesFromDataset returns every tenant's series. It reads the series
// table when that table was built after every usage file was ingested
// (and, when opts.Step is set, on that step);
// otherwise it builds the series from the usage table and stores them as
// the new series table (one transaction, replacing the old table). built
// says which happened.
func SeriesFromDataset(ctx context.Context, ds *dataset.Dataset, opts SeriesOptions) (series []dataset.Series, built bool, err error) {
	if seriesFresh(ds, opts) {
		series, err = dataset.ReadSeries(ctx, ds)
		if err == nil && (opts.Step <= 0 || len(series) == 0 || stepMatches(series[0].StepS, opts.Step)) {
			return series, false, nil
		}
		if err != nil {
			return nil, false, err
		}
	}
	series, _, err = BuildSeries(ctx, ds, opts)
	if err != nil {
		return nil, false, err
	}
	tx, err := ds.Begin()
	if err != nil {
		return nil, false, err
	}
	defer tx.Rollback()
	tx.Replace(dataset.SeriesTable.Name)
	w := tx.Series()
	for i := range series {
		if err := w.Append(&series[i]); err != nil {
			return nil, false, err
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, false, err
	}
	return series, true, nil
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
