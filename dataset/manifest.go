package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/wlprof/wlprof/internal/atomicfile"
)

// SchemaVersion is the dataset layout this build reads and writes. A dataset
// with any other version is refused (ErrSchemaVersion) rather than misread.
const SchemaVersion = 1

// ManifestName is the manifest's file name inside a dataset directory.
const ManifestName = "manifest.json"

const manifestFormat = "wlprof-dataset"

var (
	// ErrNoDataset reports a directory that holds no dataset manifest.
	ErrNoDataset = errors.New("no wlprof dataset here")
	// ErrSchemaVersion reports a dataset written with an unknown schema version.
	ErrSchemaVersion = errors.New("unknown dataset schema version")
)

// Manifest is the commit point of a dataset: only files it lists are part of
// the dataset, and it is written last, atomically.
type Manifest struct {
	Format        string               `json:"format"`
	SchemaVersion int                  `json:"schema_version"`
	Ingests       int                  `json:"ingests"` // number of committed transactions
	Tables        map[string]TableInfo `json:"tables"`
	Sources       []Source             `json:"sources"`
}

// TableInfo lists a table's files and total row count.
type TableInfo struct {
	Rows  int64      `json:"rows"`
	Files []FileInfo `json:"files"`
}

// FileInfo is one Parquet file of a table, relative to the dataset directory.
type FileInfo struct {
	Path   string `json:"path"`
	Rows   int64  `json:"rows"`
	Bytes  int64  `json:"bytes"`
	Ingest int    `json:"ingest"`
}

// Source is one ingested input file.
type Source struct {
	Path      string   `json:"path"`
	Format    string   `json:"format"`
	Table     string   `json:"table,omitempty"` // the table its records went to; absent in older manifests
	SizeBytes int64    `json:"size_bytes"`
	SHA256    string   `json:"sha256"`
	Accepted  int64    `json:"accepted"`
	Rejected  int64    `json:"rejected"`
	Ingest    int      `json:"ingest"`
	Notes     []string `json:"notes,omitempty"` // e.g. detected units
}

func newManifest() *Manifest {
	m := &Manifest{Format: manifestFormat, SchemaVersion: SchemaVersion, Tables: map[string]TableInfo{}, Sources: []Source{}}
	for _, n := range TableNames {
		m.Tables[n] = TableInfo{Files: []FileInfo{}}
	}
	return m
}

func readManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestName)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w (create one with 'wlprof ingest')", dir, ErrNoDataset)
	}
	if errors.Is(err, syscall.ENOTDIR) {
		return nil, fmt.Errorf("%s is a file, not a dataset directory (-d names the directory 'wlprof ingest' writes)", dir)
	}
	if err != nil {
		return nil, err
	}
	var probe struct {
		Format        string `json:"format"`
		SchemaVersion int    `json:"schema_version"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("%s: corrupt manifest: %v", path, err)
	}
	if probe.Format != manifestFormat {
		return nil, fmt.Errorf("%s: format %q is not %q: %w", path, probe.Format, manifestFormat, ErrNoDataset)
	}
	if probe.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: schema version %d, this wlprof reads version %d: %w",
			path, probe.SchemaVersion, SchemaVersion, ErrSchemaVersion)
	}
	m := newManifest()
	if err := json.Unmarshal(b, m); err != nil {
		return nil, fmt.Errorf("%s: corrupt manifest: %v", path, err)
	}
	for _, n := range TableNames { // tables added by later versions of this build
		if _, ok := m.Tables[n]; !ok {
			m.Tables[n] = TableInfo{Files: []FileInfo{}}
		}
	}
	return m, nil
}

func (m *Manifest) write(dir string) error {
	for name, t := range m.Tables {
		sort.Slice(t.Files, func(i, j int) bool { return t.Files[i].Path < t.Files[j].Path })
		m.Tables[name] = t
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, ManifestName), append(b, '\n'), 0o644)
}

func (m *Manifest) clone() *Manifest {
	c := *m
	c.Tables = make(map[string]TableInfo, len(m.Tables))
	for k, v := range m.Tables {
		v.Files = append([]FileInfo{}, v.Files...)
		c.Tables[k] = v
	}
	c.Sources = append([]Source{}, m.Sources...)
	return &c
}
