package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/options/jobopts"
	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/ingest"
	"github.com/wlprof/wlprof/internal/safetext"
	"github.com/wlprof/wlprof/internal/stage"
)

// shardFlags are the flags every command has: the shards and their
// format, the runner, the output directory, the rejects allowed.
type shardFlags struct {
	Inputs     []string // globs
	Format     string
	Runner     string
	Endpoint   string
	Out        string
	MaxRejects int64
	BeamLog    string
	Ingest     ingestConfig
	// The workers of a portable runner (not Prism): the program they run
	// and the SDK harness environment it runs in.
	WorkerBinary      string
	EnvironmentType   string
	EnvironmentConfig string
	// Dataflow's options, and any other flag of the Beam SDK
	// (runneropts.go).
	Project, Region, TempLocation, StagingLocation string
	BeamOpts                                       []string
	// How long a job service may take to answer the first dial.
	ConnectTimeout time.Duration
	sdk            []sdkSetting // the SDK flags to set, from validate
	listErr        error        // a store's failure to list --input, from validate
}

// stageCmd is one command's options: the global ones, the shared flags,
// and the options of the stage st, flags and all (the stage's AddFlags:
// declared once, for both binaries). Every command validates, runs its
// pipeline and prints its document through it, the same way.
type stageCmd[O, I, R any, D stage.Document] struct {
	g *globalOptions
	shardFlags
	st    stage.Stage[O, I, R, D]
	table string // the dataset table the command's formats write
	opts  O
}

// newStageCmd returns a command's options for stage st, reading formats
// that write table, at the stage's defaults.
func newStageCmd[O, I, R any, D stage.Document](g *globalOptions, st stage.Stage[O, I, R, D], table string) *stageCmd[O, I, R, D] {
	return &stageCmd[O, I, R, D]{g: g, st: st, table: table, opts: st.Defaults()}
}

// validate checks every flag and returns the shards, sorted, and the
// options of the stage, as wlprof STAGE takes them; all problems at once.
func (o *stageCmd[O, I, R, D]) validate() ([]string, O, error) {
	err := o.st.Validate(&o.opts)
	shards, more := o.shardFlags.validate(o.st.Name, o.table)
	return shards, o.opts, errors.Join(append([]error{err}, more...)...)
}

// run validates the flags (a usage error), runs the pipeline over the
// shards (pipe), prints its document (print) and turns rejected records
// into exit 3.
func (o *stageCmd[O, I, R, D]) run(ctx context.Context, pipe func(context.Context, *stageCmd[O, I, R, D], []string, O) (D, int64, error), print func(D) error) error {
	shards, opts, err := o.validate()
	if err != nil {
		return usageError{err}
	}
	doc, rejected, err := pipe(ctx, o, shards, opts)
	if err != nil {
		return err
	}
	return o.finish(rejected, func() error { return print(doc) })
}

// print writes the document as -o asks, as wlprof STAGE prints it.
func (o *stageCmd[O, I, R, D]) print(doc D) error {
	return printDoc(o.g, doc, func(w *safetext.Writer) error { return doc.WriteText(w) })
}

// runShards prepares the outputs (the document first), runs the pipeline
// build makes over the shards as the workers see them, and returns the
// document it wrote and the number of rejected records. A stage whose
// outputs include errorsTxt fails as its global combine wrote there; a
// run that wrote no document (the combine had nothing to run on) is the
// error none returns.
func (o *stageCmd[O, I, R, D]) runShards(ctx context.Context, shards []string, build func(shards []string, out string) (*beam.Pipeline, error), none func(rejected int64) error, outputs ...string) (D, int64, error) {
	var doc D
	shards, out, err := o.prepare(ctx, shards, outputs...)
	if err != nil {
		return doc, 0, err
	}
	p, err := build(shards, out)
	if err != nil {
		return doc, 0, err
	}
	rejected, b, err := o.runPipeline(ctx, o.g, p, out, outputs[0], slices.Contains(outputs, errorsTxt))
	if err == nil && b == nil {
		return doc, rejected, none(rejected)
	}
	if err != nil {
		return doc, rejected, err
	}
	return doc, rejected, json.Unmarshal(b, &doc)
}

