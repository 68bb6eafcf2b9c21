package profile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
)

// Version is the major version of the formats this package reads and writes.
// Fields are only ever added within a major version, so a reader of version
// 1 ignores fields it does not know; a new major version means a field
// changed meaning and older readers refuse the file.
const Version = 1

// ErrVersion is returned for a file whose major version this package does
// not read (or that has none).
var ErrVersion = errors.New("unsupported profile format version")

// ErrKind is returned when a file is another document than the one asked
// for (a tenants.json given to LoadJob).
var ErrKind = errors.New("wrong profile document kind")

// header is what is read before the rest: version and kind decide how.
type header struct {
	Version *int   `json:"version"`
	Kind    string `json:"kind"`
}

func checkHeader(data []byte, kind string) error {
	var h header
	if err := json.Unmarshal(data, &h); err != nil {
		return err
	}
	if h.Version == nil {
		return fmt.Errorf("%w: no \"version\" field", ErrVersion)
	}
	if *h.Version != Version {
		return fmt.Errorf("%w: the file is version %d, this reader knows version %d (use a matching github.com/wlprof/wlprof/profile)",
			ErrVersion, *h.Version, Version)
	}
	if h.Kind != kind {
		return fmt.Errorf("%w: the file is %q, want %q", ErrKind, h.Kind, kind)
	}
	return nil
}

// DecodeJob reads and validates a job profile.
func DecodeJob(r io.Reader) (*Job, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if err := checkHeader(data, "job"); err != nil {
		return nil, err
	}
	var j Job
	if err := json.Unmarshal(data, &j); err != nil {
		return nil, err
	}
	return &j, j.Validate()
}

// DecodeTenants reads and validates a tenants file.
func DecodeTenants(r io.Reader) (*Tenants, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if err := checkHeader(data, "tenants"); err != nil {
		return nil, err
	}
	var t Tenants
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, err
	}
	return &t, t.Validate()
}

// LoadJob reads and validates profiles/<job>.json.
func LoadJob(path string) (*Job, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	j, err := DecodeJob(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return j, nil
}

// LoadTenants reads and validates tenants.json.
func LoadTenants(path string) (*Tenants, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := DecodeTenants(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Marshal fills in $schema, version and kind, turns nil slices into empty arrays
// (a scheduler reads [] as "none", null as "unknown"), validates and
// encodes the profile as indented JSON.
func (j *Job) Marshal() ([]byte, error) {
	j.Schema, j.Version, j.Kind = JobSchemaID, Version, "job"
	j.normalise()
	if err := j.Validate(); err != nil {
		return nil, err
	}
	return encode(j)
}

// Marshal is Job.Marshal for tenants.json.
func (t *Tenants) Marshal() ([]byte, error) {
	t.Schema, t.Version, t.Kind = TenantsSchemaID, Version, "tenants"
	t.normalise()
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return encode(t)
}

func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// sortedSet sorts s and drops repeats: each stage that saw runs of a job
// names its table among the sources, and two may name the same one.
func sortedSet(s []string) []string {
	out := append([]string{}, s...)
	sort.Strings(out)
	n := 0
	for i, v := range out {
		if i == 0 || v != out[n-1] {
			out[n] = v
			n++
		}
	}
	return out[:n]
}

func (j *Job) normalise() {
	j.Identity.Names = nonNil(j.Identity.Names)
	j.Identity.Sources = sortedSet(j.Identity.Sources)
	j.Elasticity = nonNil(j.Elasticity)
	j.Phases = nonNil(j.Phases)
	j.Warnings = nonNil(j.Warnings)
	if e := j.Estimate; e != nil {
		e.Phases = nonNil(e.Phases)
	}
	if s := j.SLO; s != nil {
		s.Warnings = nonNil(s.Warnings)
		s.Override.Fields = nonNil(s.Override.Fields)
	}
	if s := j.Skyline; s != nil {
		s.Containers = nonNil(s.Containers)
		s.Reservation = nonNil(s.Reservation)
		s.Stages = nonNil(s.Stages)
		s.AlphaSweep = nonNil(s.AlphaSweep)
		s.Warnings = nonNil(s.Warnings)
	}
	for i := range j.Elasticity {
		m := &j.Elasticity[i]
		if m.Params == nil {
			m.Params = map[string]float64{}
		}
		m.Curve = nonNil(m.Curve)
		m.Warnings = nonNil(m.Warnings)
	}
}

func (t *Tenants) normalise() {
	t.Ranking.Short = nonNil(t.Ranking.Short)
	t.Ranking.Medium = nonNil(t.Ranking.Medium)
	t.Ranking.Long = nonNil(t.Ranking.Long)
	t.Classes = nonNil(t.Classes)
	t.Tenants = nonNil(t.Tenants)
	t.Warnings = nonNil(t.Warnings)
}
