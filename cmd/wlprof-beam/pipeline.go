package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
	"github.com/wlprof/wlprof/classify"
	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/ingest"
)

// The classify pipeline:
//
//	shard paths ─ReadShard─▶ (tenant, classify.Partial) per shard ─CombinePerKey(mergeFn)─▶ one Partial per tenant
//	             └─rejects (side output) ─▶ one group ─▶ DIR/rejects.csv
//	per tenant ─Analyse─▶ (its classify.Tenant, its Partial) ─▶ one group ─Combine─▶ DIR/classify.json, tenants.parquet, classes.parquet
//
// A shard is reduced to one Partial per tenant (exact sums and counts per
// grid slot, classify/partial.go) before anything is shuffled: never one
// element per sample. Partials merge with integer adds, so the series do
// not depend on how the rows were sharded nor in which order the merges
// ran; the global combine sorts the tenants before the class sums (as Run
// does), so the result is that of wlprof classify on the same rows.

func init() {
	// Generic registration: the SDK calls the DoFns without reflection.
	register.DoFn4x1[context.Context, string, func(string, classify.Partial), func(rejectRow), error](&readShardFn{})
	register.Emitter2[string, classify.Partial]()
	register.Emitter1[rejectRow]()
	register.Combiner3[partials, classify.Partial, classify.Partial](&mergeFn{})
	register.DoFn3x1[string, classify.Partial, func(analysed), error](&analyseFn{})
	register.Emitter1[analysed]()
	register.DoFn2x1[int, func(*analysed) bool, error](&combineFn{})
	register.Iter1[analysed]()
	register.DoFn2x1[int, func(*rejectRow) bool, error](&writeRejectsFn{})
	register.Iter1[rejectRow]()
	beam.RegisterType(reflect.TypeOf((*rejectRow)(nil)).Elem())
	// The two elements whose bytes Prism copies at every stage: a tenant's
	// Partial in its binary form (classify/partialcodec.go, about 3 bytes a
	// slot), and an analysed tenant as its result and that Partial, not
	// its float64 series.
	beam.RegisterCoder(reflect.TypeOf((*classify.Partial)(nil)).Elem(), encodePartial, decodePartial)
	beam.RegisterCoder(reflect.TypeOf((*analysed)(nil)).Elem(), encodeAnalysed, decodeAnalysed)
	beam.RegisterCoder(reflect.TypeOf((*partials)(nil)).Elem(), encodePartials, decodePartials)
}

func encodePartial(p classify.Partial) ([]byte, error) { return p.MarshalBinary() }

func decodePartial(b []byte) (classify.Partial, error) {
	var p classify.Partial
	err := p.UnmarshalBinary(b)
	return p, err
}

// classifyConfig is what the pipeline's steps need to know.
type classifyConfig struct {
	Format  string
	Ingest  ingestConfig
	StepMs  int64
	Options classify.Options
	Out     string // directory of the outputs
}

// buildClassify makes the pipeline over the given shards.
func buildClassify(shards []string, cfg classifyConfig) *beam.Pipeline {
	p, s := beam.NewPipelineWithRoot()
	paths := beam.CreateList(s, shards)
	parts, rejects := beam.ParDo2(s, &readShardFn{Format: cfg.Format, Ingest: cfg.Ingest, StepMs: cfg.StepMs}, paths)
	perTenant := beam.CombinePerKey(s, &mergeFn{}, parts)
	tenants := beam.ParDo(s, &analyseFn{StepMs: cfg.StepMs, Options: cfg.Options}, perTenant)
	beam.ParDo0(s, &combineFn{StepMs: cfg.StepMs, Options: cfg.Options, Out: cfg.Out, Format: cfg.Format}, beam.GroupByKey(s, beam.AddFixedKey(s, tenants)))
	beam.ParDo0(s, &writeRejectsFn{Out: cfg.Out}, beam.GroupByKey(s, beam.AddFixedKey(s, rejects)))
	return p
}

// rejectRow is one rejected input record, as the dataset's rejects table
// keeps it (without the ingest number, which a pipeline has not).
type rejectRow struct {
	File   string
	Line   int64
	Col    int32
	Format string
	Reason string
	Record string
}

