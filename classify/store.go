package classify

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// SeriesSet is every tenant's average-server series on one grid, as
// Series gives them: in memory (built from the usage table), or the
// dataset's fresh series table, which Run streams and All reads.
type SeriesSet struct {
	// Built: Series built them from the usage table (and stored them as
	// the new series table, unless Warnings say it could not).
	Built bool
	// Warnings are the caveats of getting them: a dataset that could not
	// be written keeps its old series table.
	Warnings []string
	series   []dataset.Series
	stored   *dataset.Dataset
	// storing is the write of the series Series built, under way while
	// the caller goes on (nil when nothing is written).
	storing *seriesWrite
}

// seriesWrite is a series table being written: err is the write's once
// done is closed.
type seriesWrite struct {
	done chan struct{}
	err  error
	once sync.Once
}

// Stored waits until the series Series built are stored as the series
// table and returns the write's error. A dataset the user may read but not
// write is not an error: the set's Warnings say the series were not
// stored. Nothing to wait for (a fresh table was found) is nil at once.
// A caller of Series that built series calls it before it finishes; the
// table is committed only when the write is done.
func (s *SeriesSet) Stored() error {
	w := s.storing
	if w == nil {
		return nil
	}
	<-w.done
	var err error
	w.once.Do(func() {
		if w.err != nil && readOnly(w.err) {
			s.Warnings = append(s.Warnings, "the series were not stored (the dataset is read-only: "+w.err.Error()+
				"); every classify builds them from the usage table again")
			w.err = nil
		}
	})
	err = w.err
	return err
}

// All returns the series in memory: those built, or the stored table read
// whole.
func (s *SeriesSet) All(ctx context.Context) ([]dataset.Series, error) {
	return Input{Series: s.series, stored: s.stored}.AllSeries(ctx)
}

// Series is the one owner of the series table, the classify stage's cache
// of its series: it returns the table when it was built after every usage
// file was ingested (and, when opts.Step is set, is on that step);
// otherwise it builds the series from the usage table and starts storing
// them as the new series table (one transaction, replacing the old table,
// through a handle of its own: ds's manifest still lists the old one),
// which the caller waits for with SeriesSet.Stored. A dataset the user
// may read but not write gets its series built all the same, with a
// warning that they were not stored; Stored returns any other write
// error. classify.Load calls it; the stages that replay the series
// (harvest, placement, estimate) get them through it too.
func Series(ctx context.Context, ds *dataset.Dataset, opts SeriesOptions) (*SeriesSet, error) {
	if seriesFresh(ds, opts) {
		ok, err := storedOnStep(ctx, ds, opts.Step)
		if err != nil {
			return nil, err
		}
		if ok {
			return &SeriesSet{stored: ds}, nil
		}
	}
	series, _, err := BuildSeries(ctx, ds, opts)
	if err != nil {
		return nil, err
	}
	// The table is written while the caller analyses the series (the
	// write is mostly the disk's time, the analysis the CPUs'); Stored
	// waits for it.
	w := &seriesWrite{done: make(chan struct{})}
	go func() {
		defer close(w.done)
		w.err = writeSeries(ds, series)
	}()
	return &SeriesSet{Built: true, series: series, storing: w}, nil
}

// errStepRead stops storedOnStep's scan at the first group it decodes.
var errStepRead = errors.New("classify: step read")

// storedOnStep reports whether the series table is on step (any table
// is, when step is 0), from the first group it decodes: a table on
// another step is rebuilt before a whole table is read for nothing.
func storedOnStep(ctx context.Context, ds *dataset.Dataset, step time.Duration) (bool, error) {
	if step <= 0 {
		return true, nil
	}
	var once sync.Once
	ok := true
	_, err := dataset.ScanSeries(ctx, ds, func(_ context.Context, _, _ int, rows []dataset.Series) error {
		once.Do(func() { ok = len(rows) == 0 || stepMatches(rows[0].StepS, step) })
		return errStepRead
	})
	if err != nil && !errors.Is(err, errStepRead) {
		return false, err
	}
	return ok, nil
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