// bind declares the shared flags; formats says which formats the
// command reads.
func (s *shardFlags) bind(f *pflag.FlagSet, formats string) {
	f.StringArrayVar(&s.Inputs, "input", nil, "input shards: a glob (repeatable)")
	f.StringVar(&s.Format, "format", "", "input format, as wlprof ingest FORMAT ("+formats+")")
	f.StringVar(&s.Runner, "runner", "prism", "Beam runner: prism (in process), flink, spark or dataflow")
	f.StringVar(&s.Endpoint, "endpoint", "", "job service endpoint of the runner (prism: started in process when empty)")
	f.StringVar(&s.Out, "out", "", "output directory")
	f.Int64Var(&s.MaxRejects, "max-rejects", 1000, "fail when more input records than this are rejected (negative: no limit)")
	f.StringVar(&s.BeamLog, "beam-log", "off", "Beam's and Prism's own log on stderr: off, error, warn, info or debug")
	f.StringVar(&s.Ingest.TZ, "tz", "", "time zone of timestamps without a UTC offset (default UTC)")
	f.StringVar(&s.WorkerBinary, "worker-binary", "", "program the workers of flink, spark or dataflow run (default: this one, on linux/amd64)")
	f.StringVar(&s.EnvironmentType, "environment-type", "", "SDK harness of the workers: DOCKER, PROCESS, EXTERNAL or LOOPBACK (default: the runner's)")
	f.StringVar(&s.EnvironmentConfig, "environment-config", "", "the harness's configuration: for DOCKER, the image (one with CLP: see the documentation)")
	f.StringVar(&s.Project, "project", "", "dataflow: the Google Cloud project (required)")
	f.StringVar(&s.Region, "region", "", "dataflow: the region to run in, such as us-central1 (required)")
	f.StringVar(&s.TempLocation, "temp-location", "", "dataflow: gs://BUCKET/DIR for the job's temporary files (required)")
	f.StringVar(&s.StagingLocation, "staging-location", "", "dataflow: gs://BUCKET/DIR for the worker binary and the pipeline (default TEMP-LOCATION/staging)")
	f.StringArrayVar(&s.BeamOpts, "beam-opt", nil, "KEY=VALUE: set the Beam SDK's own flag KEY, such as num_workers=10 or worker_machine_type=n2-standard-4 (repeatable)")
	f.DurationVar(&s.ConnectTimeout, "connect-timeout", 30*time.Second, "give up when the job service at --endpoint does not answer within this long")
}

// validate checks the shared flags for a command reading the named
// dataset table, and returns the shards, sorted, and every problem.
func (s *shardFlags) validate(command, table string) ([]string, []error) {
	var errs []error
	if s.Format == "" {
		errs = append(errs, fmt.Errorf("--format: required (a format of wlprof ingest whose records go to the %s table)", table))
	} else if f, err := ingest.Lookup(s.Format); err != nil {
		errs = append(errs, fmt.Errorf("--format: %v", err))
	} else if !slices.Contains(strings.Split(f.Table, "+"), table) {
		errs = append(errs, fmt.Errorf("--format %s: its records go to the %s table; %s reads %s formats", s.Format, f.Table, command, table))
	}
	if s.Out == "" {
		errs = append(errs, errors.New("--out: required"))
	}
	if !slices.Contains(runners, s.Runner) {
		errs = append(errs, fmt.Errorf("--runner %q: want one of %v", s.Runner, runners))
	}
	if _, err := s.Ingest.options(); err != nil {
		errs = append(errs, err)
	}
	if _, ok := beamLogLevels[s.BeamLog]; !ok {
		errs = append(errs, fmt.Errorf("--beam-log %q: want off, error, warn, info or debug", s.BeamLog))
	}
	sdk, more := s.sdkSettings()
	errs = append(errs, more...)
	errs = append(errs, s.validateRunner(sdk)...)
	s.sdk = sdk
	var shards []string
	if len(s.Inputs) == 0 {
		errs = append(errs, errors.New("--input: required (a glob of input shards)"))
	}
	// A glob on another file system is listed only when the flags are
	// right: listing reaches the store (and its credentials).
	flagsOK := len(errs) == 0
	for _, g := range s.Inputs {
		if !isLocal(g) && !flagsOK {
			continue
		}
		m, err := globShards(context.Background(), g)
		switch {
		case err != nil && !isLocal(g) && !errors.As(err, new(usageError)):
			// Not a usage error: the store did not answer (exit 1).
			s.listErr = errors.Join(s.listErr, fmt.Errorf("--input %q: %v", g, err))
		case err != nil:
			errs = append(errs, fmt.Errorf("--input %q: %v", g, err))
		case len(m) == 0:
			errs = append(errs, fmt.Errorf("--input %q: no file matches", g))
		}
		shards = append(shards, m...)
	}
	sort.Strings(shards)
	return shards, errs
}