// readShardFn reads one shard with ingest's parser for Format and emits
// each tenant's Partial, and every rejected record.
//
// The shard is ingested into a temporary dataset in the worker's temp
// directory and read back: the parsers, their rejects and their units are
// then exactly those of wlprof ingest. (A streaming reader that skips the
// temporary Parquet is the next step; it costs about what ingest does.)
type readShardFn struct {
	Format string
	Ingest ingestConfig
	StepMs int64
}

// ingestConfig is what a worker needs of the ingest options, in a form a
// runner can ship (ingest.Options holds a *time.Location and callbacks).
type ingestConfig struct {
	CPUUnit, TZ       string // as --cpu-unit and --tz
	Tenant, TenantKey string // as --tenant and --tenant-key
}

// options are the ingest options of every shard: no limit on rejects per
// shard (the command checks the total).
func (c ingestConfig) options() (ingest.Options, error) {
	o := ingest.DefaultOptions()
	o.MaxRejects = -1
	o.Tenant, o.TenantKey = c.Tenant, c.TenantKey
	if err := (ingest.Flags{CPUUnit: c.CPUUnit, TZ: c.TZ}).Apply(&o); err != nil {
		return o, err
	}
	return o, o.Validate()
}

func (f *readShardFn) ProcessElement(ctx context.Context, path string, emit func(string, classify.Partial), reject func(rejectRow)) error {
	b := classify.NewSeriesBuilder(time.Duration(f.StepMs) * time.Millisecond)
	err := scanShard(ctx, f.Format, path, f.Ingest, func(ds *dataset.Dataset) error {
		return dataset.ScanUsageBatches(ctx, ds, func(ub *dataset.UsageBatch) error {
			b.AddBatch(ub)
			return nil
		})
	}, reject)
	if err != nil {
		return err
	}
	for _, p := range b.Partials() {
		emit(p.Tenant, p)
	}
	return nil
}

// shardDataset ingests one shard with ingest's parser for format into a
// temporary dataset in the worker's temp directory: the records, rejects
// and units are then exactly those of wlprof ingest. A shard on another
// file system (gs://) is first copied to a local file (fetchShard); name
// maps the file names the dataset holds back to the shard's. done removes
// both.
func shardDataset(ctx context.Context, format, path string, ic ingestConfig) (*dataset.Dataset, func(string) string, func(), error) {
	opts, err := ic.options()
	if err != nil {
		return nil, nil, nil, err
	}
	local, name, fetched, err := fetchShard(ctx, path)
	if err != nil {
		return nil, nil, nil, err
	}
	tmp, err := os.MkdirTemp("", "wlprof-beam-shard-")
	if err != nil {
		fetched()
		return nil, nil, nil, err
	}
	done := func() { os.RemoveAll(tmp); fetched() }
	_, ds, err := ingest.Into(ctx, filepath.Join(tmp, "ds"), format, []string{local}, opts)
	if err != nil {
		done()
		return nil, nil, nil, err
	}
	return ds, name, done, nil
}

// emitRejects emits every rejected record of a shard's dataset, its file
// named by name.
func emitRejects(ctx context.Context, ds *dataset.Dataset, name func(string) string, reject func(rejectRow)) error {
	rows, err := dataset.ReadRejects(ctx, ds, "")
	if err != nil {
		return err
	}
	for _, r := range rows {
		reject(rejectRow{File: name(r.File), Line: r.Line, Col: r.Col, Format: r.Format, Reason: r.Reason, Record: r.Record})
	}
	return nil
}

// scanShard ingests one shard into a temporary dataset (shardDataset),
// reads its records with scan, then emits every rejected record.
func scanShard(ctx context.Context, format, path string, ic ingestConfig, scan func(*dataset.Dataset) error, reject func(rejectRow)) error {
	ds, name, done, err := shardDataset(ctx, format, path, ic)
	if err != nil {
		return err
	}
	defer done()
	if err := scan(ds); err != nil {
		return err
	}
	return emitRejects(ctx, ds, name, reject)
}

