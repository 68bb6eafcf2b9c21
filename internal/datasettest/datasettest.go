// Package datasettest builds the small datasets the stages' tests read:
// a dataset in a test's directory, rows appended in one transaction,
// every error failing the test.
package datasettest

import (
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// Begin opens the dataset at dir, creating it when missing, and begins a
// transaction on it.
func Begin(t testing.TB, dir string) (*dataset.Dataset, *dataset.Tx) {
	t.Helper()
	ds, err := dataset.OpenOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	tx, err := ds.Begin()
	if err != nil {
		t.Fatal(err)
	}
	return ds, tx
}

// Append appends rows to w one by one, as a reader's records are.
func Append[T any](t testing.TB, w *dataset.Writer[T], rows []T) {
	t.Helper()
	for i := range rows {
		if err := w.Append(&rows[i]); err != nil {
			t.Fatal(err)
		}
	}
}

// Commit commits tx.
func Commit(t testing.TB, tx *dataset.Tx) {
	t.Helper()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