// prepare makes the output directory (a local one), removes the named
// outputs of an earlier run (stale results must not pass for this run's)
// and rejects.csv, and returns the shards and the directory as the
// workers see them (local paths made absolute), the shards sorted.
func (s *shardFlags) prepare(ctx context.Context, shards []string, outputs ...string) ([]string, string, error) {
	if s.listErr != nil {
		return nil, "", s.listErr
	}
	// A job service that does not answer fails the run now, before any
	// work.
	if s.dialsJobService() {
		if err := probeEndpoint(ctx, s.Runner, s.Endpoint, s.ConnectTimeout); err != nil {
			return nil, "", err
		}
	}
	out := s.Out
	if isLocal(out) {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return nil, "", err
		}
		var err error
		if out, err = filepath.Abs(out); err != nil {
			return nil, "", err
		}
	}
	for _, name := range append(outputs, rejectsCSV) {
		if err := removeOut(ctx, out, name); err != nil {
			return nil, "", err
		}
	}
	abs := make([]string, len(shards))
	for i, p := range shards {
		abs[i] = p
		if isLocal(p) {
			var err error
			if abs[i], err = filepath.Abs(p); err != nil {
				return nil, "", err
			}
		}
	}
	sort.Strings(abs)
	return abs, out, nil
}

// dialsJobService says whether the run reaches a job service over gRPC
// at --endpoint (Dataflow's is a Google API, not such a service).
func (s *shardFlags) dialsJobService() bool {
	return s.Endpoint != "" && s.Runner != "dataflow"
}

// execute runs the pipeline on the chosen runner.
func (s *shardFlags) execute(ctx context.Context, g *globalOptions, p *beam.Pipeline) error {
	if err := applySettings(s.sdk); err != nil {
		return err
	}
	// The SDK's options are globals of the process: a run at an endpoint
	// leaves them as they were, so that a later run in the same process
	// (a test, a program embedding these commands) gets its own runner.
	if s.Endpoint != "" {
		defer restoreJobOpts(*jobopts.Endpoint, *jobopts.EnvironmentType, *jobopts.EnvironmentConfig, *jobopts.WorkerBinary)
		*jobopts.Endpoint = s.Endpoint
	}
	if s.EnvironmentType != "" {
		*jobopts.EnvironmentType = s.EnvironmentType
	}
	if s.EnvironmentConfig != "" {
		*jobopts.EnvironmentConfig = s.EnvironmentConfig
	}
	// Prism at an --endpoint is a job server of its own: workers it starts
	// (EXTERNAL, PROCESS, DOCKER) run the staged binary, as on the other
	// portable runners.
	if s.Runner != "prism" || s.Endpoint != "" {
		bin, err := workerBinary(s.WorkerBinary)
		if err != nil {
			return err
		}
		*jobopts.WorkerBinary = bin
	}
	// The SDK and Prism log through slog's default logger; their errors
	// come back as the run's error, said once.
	prev := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(g.io.Err, &slog.HandlerOptions{Level: beamLogLevels[s.BeamLog]})))
	defer slog.SetDefault(prev)
	if s.dialsJobService() {
		defer boundDials(s.ConnectTimeout)()
	}
	if _, err := beam.Run(ctx, s.Runner, p); err != nil {
		return fmt.Errorf("pipeline on %s: %w", s.Runner, err)
	}
	return nil
}

