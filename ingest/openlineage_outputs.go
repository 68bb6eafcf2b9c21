package ingest

import (
	"fmt"
	"slices"

	"github.com/wlprof/wlprof/dataset"
)

// olLineage merges, across the inputs of one ingest, the outputs a run
// declares on any of its events. OpenLineage lets a producer declare a
// run's inputs and outputs on any event (Marquez's own demo declares them
// on START and sends a bare COMPLETE), but an output is written when the
// run completes: each output is one write at the run's COMPLETE time,
// whichever event named it, and a run without a COMPLETE (still running,
// failed, aborted) writes nothing. Inputs stay reads at the time of each
// event that names them. A run's entry is held until the ingest ends, so
// that an event read after the COMPLETE (inputs in another order) still
// adds its outputs.
type olLineage struct {
	runs map[[2]string]*olRunOutputs // by job and run id
	// index is the FileResult of the last openlineage input, which gets
	// the notes of the merge.
	index int
	// late counts outputs first declared after their run's COMPLETE was
	// read, and written at its time.
	late int64
}

type olRunOutputs struct {
	doneMs  int64           // the first COMPLETE's time, dataset.NoTime before it
	pending []string        // outputs declared before the COMPLETE
	written map[string]bool // outputs written at doneMs
}

func (st *runState) openLineage() *olLineage {
	if st.lineage == nil {
		st.lineage = &olLineage{runs: map[[2]string]*olRunOutputs{}}
	}
	return st.lineage
}

// outputs records the outputs one RunEvent declares and writes those that
// are due: a COMPLETE writes its own outputs and every output declared
// before it; an output declared after a COMPLETE is written at that
// COMPLETE's time.
func (ol *olReader) outputs(job, runID, typ string, t int64, outs []olDataset) error {
	lin := ol.s.run.openLineage()
	lin.index = ol.s.index
	key := [2]string{job, runID}
	r := lin.runs[key]
	if r == nil {
		if len(outs) == 0 {
			return nil
		}
		r = &olRunOutputs{doneMs: dataset.NoTime}
		lin.runs[key] = r
	}
	p := dataset.Provenance{Op: OpWrite, Job: job, Run: runID, Attribution: "lineage", Cmd: "COMPLETE"}
	write := func(path string, ms int64) error {
		p.Path, p.TimeMs = path, ms
		if r.written == nil {
			r.written = map[string]bool{}
		}
		r.written[path] = true
		return ol.s.tx.Provenance().Append(&p)
	}
	if typ == "COMPLETE" {
		if r.doneMs == dataset.NoTime {
			r.doneMs = t
		}
		// Each COMPLETE writes what it names, at its own time, as a
		// repeated COMPLETE always did.
		for _, d := range outs {
			if err := write(OpenLineagePath(d.Namespace, d.Name), t); err != nil {
				return err
			}
		}
		for _, path := range r.pending {
			if !r.written[path] {
				if err := write(path, r.doneMs); err != nil {
					return err
				}
			}
		}
		r.pending = nil
		return nil
	}
	for _, d := range outs {
		path := OpenLineagePath(d.Namespace, d.Name)
		switch {
		case r.doneMs != dataset.NoTime:
			if !r.written[path] {
				lin.late++
				if err := write(path, r.doneMs); err != nil {
					return err
				}
			}
		case !slices.Contains(r.pending, path):
			r.pending = append(r.pending, path)
		}
	}
	return nil
}

// finish notes, on the last openlineage input, the outputs that no
// COMPLETE wrote and those written late.
func (lin *olLineage) finish(res *Result) {
	if lin == nil || lin.index >= len(res.Files) {
		return
	}
	var runs, outs int64
	for _, r := range lin.runs {
		if r.doneMs == dataset.NoTime && len(r.pending) > 0 {
			runs++
			outs += int64(len(r.pending))
		}
	}
	fr := &res.Files[lin.index]
	if runs > 0 {
		fr.Notes = append(fr.Notes, fmt.Sprintf("%d runs declared %d outputs but have no COMPLETE event in these inputs: no write is recorded for them "+
			"(a failed, aborted or unfinished run wrote nothing)", runs, outs))
	}
	if lin.late > 0 {
		fr.Notes = append(fr.Notes, fmt.Sprintf("%d outputs declared on an event read after their run's COMPLETE were written at the COMPLETE's time", lin.late))
	}
}
