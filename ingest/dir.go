package ingest

import (
	"context"
	"os"
	"path/filepath"

	"github.com/wlprof/wlprof/dataset"
)

// Into ingests paths into the dataset at dir, which it creates when
// missing, in one transaction: the manifest is written last, so an ingest
// that fails, is interrupted or exceeds MaxRejects leaves the dataset as it
// was. It returns the dataset as the commit left it.
func Into(ctx context.Context, dir, format string, paths []string, opts Options) (*Result, *dataset.Dataset, error) {
	ds, err := dataset.OpenOrCreate(dir)
	if err != nil {
		return nil, nil, err
	}
	tx, err := ds.Begin()
	if err != nil {
		return nil, nil, err
	}
	defer tx.Rollback()
	res, err := Run(ctx, tx, format, paths, opts)
	if err != nil {
		return nil, nil, err
	}
	if err := tx.Commit(); err != nil {
		return nil, nil, err
	}
	return res, ds, nil
}

// Fresh builds a new dataset at dir from paths alone. It is ingested
// beside dir, in .NAME-new, and takes dir's place (whatever dir held) only
// when the ingest succeeded; otherwise dir is untouched and the new one is
// removed.
func Fresh(ctx context.Context, dir, format string, paths []string, opts Options) (*Result, *dataset.Dataset, error) {
	tmp := filepath.Join(filepath.Dir(dir), "."+filepath.Base(dir)+"-new")
	if err := os.RemoveAll(tmp); err != nil {
		return nil, nil, err
	}
	res, _, err := Into(ctx, tmp, format, paths, opts)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, nil, err
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, nil, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, nil, err
	}
	ds, err := dataset.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	return res, ds, nil
}

// Document is the versioned JSON document of wlprof ingest -o json: what
// one ingest added, and the row count of every table after it.
type Document struct {
	Version  int              `json:"version"`
	Dataset  string           `json:"dataset"`
	Ingest   int              `json:"ingest"`
	Files    []FileResult     `json:"files"`
	Accepted int64            `json:"accepted"`
	Rejected int64            `json:"rejected"`
	Tables   map[string]int64 `json:"tables"`
	// Undetected are the files below a folder that no format reads (left
	// out, as wlprof run does).
	Undetected []Undetected `json:"undetected,omitempty"`
}

// Document reports r, the ingest that left ds as it is, with the files
// undetected that a survey left out.
func (r *Result) Document(ds *dataset.Dataset, undetected []Undetected) Document {
	d := Document{Version: 1, Dataset: ds.Dir, Ingest: r.Ingest, Files: r.Files, Accepted: r.Accepted, Rejected: r.Rejected,
		Tables: map[string]int64{}, Undetected: undetected}
	for _, t := range dataset.TableNames {
		d.Tables[t] = ds.Rows(t)
	}
	return d
}
