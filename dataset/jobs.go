package dataset

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/wlprof/wlprof/internal/suggest"
)

// ErrUnknownJob is what an UnknownJobError is: a job asked for by name
// (--job) that the table a command reads has no rows of.
var ErrUnknownJob = errors.New("unknown job")

// UnknownJobError names a job a table lacks and the known jobs closest
// to it, so that a misspelt --job says what was meant:
//
//	job "tpch_q1" has no skylines in ds; closest: "tpch_q12"
type UnknownJobError struct {
	Job     string
	What    string   // what the job has none of: "skylines", "profiling runs"
	Dataset string   // the dataset directory, as given
	Closest []string // the known jobs nearest Job, nearest first
	Known   int      // how many jobs the table has
}

func (e *UnknownJobError) Error() string {
	msg := fmt.Sprintf("job %q has no %s in %s", e.Job, e.What, e.Dataset)
	switch {
	case len(e.Closest) > 0:
		q := make([]string, len(e.Closest))
		for i, c := range e.Closest {
			q[i] = fmt.Sprintf("%q", c)
		}
		msg += "; closest: " + strings.Join(q, ", ")
	case e.Known == 0:
		msg += " (nor has any other job)"
	default:
		msg += fmt.Sprintf(" (none of its %d job(s) has a name close to it)", e.Known)
	}
	return msg
}

// Is makes errors.Is(err, ErrUnknownJob) true.
func (e *UnknownJobError) Is(target error) bool { return target == ErrUnknownJob }

// NewUnknownJob is the error of job, which known (the job names a stage
// read from the dataset in dir) lacks: it names up to three of known
// closest to job (suggest.Closest).
func NewUnknownJob(dir, what, job string, known []string) error {
	return &UnknownJobError{Job: job, What: what, Dataset: dir, Closest: suggest.Closest(job, known, 3), Known: len(known)}
}

// jobNouns says what a table's rows are, for UnknownJob's message.
var jobNouns = map[string]string{
	RunsTable.Name:        "runs",
	SkylinesTable.Name:    "skylines",
	ProvenanceTable.Name:  "provenance events",
	ProfRunsTable.Name:    "profiling runs",
	ProfSamplesTable.Name: "profiling samples",
	StagesTable.Name:      "job DAG stages",
	InstancesTable.Name:   "task instances",
}

// UnknownJob is the error of a --job that table (one with a job column)
// has no rows of: an *UnknownJobError naming the table's closest jobs.
func (d *Dataset) UnknownJob(ctx context.Context, table, job string) error {
	known, err := d.JobNames(ctx, table)
	if err != nil {
		return err
	}
	what := jobNouns[table]
	if what == "" {
		what = table + " rows"
	}
	return NewUnknownJob(d.Dir, what, job, known)
}

// JobNames returns the distinct values of table's job column, sorted. Only
// that column is read.
func (d *Dataset) JobNames(ctx context.Context, table string) ([]string, error) {
	const col = "job"
	seen := map[string]bool{}
	err := scanRowGroups(ctx, d, table, []string{col}, []string{col},
		func(ctx context.Context, g *groupReader, rg int) (map[string]bool, error) {
			return readGroup(ctx, g, rg, func(recs []arrow.Record) (map[string]bool, error) {
				names := map[string]bool{}
				for _, rec := range recs {
					addStrings(names, rec.Column(0))
				}
				return names, nil
			})
		},
		func(names map[string]bool) error {
			for n := range names {
				seen[n] = true
			}
			return nil
		})
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(seen))
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

// addStrings adds the values of a, a string or dictionary-of-strings
// array, to set. New ones are copied: the record's buffers are reused once
// it is released.
func addStrings(set map[string]bool, a arrow.Array) {
	add := func(v string) {
		if !set[v] {
			set[strings.Clone(v)] = true
		}
	}
	switch a := a.(type) {
	case *array.Dictionary:
		vals := a.Dictionary().(*array.String)
		for i := 0; i < a.Len(); i++ {
			if a.IsValid(i) {
				add(vals.Value(a.GetValueIndex(i)))
			}
		}
	case *array.String:
		for i := 0; i < a.Len(); i++ {
			if a.IsValid(i) {
				add(a.Value(i))
			}
		}
	}
}

// CompleteJobs are the jobs of table in the dataset at dir that start
// with prefix, for shell completion of --job: none when the dataset
// cannot be read.
func CompleteJobs(ctx context.Context, dir, table, prefix string) []string {
	ds, err := Open(dir)
	if err != nil {
		return nil
	}
	names, err := ds.JobNames(ctx, table)
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}
