package ingest

import (
	"context"

	"github.com/wlprof/wlprof/dataset"
)

// drainUsageCSV is drain for the generic CSV reader: once the reader parses
// in parallel chunks, each chunk's rejects go to the rejects table and its
// records to w in one AppendUsageColumns, instead of record by record. The usage
// records keep their input order, and so do the rejects; only the
// interleaving of the two tables (which nothing records) changes. Before
// that (unit detection, small or compressed inputs) it reads record by
// record as drain does.
func drainUsageCSV(ctx context.Context, s *sink, r *usageCSV, w *dataset.Writer[dataset.Usage]) error {
	defer r.Close()
	for n := 0; ; n++ {
		if r.batchReady() {
			if err := drainChunks(ctx, s, r, w); err != nil {
				return err
			}
			break
		}
		if !r.Scan() {
			break
		}
		rec, perr := r.Record()
		if perr != nil {
			if err := s.reject(perr); err != nil {
				return err
			}
			continue
		}
		if err := w.Append(rec); err != nil {
			if err := s.appendErr(err, lineOf(r)); err != nil {
				return err
			}
			continue
		}
		s.accepted++
		s.res.Accepted++
		if n&0xffff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	s.notes = append(s.notes, r.Notes()...)
	return r.Err()
}

func drainChunks(ctx context.Context, s *sink, r *usageCSV, w *dataset.Writer[dataset.Usage]) error {
	pc := r.par
	for {
		c, ok := pc.take(r)
		if !ok {
			return nil
		}
		for k := range c.rejects {
			perr := c.rejects[k].perr
			perr.Line += pc.base
			if err := s.reject(&perr); err != nil {
				return err
			}
		}
		m := &pc.maps[c.worker]
		c.cols.TenantMap, c.cols.ServerMap = &m[0], &m[1]
		if err := dataset.AppendUsageColumns(w, &c.cols); err != nil {
			return err
		}
		n := int64(c.cols.Len())
		s.accepted += n
		s.res.Accepted += n
		pc.recycle(c) // AppendUsageColumns copied the rows
		pc.finish(r, c)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// batchReady reports whether the reader has handed out every record read
// ahead for unit detection and parses the rest in parallel chunks (starting
// the workers if needed), so that drainChunks can take over from Scan.
//
// The workers start as soon as the unit is known, while the records read
// for its detection are still being handed out: parsing the chunks after
// them overlaps with appending them, where the second core used to wait.
func (r *usageCSV) batchReady() bool {
	if r.p.unit == UnitAuto && r.parallelAhead() {
		r.detect() // holds nothing back (detectAhead)
	}
	if r.p.unit == UnitAuto || r.eof || r.err != nil {
		return false
	}
	if r.par == nil {
		if r.lr.data == nil || len(r.lr.data)-r.lr.off <= parallelMinBytes {
			return false
		}
		r.par = startParallel(r, true)
	}
	if r.pos < len(r.pending) {
		return false
	}
	r.pending = nil
	// Only chunks parsed into columns can be taken whole (a reader that
	// went parallel record by record stays with Scan).
	return r.par.columnar
}