// restoreJobOpts sets the SDK's job options back to the values given.
func restoreJobOpts(endpoint, envType, envConfig, worker string) {
	*jobopts.Endpoint, *jobopts.EnvironmentType, *jobopts.EnvironmentConfig, *jobopts.WorkerBinary = endpoint, envType, envConfig, worker
}

// rejects counts the rejected records of the run in out and fails when
// they are more than --max-rejects.
func (s *shardFlags) rejects(ctx context.Context, out string) (int64, error) {
	n, err := countRejects(ctx, out)
	if err != nil {
		return 0, err
	}
	if s.MaxRejects >= 0 && n > s.MaxRejects {
		return n, fmt.Errorf("%w: %d rejected, more than --max-rejects %d (see %s)", ingest.ErrTooManyRejects, n, s.MaxRejects, joinOut(s.Out, rejectsCSV))
	}
	return n, nil
}

// runPipeline runs p and reads back what every stage command reads: the
// number of rejected records, a stage's error (errors.txt: stageErrors
// says whether the stage writes one) and the document doc: its bytes, or
// nil when there is none (the combine had nothing to run on).
func (s *shardFlags) runPipeline(ctx context.Context, g *globalOptions, p *beam.Pipeline, out, doc string, stageErrors bool) (rejected int64, b []byte, err error) {
	if err := s.execute(ctx, g, p); err != nil {
		return 0, nil, err
	}
	if rejected, err = s.rejects(ctx, out); err != nil {
		return rejected, nil, err
	}
	if stageErrors {
		if err := stageError(ctx, out); err != nil {
			return rejected, nil, err
		}
	}
	b, err = readOut(ctx, out, doc)
	if errors.Is(err, os.ErrNotExist) {
		return rejected, nil, nil
	}
	return rejected, b, err
}

// finish prints a stage's document (print) and turns rejected records
// into exit 3, as wlprof does.
func (s *shardFlags) finish(rejected int64, print func() error) error {
	if err := print(); err != nil {
		return err
	}
	if rejected > 0 {
		return rejectedError{rejected, joinOut(s.Out, rejectsCSV)}
	}
	return nil
}

// stageError is the error the global combine wrote to out (errorsTxt): a
// failure of the stage on the data, such as a job whose LP failed, said
// as wlprof says it. nil when there is none.
func stageError(ctx context.Context, out string) error {
	b, err := readOut(ctx, out, errorsTxt)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return errors.New(strings.TrimSuffix(string(b), "\n"))
}

// printDoc writes the document as -o asks: JSON, or text through
// safetext (names with their invisible characters escaped).
func printDoc(g *globalOptions, doc any, text func(w *safetext.Writer) error) error {
	if g.Output == "json" {
		return writeJSON(g.io.Out, doc)
	}
	w := safetext.NewWriter(g.io.Out)
	if err := text(w); err != nil {
		return err
	}
	return w.Flush()
}

// workerBinary is the program a portable runner's workers run: bin, or
// this program when it is a linux/amd64 one. Without it the Go SDK would
// cross-compile the program's source with CGO_ENABLED=0, which cannot
// build the skyline stage's binding to CLP (cgo): the build fails.
func workerBinary(bin string) (string, error) {
	if bin != "" {
		return filepath.Abs(bin)
	}
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		return "", fmt.Errorf("--worker-binary: required on %s/%s: build wlprof-beam on linux/amd64 with cgo and CLP (go build ./cmd/wlprof-beam) and name it", runtime.GOOS, runtime.GOARCH)
	}
	return os.Executable()
}
