package dataset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/wlprof/wlprof/internal/atomicfile"
)

// Tx adds rows and sources to a dataset. Rows go to Parquet files in a
// staging folder; Commit moves them into the tables and writes the manifest
// last. Until then, and after Rollback, the dataset is unchanged.
type Tx struct {
	ds      *Dataset
	lock    *os.File
	staging string
	ingest  int
	writers map[string]stagedWriter
	order   []string
	sources []Source
	replace map[string]bool
	done    bool
	// created: Begin made the dataset's directory; a rollback removes it
	// again, lock file and all, so a failed first ingest leaves nothing.
	created bool
}

type stagedWriter interface {
	finish() (FileInfo, bool, error) // close; false when the writer got no rows
	abort()
}

// testHookBeforeManifest, when set by tests, runs after the new parts are in
// place and before the manifest is written, to inject a failure there.
var testHookBeforeManifest func() error

// Begin starts a transaction. It takes the dataset's lock (one writer at a
// time), reloads the manifest and removes leftovers of killed transactions.
func (d *Dataset) Begin() (*Tx, error) {
	_, statErr := os.Stat(d.Dir)
	created := errors.Is(statErr, os.ErrNotExist)
	if err := os.MkdirAll(d.Dir, 0o755); err != nil {
		return nil, err
	}
	lk, err := lock(d.Dir)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Tx, error) {
		lk.Close()
		if created {
			os.Remove(filepath.Join(d.Dir, lockName))
			os.Remove(d.Dir)
		}
		return nil, err
	}
	m, err := readManifest(d.Dir)
	switch {
	case errors.Is(err, ErrNoDataset) && d.m.Ingests == 0:
		m = newManifest()
	case err != nil:
		return fail(err)
	}
	if err := cleanup(d.Dir, m); err != nil {
		return fail(err)
	}
	d.m = m
	tx := &Tx{ds: d, lock: lk, ingest: m.Ingests + 1, writers: map[string]stagedWriter{}, created: created}
	tx.staging = filepath.Join(d.Dir, fmt.Sprintf("%s%06d", stagingPrefix, tx.ingest))
	if err := os.MkdirAll(tx.staging, 0o755); err != nil {
		return fail(err)
	}
	return tx, nil
}

// Ingest is this transaction's sequence number, recorded with its rows.
func (tx *Tx) Ingest() int { return tx.ingest }

// AddSource records an input file in the manifest on commit.
func (tx *Tx) AddSource(s Source) {
	s.Ingest = tx.ingest
	tx.sources = append(tx.sources, s)
}

// WriterFor returns the transaction's writer for table t, creating it on
// first use.
func WriterFor[T any](tx *Tx, t *Table[T]) *Writer[T] {
	if w, ok := tx.writers[t.Name]; ok {
		return w.(*Writer[T])
	}
	w := newWriter(t, tx.staging, tx.ingest)
	tx.writers[t.Name] = w
	tx.order = append(tx.order, t.Name)
	return w
}

// Replace makes the commit drop the table's current files, so the rows
// written in this transaction become the whole table: for derived tables
// such as series, which are rebuilt rather than appended to. The dropped
// files are deleted after the manifest no longer lists them.
func (tx *Tx) Replace(table string) {
	if tx.replace == nil {
		tx.replace = map[string]bool{}
	}
	tx.replace[table] = true
}

// Typed shorthands for WriterFor.
func (tx *Tx) Usage() *Writer[Usage]            { return WriterFor(tx, UsageTable) }
func (tx *Tx) Runs() *Writer[Run]               { return WriterFor(tx, RunsTable) }
func (tx *Tx) Skylines() *Writer[SkylineSample] { return WriterFor(tx, SkylinesTable) }
func (tx *Tx) Provenance() *Writer[Provenance]  { return WriterFor(tx, ProvenanceTable) }
func (tx *Tx) ProfRuns() *Writer[ProfRun]       { return WriterFor(tx, ProfRunsTable) }
func (tx *Tx) Rejects() *Writer[Reject]         { return WriterFor(tx, RejectsTable) }
func (tx *Tx) ProfSamples() *Writer[ProfSample] { return WriterFor(tx, ProfSamplesTable) }

// Commit closes the writers, moves their files into the tables and writes
// the new manifest. On error the dataset is left as it was.
func (tx *Tx) Commit() (err error) {
	if tx.done {
		return errors.New("dataset: transaction already finished")
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	m := tx.ds.m.clone()
	var dropped []string
	for name := range tx.replace {
		for _, f := range m.Tables[name].Files {
			dropped = append(dropped, filepath.Join(tx.ds.Dir, f.Path))
		}
		m.Tables[name] = TableInfo{Files: []FileInfo{}}
	}
	type move struct{ from, to string }
	var moves []move
	for _, name := range tx.order {
		info, ok, err := tx.writers[name].finish()
		if err != nil {
			return fmt.Errorf("dataset: writing %s: %w", name, err)
		}
		if !ok {
			continue
		}
		to := filepath.Join(tx.ds.Dir, info.Path)
		moves = append(moves, move{filepath.Join(tx.staging, info.Path), to})
		t := m.Tables[name]
		t.Files = append(t.Files, info)
		t.Rows += info.Rows
		m.Tables[name] = t
	}
	var placed []string
	undo := func() {
		for _, p := range placed {
			os.Remove(p)
		}
	}
	for _, mv := range moves {
		if err := os.MkdirAll(filepath.Dir(mv.to), 0o755); err != nil {
			undo()
			return err
		}
		if err := os.Rename(mv.from, mv.to); err != nil {
			undo()
			return err
		}
		placed = append(placed, mv.to)
		if err := atomicfile.SyncDir(filepath.Dir(mv.to)); err != nil {
			undo()
			return err
		}
	}
	m.Sources = append(m.Sources, tx.sources...)
	sort.SliceStable(m.Sources, func(i, j int) bool { return m.Sources[i].Ingest < m.Sources[j].Ingest })
	m.Ingests = tx.ingest
	if testHookBeforeManifest != nil {
		if err := testHookBeforeManifest(); err != nil {
			undo()
			return err
		}
	}
	if err := m.write(tx.ds.Dir); err != nil {
		undo()
		return err
	}
	tx.ds.m = m
	tx.finish()
	for _, p := range dropped { // unlisted now; the next Begin's cleanup retries any left
		os.Remove(p)
	}
	return nil
}

// Rollback discards everything written in the transaction. It is safe to
// call after Commit (it does nothing then), so `defer tx.Rollback()` works.
func (tx *Tx) Rollback() {
	if tx.done {
		return
	}
	for _, w := range tx.writers {
		w.abort()
	}
	tx.finish()
	if tx.created {
		// Nothing was ever committed here: the directory is ours to take
		// back (os.Remove leaves it if anything else is in it).
		os.Remove(filepath.Join(tx.ds.Dir, lockName))
		os.Remove(tx.ds.Dir)
	}
}

func (tx *Tx) finish() {
	tx.done = true
	os.RemoveAll(tx.staging)
	tx.lock.Close()
}
