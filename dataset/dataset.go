package dataset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Dataset is an open dataset directory. It is a snapshot: it sees the
// manifest as it was when opened or last committed through it.
type Dataset struct {
	Dir string
	m   *Manifest
}

// Open opens an existing dataset. It fails with ErrNoDataset when dir has no
// manifest and with ErrSchemaVersion when the manifest's version is unknown.
func Open(dir string) (*Dataset, error) {
	m, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	return &Dataset{Dir: dir, m: m}, nil
}

// OpenOrCreate opens the dataset in dir, or prepares a new, empty one when
// dir does not exist or holds nothing. Nothing is written until a
// transaction commits.
func OpenOrCreate(dir string) (*Dataset, error) {
	d, err := Open(dir)
	if err == nil || !errors.Is(err, ErrNoDataset) {
		return d, err
	}
	if _, statErr := os.Stat(filepath.Join(dir, ManifestName)); statErr == nil {
		return nil, err // a manifest that is not ours
	}
	entries, rerr := os.ReadDir(dir)
	if rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
		return nil, rerr
	}
	for _, e := range entries {
		if !isHousekeeping(e.Name()) {
			return nil, fmt.Errorf("%s: directory is not empty and holds no %s; refusing to turn it into a dataset", dir, ManifestName)
		}
	}
	return &Dataset{Dir: dir, m: newManifest()}, nil
}

// isHousekeeping reports names that a dataset directory may hold besides
// tables and the manifest: the lock and leftovers of interrupted writes.
func isHousekeeping(name string) bool {
	return name == lockName || strings.HasPrefix(name, stagingPrefix) || strings.HasPrefix(name, "."+ManifestName+".tmp-")
}

// Manifest returns a copy of the dataset's manifest.
func (d *Dataset) Manifest() *Manifest { return d.m.clone() }

// Rows returns the committed row count of a table.
func (d *Dataset) Rows(table string) int64 { return d.m.Tables[table].Rows }

const (
	lockName      = ".lock"
	stagingPrefix = ".staging-"
)

// lock takes an exclusive advisory lock on the dataset so two ingests cannot
// interleave their commits.
func lock(dir string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: dataset is locked by another wlprof process", dir)
	}
	return f, nil
}

// cleanup removes what an interrupted (killed) transaction left behind:
// staging folders and part files the manifest does not list. Called with the
// lock held, so no live transaction owns them.
func cleanup(dir string, m *Manifest) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	listed := map[string]bool{}
	for _, t := range m.Tables {
		for _, f := range t.Files {
			listed[f.Path] = true
		}
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, stagingPrefix), strings.HasPrefix(name, "."+ManifestName+".tmp-"):
			if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
				return err
			}
		case e.IsDir():
			if _, ok := m.Tables[name]; !ok {
				continue
			}
			parts, err := os.ReadDir(filepath.Join(dir, name))
			if err != nil {
				return err
			}
			for _, p := range parts {
				rel := name + "/" + p.Name()
				if strings.HasPrefix(p.Name(), "part-") && !listed[rel] {
					if err := os.Remove(filepath.Join(dir, rel)); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}
