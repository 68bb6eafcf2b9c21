package dataset

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/file"
)

// seriesValuesPath is the Parquet leaf of the series table's values.
const seriesValuesPath = "values.list.element"

// collectSeries gathers rows of the series table in table order: every
// row, each group in an allocation of its own (want nil: ReadSeries), or
// the rows of the tenants want accepts, their values copied out of the
// buffer the worker reuses. Row groups are decoded on GOMAXPROCS workers
// (scanSeries); the small columns go through pqarrow (decodeSeries), the
// values, 99.9% of the bytes, straight from the pages into their final
// place (seriespages.go; arrow's column reader where that does not apply).
// The Arrow path grew its buffers by doubling while pages arrived and was
// then copied out again: three copies of 1.7 GB at 10,000 tenants.
func collectSeries(ctx context.Context, d *Dataset, want func(tenant string) bool) ([]Series, error) {
	var mu sync.Mutex
	groups := map[int][]Series{}
	n, err := scanSeries(ctx, d, want != nil, func(_ context.Context, _, g int, rows []Series) error {
		if want != nil {
			var keep []Series
			for _, r := range rows {
				if want(r.Tenant) {
					r.Values = append([]float64(nil), r.Values...)
					keep = append(keep, r)
				}
			}
			rows = keep
		}
		mu.Lock()
		groups[g] = rows
		mu.Unlock()
		return nil
	})
	if err != nil {
		return nil, err
	}
	total := 0
	for _, g := range groups {
		total += len(g)
	}
	out := make([]Series, 0, total)
	for g := 0; g < n; g++ {
		out = append(out, groups[g]...)
	}
	return out, nil
}

// ScanSeries reads the series table group by group (row groups, in table
// order: group is the index of one, counting over every file) on
// GOMAXPROCS workers, and calls fn on each group's rows from the worker
// that decoded it (worker in [0, GOMAXPROCS)); calls from different
// workers run at once, and their ctx is cancelled when any call or read
// fails. The rows' values live in a buffer the worker reuses for its
// next group: fn must not keep them after it returns. Reading this way
// holds a few groups in memory instead of the whole table (1.7 GB at
// 10,000 tenants × 30 days) and touches no new memory after the first
// groups. It returns the number of groups.
func ScanSeries(ctx context.Context, d *Dataset, fn func(ctx context.Context, worker, group int, rows []Series) error) (int, error) {
	return scanSeries(ctx, d, true, fn)
}

// ReadSeriesOf returns the rows of the series table whose tenant want
// accepts, in table order, reading the table as ScanSeries does and
// copying out only those rows' values: a report that shows a few
// tenants' series needs them, not the whole table in memory.
func ReadSeriesOf(ctx context.Context, d *Dataset, want func(tenant string) bool) ([]Series, error) {
	return collectSeries(ctx, d, want)
}

