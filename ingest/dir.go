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