// readShard ingests one input into a new dataset at dir and hands its
// usage rows to fn batch by batch, in the input's order.
func readShard(ctx context.Context, dir, format, path string, opts ingest.Options, fn func(*dataset.UsageBatch) error) (*dataset.Dataset, error) {
	local, _, done, err := fetchShard(ctx, path)
	if err != nil {
		return nil, err
	}
	defer done()
	_, ds, err := ingest.Into(ctx, dir, format, []string{local}, opts)
	if err != nil {
		return nil, err
	}
	return ds, dataset.ScanUsageBatches(ctx, ds, fn)
}

// mergeFn merges a tenant's Partials from every shard. The accumulator
// only gathers them, and ExtractOutput merges them at once (classify.MergeAll:
// the slots allocated once). Merging two at a time copied the growing
// slots at every merge, which on shards that each cover a stretch of time
// is quadratic in the shards. Partials merge exactly (integer adds), so
// the result does not depend on the order the runner gathered them in.
type mergeFn struct{}

// partials is mergeFn's accumulator: a tenant's Partials, unmerged.
type partials struct {
	Parts []classify.Partial
}

func (mergeFn) CreateAccumulator() partials { return partials{} }

func (mergeFn) AddInput(a partials, p classify.Partial) partials {
	a.Parts = append(a.Parts, p)
	return a
}

func (mergeFn) MergeAccumulators(a, b partials) partials {
	a.Parts = append(a.Parts, b.Parts...)
	return a
}

func (mergeFn) ExtractOutput(a partials) classify.Partial {
	if len(a.Parts) == 1 {
		return a.Parts[0]
	}
	return classify.MergeAll(a.Parts)
}

// encodePartials is the count of parts, then each part's binary form
// behind its length.
func encodePartials(a partials) ([]byte, error) {
	b := binary.AppendUvarint(nil, uint64(len(a.Parts)))
	for i := range a.Parts {
		p, err := a.Parts[i].MarshalBinary()
		if err != nil {
			return nil, err
		}
		b = append(binary.AppendUvarint(b, uint64(len(p))), p...)
	}
	return b, nil
}

func decodePartials(b []byte) (partials, error) {
	var a partials
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return a, errors.New("wlprof-beam: a damaged list of partials")
	}
	b = b[k:]
	a.Parts = make([]classify.Partial, n)
	for i := range a.Parts {
		m, k := binary.Uvarint(b)
		if k <= 0 || m > uint64(len(b)-k) {
			return a, errors.New("wlprof-beam: a damaged list of partials")
		}
		if err := a.Parts[i].UnmarshalBinary(b[k : k+int(m)]); err != nil {
			return a, err
		}
		b = b[k+int(m):]
	}
	if len(b) != 0 {
		return a, errors.New("wlprof-beam: a damaged list of partials")
	}
	return a, nil
}

// analysed is one tenant's classification and the merged Partial its
// series comes from: the global combine rebuilds the series (Partial.Series
// is exact), so the shuffle carries about 3 bytes a slot, not 8.
type analysed struct {
	Tenant  classify.Tenant
	Partial classify.Partial
}

// encodeAnalysed is the tenant gob-encoded (its floats may be NaN, which
// JSON has not) behind its length, then the Partial's binary form.
func encodeAnalysed(a analysed) ([]byte, error) {
	t, err := encodeGob(a.Tenant)
	if err != nil {
		return nil, err
	}
	b := binary.AppendUvarint(make([]byte, 0, 16+len(t)+3*len(a.Partial.Slots)), uint64(len(t)))
	return a.Partial.AppendBinary(append(b, t...))
}

func decodeAnalysed(b []byte) (analysed, error) {
	var a analysed
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return a, fmt.Errorf("wlprof-beam: a damaged analysed element")
	}
	if err := decodeGob(b[k:k+int(n)], &a.Tenant); err != nil {
		return a, err
	}
	return a, a.Partial.UnmarshalBinary(b[k+int(n):])
}

