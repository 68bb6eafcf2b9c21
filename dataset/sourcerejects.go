package dataset

import (
	"context"
	"sort"
)

// SourceRejects is one ingested input and its rejected records counted
// per reason: what a data-quality table shows of it.
type SourceRejects struct {
	Source
	// Reasons count the input's records in the rejects table per reason
	// (RejectGroup.File is the input's path), most frequent first, as
	// GroupRejects orders them; equal counts keep the table's order.
	Reasons []RejectGroup
}

// sourceID names an input as the manifest and the rejects table both do.
type sourceID struct {
	ingest int32
	file   string
}

// RejectsBySource returns every source of the manifest, in manifest order,
// with its rejects grouped per reason. The rejects table is read once and
// only the counts are kept, so memory grows with the distinct reasons, not
// with the records. A reject is matched to its source by ingest and file;
// one that matches none (an input the manifest does not list, which ingest
// never writes) is returned after the sources as an input of its own, with
// Rejected counted from the table, so that no reject goes unshown.
func RejectsBySource(ctx context.Context, d *Dataset) ([]SourceRejects, error) {
	var c rejectCounter
	format := map[sourceID]string{}
	err := Scan(ctx, d, RejectsTable, func(r *Reject) error {
		c.add(rejectKey{ingest: r.Ingest, file: r.File, reason: r.Reason})
		if id := (sourceID{r.Ingest, r.File}); format[id] == "" {
			format[id] = r.Format
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	reasons := map[sourceID][]RejectGroup{}
	for _, i := range c.order() {
		k := c.keys[i]
		id := sourceID{k.ingest, k.file}
		reasons[id] = append(reasons[id], RejectGroup{File: k.file, Reason: k.reason, Count: c.counts[i]})
	}
	out := []SourceRejects{}
	for _, s := range d.m.Sources {
		id := sourceID{int32(s.Ingest), s.Path}
		out = append(out, SourceRejects{Source: s, Reasons: append([]RejectGroup{}, reasons[id]...)})
		delete(reasons, id)
	}
	orphans := make([]sourceID, 0, len(reasons))
	for id := range reasons {
		orphans = append(orphans, id)
	}
	sort.Slice(orphans, func(a, b int) bool {
		if orphans[a].ingest != orphans[b].ingest {
			return orphans[a].ingest < orphans[b].ingest
		}
		return orphans[a].file < orphans[b].file
	})
	for _, id := range orphans {
		s := Source{Path: id.file, Format: format[id], Ingest: int(id.ingest)}
		for _, g := range reasons[id] {
			s.Rejected += int64(g.Count)
		}
		out = append(out, SourceRejects{Source: s, Reasons: reasons[id]})
	}
	return out, nil
}
