// Package stage states, as Go types the compiler checks, the surface every
// analysis and what-if stage exports, so that the command runs them all
// the same way and a new stage cannot drift from the others.
//
// A stage package P declares
//
//	func DefaultOptions() Options
//	func (o *Options) AddFlags(fs *pflag.FlagSet) // names, help, defaults from o
//	func (o *Options) Validate() error            // every problem, errors.Join-ed
//	func Load(ctx context.Context, ds *dataset.Dataset, opts Options) (Input, error) // reads only
//	func Run(ctx context.Context, in Input, opts Options) (*Result, error)         // computes only
//	func (r *Result) Document() Document          // what -o text|csv|json prints
//	func (r *Result) Profile(jobs profile.Jobs) error // where it has per-job numbers
//	var ErrXxx = errors.New("P: nothing to ... (the remedy)")
//	var Contract = stage.Define("P", DefaultOptions, Load, Run, (*Result).Document, ErrXxx)
//
// and Options.Job (string) where it has jobs. Define only compiles when
// those signatures agree; stagetest.Check then checks what types cannot:
// the defaults validate, the flags leave the defaults as they are and parse
// their own default text back to it.
package stage

import (
	"context"
	"errors"
	"io"

	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/profile"
)

// Options is what a stage's *Options does.
type Options interface {
	// AddFlags registers one flag per option on fs, its default being the
	// option's current value: both binaries and every command that exposes
	// the stage declare its flags through it, so each is written once.
	AddFlags(fs *pflag.FlagSet)
	// Validate reports every bad value at once (errors.Join).
	Validate() error
}

// Document is what a stage prints: its -o json document, which also
// writes itself as text and CSV (through internal/table).
type Document interface {
	WriteText(w io.Writer) error
	WriteCSV(w io.Writer) error
}

// JobProfiler is a result with per-job numbers: it sets its sections of
// each job's profile.
type JobProfiler interface {
	Profile(jobs profile.Jobs) error
}

// Stage is one stage's contract: its functions, as the command runs them.
// Build it with Define.
type Stage[O, I, R any, D Document] struct {
	// Name is the stage's name, as its command and progress line say it.
	Name string
	// Defaults returns the documented defaults.
	Defaults func() O
	// Load reads what Run needs from the dataset, and nothing else.
	Load func(ctx context.Context, ds *dataset.Dataset, opts O) (I, error)
	// Run computes, touching nothing else.
	Run func(ctx context.Context, in I, opts O) (*R, error)
	// Document is what the command prints.
	Document func(r *R) D
	// Empty is the stage's "nothing to work on" error; its message names
	// the remedy. The command prefixes it with the dataset's path.
	Empty error
	// Warnings, when set, are the result's caveats the command prints on
	// stderr (not with --quiet).
	Warnings func(r *R) []string
	// NoDataset, when set, is what the command does when the dataset
	// directory does not exist (dir; missing is the error opening it
	// gave, which the stage may return as it is): with a nil error it runs the stage
	// on a nil dataset, which Load then accepts, and prints note on
	// stderr; else it fails with the error. A stage whose input can come
	// from elsewhere (simulate's --trace) sets it; without it a missing
	// dataset is an error.
	NoDataset func(opts *O, dir string, missing error) (note string, err error)

	addFlags func(o *O, fs *pflag.FlagSet)
	validate func(o *O) error
}

// Define builds a stage's contract from its package's functions; it only
// compiles when their signatures agree with the contract.
func Define[O any, PO interface {
	*O
	Options
}, I, R any, D Document](
	name string,
	defaults func() O,
	load func(context.Context, *dataset.Dataset, O) (I, error),
	run func(context.Context, I, O) (*R, error),
	document func(*R) D,
	empty error,
) Stage[O, I, R, D] {
	return Stage[O, I, R, D]{
		Name: name, Defaults: defaults, Load: load, Run: run, Document: document, Empty: empty,
		addFlags: func(o *O, fs *pflag.FlagSet) { PO(o).AddFlags(fs) },
		validate: func(o *O) error { return PO(o).Validate() },
	}
}

// WithWarnings returns s whose command prints warn(result) on stderr.
func (s Stage[O, I, R, D]) WithWarnings(warn func(*R) []string) Stage[O, I, R, D] {
	s.Warnings = warn
	return s
}

// WithoutDataset returns s whose command runs without a dataset as
// noDataset says (Stage.NoDataset).
func (s Stage[O, I, R, D]) WithoutDataset(noDataset func(opts *O, dir string, missing error) (note string, err error)) Stage[O, I, R, D] {
	s.NoDataset = noDataset
	return s
}

// AddFlags registers o's flags on fs.
func (s Stage[O, I, R, D]) AddFlags(o *O, fs *pflag.FlagSet) { s.addFlags(o, fs) }

// Validate reports every bad value of o.
func (s Stage[O, I, R, D]) Validate(o *O) error { return s.validate(o) }

// Execute loads and runs the stage on ds. Options are not validated here:
// a bad value is the caller's usage error, reported before any reading.
func (s Stage[O, I, R, D]) Execute(ctx context.Context, ds *dataset.Dataset, opts O) (*R, error) {
	in, err := s.Load(ctx, ds, opts)
	if err != nil {
		return nil, err
	}
	return s.Run(ctx, in, opts)
}

// IsEmpty reports whether err is the stage's "nothing to work on" error.
func (s Stage[O, I, R, D]) IsEmpty(err error) bool {
	return s.Empty != nil && errors.Is(err, s.Empty)
}

// AddPrefixed registers, on dst, the flags names of a stage's options
// (registered by add on a scratch set) under prefix+name, with note after
// their help: a command that runs a stage as one of several (report's
// --simulate-nodes) reuses the stage's declaration instead of a copy.
// The flags share their values with the options add registered them on.
// Every name must exist; it panics otherwise, as pflag does on a clash.
func AddPrefixed(dst *pflag.FlagSet, prefix, note string, add func(*pflag.FlagSet), names ...string) {
	src := pflag.NewFlagSet(prefix, pflag.ContinueOnError)
	add(src)
	for _, n := range names {
		f := src.Lookup(n)
		if f == nil {
			panic("stage.AddPrefixed: no flag " + n)
		}
		g := *f
		g.Name, g.Shorthand = prefix+n, ""
		if note != "" {
			g.Usage += " " + note
		}
		dst.AddFlag(&g)
	}
}

// AddOnly registers, on dst, only the flags names of a stage's options
// (registered by add on a scratch set), as the stage declares them: a
// command that runs part of a stage (export yarn-reservation fits one job:
// no --alpha-sweep, no --workers) shows what applies without a copy of
// the declaration. The flags share their values with the options add
// registered them on. Every name must exist; it panics otherwise, as
// pflag does on a clash.
func AddOnly(dst *pflag.FlagSet, add func(*pflag.FlagSet), names ...string) {
	src := pflag.NewFlagSet("only", pflag.ContinueOnError)
	add(src)
	for _, n := range names {
		f := src.Lookup(n)
		if f == nil {
			panic("stage.AddOnly: no flag " + n)
		}
		dst.AddFlag(f)
	}
}
