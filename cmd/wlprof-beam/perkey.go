package main

import (
	"context"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

// The skyline and elasticity pipelines have one shape: each shard's rows
// are emitted under their key (a job, a model group) with the shard's
// rejected records beside them; each key's rows become its outcome on a
// worker; one global combine collects the outcomes into the outputs.

func init() {
	register.Iter1[outcome]()
	beam.RegisterType(reflect.TypeOf((*outcome)(nil)).Elem())
}

// outcome is one key's result (a job's, a model group's) as JSON, which
// keeps a null apart from an empty list as the document shows them.
type outcome struct {
	Key  string
	Blob []byte
}

// perKeyConfig is what the steps of a per-key pipeline need to know.
type perKeyConfig[O any] struct {
	Format  string
	Ingest  ingestConfig
	Options O // the stage's; its Job, when set, is the only job read
	Out     string
}

// registerPerKey registers a per-key pipeline's read step, whose rows are
// R, and its global combine, for the SDK to call them without reflection.
func registerPerKey[R any](
	read interface {
		ProcessElement(context.Context, string, func(string, R), func(rejectRow)) error
	},
	collect interface {
		ProcessElement(int, func(*outcome) bool) error
	},
) {
	register.DoFn4x1[context.Context, string, func(string, R), func(rejectRow), error](read)
	register.Emitter2[string, R]()
	register.Iter1[R]()
	register.DoFn2x1[int, func(*outcome) bool, error](collect)
	beam.RegisterType(reflect.TypeOf((*R)(nil)).Elem())
}

// buildPerKey makes the pipeline of a stage that works one key at a time
// (a job, a model group): read emits each shard's rows under their key and
// its rejected records, perKey turns one key's rows into its outcome, and
// collect, the global combine, writes the outputs to out.
func buildPerKey(shards []string, read, perKey, collect any, out string) *beam.Pipeline {
	p, s := beam.NewPipelineWithRoot()
	paths := beam.CreateList(s, shards)
	rows, rejects := beam.ParDo2(s, read, paths)
	outcomes := beam.ParDo(s, perKey, beam.GroupByKey(s, rows))
	beam.ParDo0(s, collect, beam.GroupByKey(s, beam.AddFixedKey(s, outcomes)))
	beam.ParDo0(s, &writeRejectsFn{Out: out}, beam.GroupByKey(s, beam.AddFixedKey(s, rejects)))
	return p
}