// scanSeries is ScanSeries; with reuse false every group's values get an
// allocation of their own, which fn may keep.
func scanSeries(ctx context.Context, d *Dataset, reuse bool, fn func(ctx context.Context, worker, group int, rows []Series) error) (int, error) {
	var tasks []rowGroupTask
	for _, fi := range d.m.Tables[SeriesTable.Name].Files {
		path := filepath.Join(d.Dir, fi.Path)
		n, err := numRowGroups(path)
		if err != nil {
			return 0, err
		}
		for rg := 0; rg < n; rg++ {
			tasks = append(tasks, rowGroupTask{path, rg})
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := min(runtime.GOMAXPROCS(0), len(tasks))
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var rd *groupReader
			var vi int
			scratch := levelScratch{fastOff: !seriesFastPath}
			var buf *[]float64
			if reuse {
				buf = new([]float64)
			}
			defer func() { rd.close() }()
			for i := w; i < len(tasks); i += workers {
				if ctx.Err() != nil {
					return
				}
				if rd == nil || rd.path != tasks[i].path {
					rd.close()
					var err error
					if rd, vi, err = openSeriesReader(tasks[i].path); err != nil {
						rd, errs[w] = nil, err
						cancel()
						return
					}
				}
				rows, err := readSeriesGroup(ctx, rd, vi, tasks[i].rg, &scratch, buf)
				if err == nil {
					err = fn(ctx, w, i, rows)
				}
				if err != nil {
					errs[w] = err
					cancel()
					return
				}
			}
		}(w)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return len(tasks), ctx.Err()
}

// openSeriesReader opens a series file with its small columns selected
// for pqarrow; vi is the values leaf's column index (−1: no values column).
func openSeriesReader(path string) (*groupReader, int, error) {
	g, err := openGroupReader(path, nil, nil)
	if err != nil {
		return nil, 0, err
	}
	sch := g.pf.MetaData().Schema
	g.cols = []int{}
	for _, c := range SeriesTable.cols {
		if c.field.Name == "values" {
			continue
		}
		if i := sch.ColumnIndexByName(c.field.Name); i >= 0 {
			g.cols = append(g.cols, i)
		}
	}
	return g, sch.ColumnIndexByName(seriesValuesPath), nil
}

// seriesFastPath: values chunks this package wrote are read by
// fastValues (seriespages.go); tests turn it off to compare with arrow's
// column reader.
var seriesFastPath = true

// levelScratch is one worker's definition and repetition level buffers.
type levelScratch struct {
	def, rep []int16
	pages    pageScratch
	fastOff  bool // read with arrow's column reader only
}

// seriesLevelBatch is the levels decoded per ReadBatch call.
const seriesLevelBatch = 1 << 16

// readSeriesGroup decodes row group rg. With reuse, the values are decoded
// into *reuse (grown when too small) where the fast path applies, and the
// rows' values alias that buffer.
func readSeriesGroup(ctx context.Context, g *groupReader, vi, rg int, ls *levelScratch, reuse *[]float64) ([]Series, error) {
	var rows []Series
	if len(g.cols) > 0 {
		var err error
		if rows, err = readGroup(ctx, g, rg, decodeSeries); err != nil {
			return nil, err
		}
	} else {
		rows = make([]Series, g.pf.MetaData().RowGroup(rg).NumRows())
	}
	if vi < 0 || len(rows) == 0 {
		return rows, nil
	}
	if ls.fastOff {
		// The arrow path below, for tests that compare the two.
	} else if ccm, err := g.pf.MetaData().RowGroup(rg).ColumnChunk(vi); err == nil {
		col := g.pf.MetaData().Schema.Column(vi)
		var dst []float64
		if reuse != nil {
			dst = *reuse
		}
		if all, starts, ok := fastValues(dst, g.mapped(), g.f, ccm, col.MaxDefinitionLevel(), col.MaxRepetitionLevel(), len(rows), &ls.pages); ok {
			if reuse != nil && cap(all) > cap(*reuse) {
				*reuse = all[:cap(all)]
			}
			for i := range rows {
				rows[i].Values = all[starts[i]:starts[i+1]:starts[i+1]]
			}
			return rows, nil
		}
	}
	rgr := g.pf.RowGroup(rg)
	cc, err := rgr.Column(vi)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", g.path, err)
	}
	fr, ok := cc.(*file.Float64ColumnChunkReader)
	if !ok {
		return nil, fmt.Errorf("%s: series values of physical type %s", g.path, cc.Type())
	}
	ccm, err := rgr.MetaData().ColumnChunk(vi)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", g.path, err)
	}
	levels := ccm.NumValues()
	maxDef := cc.Descriptor().MaxDefinitionLevel()
	if ls.def == nil {
		ls.def, ls.rep = make([]int16, seriesLevelBatch), make([]int16, seriesLevelBatch)
	}
	// Every element has one level; an empty list has one level and no
	// element. So levels bound the elements, and packed values read into
	// all[pos:] can be spread out in place for the nulls (NaN).
	all := make([]float64, levels)
	starts := make([]int, 0, len(rows)+1)
	pos := 0
	for read := int64(0); read < levels; {
		n, nv, err := fr.ReadBatch(min(seriesLevelBatch, levels-read), all[pos:], ls.def, ls.rep)
		if err != nil {
			return nil, fmt.Errorf("%s: series values: %w", g.path, err)
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: series values: %d of %d levels", g.path, read, levels)
		}
		def, rep := ls.def[:n], ls.rep[:n]
		ne := 0
		for i := range def {
			if rep[i] == 0 {
				starts = append(starts, pos+ne)
			}
			if def[i] >= maxDef-1 {
				ne++
			}
		}
		if ne != nv { // nulls: spread from the end
			src, dst := pos+nv-1, pos+ne-1
			for i := len(def) - 1; i >= 0; i-- {
				switch {
				case def[i] == maxDef:
					all[dst] = all[src]
					src--
					dst--
				case def[i] == maxDef-1:
					all[dst] = math.NaN()
					dst--
				}
			}
		}
		pos += ne
		read += n
	}
	if len(starts) != len(rows) {
		return nil, fmt.Errorf("%s: series values for %d rows, row group has %d", g.path, len(starts), len(rows))
	}
	starts = append(starts, pos)
	for i := range rows {
		rows[i].Values = all[starts[i]:starts[i+1]:starts[i+1]]
	}
	return rows, nil
}
