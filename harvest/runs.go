package harvest

import (
	"fmt"
	"sort"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/slo"
)

// RunSpan is one job run with a start and an end.
type RunSpan struct {
	Job     string
	Run     string
	StartMs int64
	EndMs   int64
}

// MergeRuns joins the runs table's rows of one run id (OpenLineage writes
// one row per event: a start, then an end) into spans, as the slo stage
// does: the earliest start (else submission) and the latest end. A run's
// job is runs.job, or for OpenLineage rows and rows without a job its
// normalised name (slo.Normalise: OpenLineage names may carry a date).
// Runs without a start or an end, or ending before they start, are left
// out. Spans are by start, then job, then run.
func MergeRuns(rows []dataset.Run) []RunSpan {
	idx := map[string]int{}
	var spans []RunSpan
	for _, r := range rows {
		id := r.Run
		if id == "" {
			id = fmt.Sprintf("%s@%d", r.Name, r.SubmitMs)
		}
		i, ok := idx[id]
		if !ok {
			key := r.Job
			if key == "" || r.Source == "openlineage" {
				name := r.Job
				if name == "" {
					name = r.Name
				}
				key = slo.Normalise(name)
			}
			i = len(spans)
			idx[id] = i
			spans = append(spans, RunSpan{Job: key, Run: id, StartMs: dataset.NoTime, EndMs: dataset.NoTime})
		}
		s := &spans[i]
		start := r.StartMs
		if start == dataset.NoTime {
			start = r.SubmitMs
		}
		if start != dataset.NoTime && (s.StartMs == dataset.NoTime || start < s.StartMs) {
			s.StartMs = start
		}
		if r.EndMs != dataset.NoTime && (s.EndMs == dataset.NoTime || r.EndMs > s.EndMs) {
			s.EndMs = r.EndMs
		}
	}
	out := spans[:0]
	for _, s := range spans {
		if s.StartMs != dataset.NoTime && s.EndMs != dataset.NoTime && s.EndMs >= s.StartMs {
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].StartMs != out[b].StartMs {
			return out[a].StartMs < out[b].StartMs
		}
		if out[a].Job != out[b].Job {
			return out[a].Job < out[b].Job
		}
		return out[a].Run < out[b].Run
	})
	return out
}