// analyseFn is the per-tenant core of classify: classify.Analyse on the
// tenant's series, built from its merged Partial. Prism hands a stage all
// of its elements as one bundle, so the tenants of a bundle are analysed
// by Options.Workers goroutines (all CPUs by default, as wlprof classify
// does); the results are emitted by the bundle's own goroutine, as they
// come and at FinishBundle.
type analyseFn struct {
	StepMs  int64
	Options classify.Options

	in   chan classify.Partial
	out  chan analysed
	wg   sync.WaitGroup
	busy int // elements sent and not yet emitted
}

func (f *analyseFn) StartBundle(_ context.Context, _ func(analysed)) { // the SDK wants the emitter here too
	workers := f.Options.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}
	f.in = make(chan classify.Partial, workers)
	f.out = make(chan analysed, 4*workers)
	f.busy = 0
	for range workers {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			for p := range f.in {
				s := p.Series(time.Duration(f.StepMs) * time.Millisecond)
				f.out <- analysed{Tenant: classify.Analyse(&s, f.Options), Partial: p}
			}
		}()
	}
}

func (f *analyseFn) ProcessElement(_ string, p classify.Partial, emit func(analysed)) error {
	for {
		select {
		case f.in <- p:
			f.busy++
			f.drain(emit, false)
			return nil
		case a := <-f.out: // the workers wait for room: emit to make it
			f.busy--
			emit(a)
		}
	}
}

// drain emits the results that are ready (all of them, waiting, when
// wait is set).
func (f *analyseFn) drain(emit func(analysed), wait bool) {
	for f.busy > 0 {
		var a analysed
		if wait {
			a = <-f.out
		} else {
			select {
			case a = <-f.out:
			default:
				return
			}
		}
		f.busy--
		emit(a)
	}
}

func (f *analyseFn) FinishBundle(_ context.Context, emit func(analysed)) error {
	close(f.in)
	f.drain(emit, true)
	f.wg.Wait()
	return nil
}

// combineFn is the global combine: classes and headroom over every
// tenant (classify.Combine, which sorts them), written to Out.
type combineFn struct {
	StepMs  int64
	Options classify.Options
	Out     string
	Format  string
}

func (f *combineFn) ProcessElement(_ int, iter func(*analysed) bool) error {
	var series []dataset.Series
	var tenants []classify.Tenant
	var a analysed
	for iter(&a) {
		series = append(series, a.Partial.Series(time.Duration(f.StepMs)*time.Millisecond))
		tenants = append(tenants, a.Tenant)
	}
	res, err := classify.Combine(series, tenants, f.Options)
	if err != nil {
		return err
	}
	// As wlprof classify on a dataset just ingested: built from usage.
	res.Built = true
	res.Units = "server"
	if f.Format == classify.GoogleUsageFormat {
		res.Units = "ncu"
	}
	return writeResults(f.Out, res)
}

// gather is every element iter gives, in its order.
func gather[T any](iter func(*T) bool) []T {
	var all []T
	var v T
	for iter(&v) {
		all = append(all, v)
	}
	return all
}

// writeFailed writes a stage's failure on the data to dir/errors.txt, as
// wlprof says it; the command reads it back (stageError).
func writeFailed(dir string, failed error) error {
	return writeOut(dir, errorsTxt, func(w io.Writer) error {
		_, err := fmt.Fprintln(w, failed)
		return err
	})
}

// writeRejectsFn writes every rejected record, sorted by file, line and
// column, to Out/rejects.csv.
type writeRejectsFn struct {
	Out string
}

func (f *writeRejectsFn) ProcessElement(_ int, iter func(*rejectRow) bool) error {
	rows := gather(iter)
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return a.Reason < b.Reason
	})
	return writeRejects(f.Out, rows)
}

func encodeGob(v any) ([]byte, error) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(v); err != nil {
		return nil, fmt.Errorf("wlprof-beam: encode %T: %w", v, err)
	}
	return buf.Bytes(), nil
}

func decodeGob(b []byte, v any) error {
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(v); err != nil {
		return fmt.Errorf("wlprof-beam: decode %T: %w", v, err)
	}
	return nil
}
