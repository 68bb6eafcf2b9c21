package ingest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// Options control an ingest. The zero value is not valid; start from
// DefaultOptions.
type Options struct {
	// MaxRejects aborts the whole ingest once more records than this were
	// rejected; the dataset is then left as it was. Negative: no limit.
	MaxRejects int64
	// CPUUnit is how utilisation is written in CSV inputs.
	CPUUnit CPUUnit
	// Location reads timestamps written without a UTC offset.
	Location *time.Location
	// Progress, when set, is called after each input with its totals
	// (for google2019-usage, before the duplicate instance rows found when
	// the rows are summed at the end move from accepted to rejected).
	Progress func(FileResult)
	// Watch, when set, is called as each input is opened with its path,
	// its size on disk and a function that says how many of those bytes
	// were read so far (safe to call from another goroutine); the stop it
	// returns is called when the input is done, before Progress.
	Watch func(path string, size int64, read func() int64) (stop func())
	// SkipDuplicates skips, with a note, a file whose content (sha256) the
	// dataset already holds from an earlier ingest or an earlier input of
	// this one: its rows would be counted twice. wlprof ingest sets it
	// (unless --allow-duplicate); off, every input is read.
	SkipDuplicates bool
	// Tenant names the tenant of formats that carry none (series-csv,
	// alibaba2018-machine); "" keeps each format's default.
	Tenant string
	// TenantKey chooses which trace field is the tenant, per format (see
	// tenantKeys in traces.go); "" keeps each format's default.
	TenantKey string
	// TraceStart is the instant that offset 0 of a trace-relative clock maps
	// to (Azure, Alibaba, Google 2019, offset_seconds series); the zero
	// value keeps each format's documented default.
	TraceStart time.Time
	// VMTables are Azure vmtable files read (format azure-vmtable) before
	// the inputs, so that azure-cpu readings join with them.
	VMTables []string
	// CollectionEvents are Google collection_events files read before the
	// inputs, so that google2019-usage can use --tenant-key user.
	CollectionEvents []string
	// Prometheus is what format prometheus reads (server, range, step,
	// queries); prometheus-json reads them from its file's header.
	Prometheus PrometheusOptions
	// sumRows is how many google2019-usage rows are held in memory before
	// they are sorted and spilled to a temporary file; 0 means
	// googleSumRows. Tests lower it to exercise the spill.
	sumRows int
}

// DefaultOptions: 1000 rejects at most, cpu unit detected, UTC.
func DefaultOptions() Options {
	return Options{MaxRejects: 1000, CPUUnit: UnitAuto, Location: time.UTC}
}

// Validate reports every option out of range at once. A TenantKey no
// format knows is an error here, before any input is read; one that a
// format of a mixed ingest does not know is only a note on that input.
func (o Options) Validate() error {
	var errs []error
	if o.TenantKey != "" && !slices.Contains(TenantKeys(), o.TenantKey) {
		errs = append(errs, fmt.Errorf("--tenant-key %q: want one of %s", o.TenantKey, strings.Join(TenantKeys(), ", ")))
	}
	return errors.Join(errs...)
}

// ErrTooManyRejects stops an ingest whose inputs are mostly not what the
// format expects.
var ErrTooManyRejects = errors.New("too many rejected records")

// FileResult is what one input contributed.
type FileResult struct {
	Path     string   `json:"path"`
	Format   string   `json:"format"`
	Table    string   `json:"table"`
	Accepted int64    `json:"accepted"`
	Rejected int64    `json:"rejected"`
	Notes    []string `json:"notes,omitempty"`
	// Skipped: the content was ingested before (Notes says where), so
	// nothing was read from it.
	Skipped bool `json:"skipped,omitempty"`
}

// Result sums an ingest.
type Result struct {
	Ingest   int          `json:"ingest"`
	Files    []FileResult `json:"files"`
	Accepted int64        `json:"accepted"`
	Rejected int64        `json:"rejected"`
	// Samples holds the first rejected records, for the summary on stderr.
	Samples []*ParseError `json:"-"`
	// jobRuns remembers which input gave each (job, run), so that a run
	// read twice in one ingest is pointed out (see drainJobs).
	jobRuns map[[2]string]string
}

// maxSamples is how many rejects a Result keeps for display.
const maxSamples = 5

// Run reads every path (directories are walked, hidden files skipped) in the
// named format, or detects each input's format when format is "auto", and
// adds the records to tx. Rejected records go to the rejects table. It
// returns ErrTooManyRejects, an unknown-format error or an I/O error; the
// caller then rolls tx back.
func Run(ctx context.Context, tx *dataset.Tx, format string, paths []string, opts Options) (*Result, error) {
	if format == promFormat {
		return runPrometheus(ctx, tx, paths, opts)
	}
	var fixed *Format
	if format != "auto" {
		f, err := Lookup(format)
		if err != nil {
			return nil, err
		}
		fixed = f
	}
	files, err := expand(paths)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no input files in %s (directories are read for their regular, non-hidden files)", strings.Join(paths, ", "))
	}
	res := &Result{Ingest: tx.Ingest(), Files: []FileResult{}}
	st := &runState{}
	defer st.close()
	files, formats, err := planInputs(files, fixed, opts)
	if err != nil {
		return nil, err
	}
	var srcs []dataset.Source
	seen := seenSources(tx.Dataset().Manifest().Sources)
	for i, path := range files {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if opts.SkipDuplicates {
			fr, dup, err := seen.duplicate(path, formats[i])
			if err != nil {
				return res, err
			}
			if dup {
				res.Files = append(res.Files, fr)
				srcs = append(srcs, dataset.Source{})
				continue
			}
		}
		fr, src, err := ingestFile(ctx, tx, formats[i], path, opts, res, st)
		if err != nil {
			return res, err
		}
		seen.add(src)
		res.Files = append(res.Files, fr)
		srcs = append(srcs, src)
		if opts.Progress != nil {
			opts.Progress(fr)
		}
	}
	// Records held across inputs (google2019-usage sums) are written now;
	// that can reject some and add notes, so the sources are recorded last.
	if err := st.finish(ctx, tx, res, opts); err != nil {
		return res, err
	}
	for i := range srcs {
		fr := &res.Files[i]
		if fr.Skipped {
			continue
		}
		srcs[i].Accepted, srcs[i].Rejected, srcs[i].Notes = fr.Accepted, fr.Rejected, fr.Notes
		tx.AddSource(srcs[i])
	}
	return res, nil
}

func ingestFile(ctx context.Context, tx *dataset.Tx, f *Format, path string, opts Options, res *Result, st *runState) (fr FileResult, src dataset.Source, err error) {
	in, err := Open(path)
	if err != nil {
		return FileResult{}, src, err
	}
	defer in.Close()
	if opts.Watch != nil {
		defer opts.Watch(path, in.Size, in.Progress)()
	}
	// A mapped input that shrinks while it is read faults; that becomes an
	// error for this file instead of a crash, for every format.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if e := recover(); e != nil {
			name := "format detection"
			if f != nil {
				name = f.Name
			}
			fr, err = FileResult{}, recovered(path, name, e, panicSite())
		}
	}()
	if f == nil {
		if f, err = Detect(in); err != nil {
			return FileResult{}, src, err
		}
	}
	s := &sink{tx: tx, format: f.Name, opts: opts, res: res, run: st, file: path, index: len(res.Files)}
	if err := f.ingest(ctx, in, s); err != nil {
		return FileResult{}, src, err
	}
	if dmg := in.Damage(); dmg != nil {
		if err := s.reject(&ParseError{File: path, Line: in.damaged.lines + 1, Err: dmg}); err != nil {
			return FileResult{}, src, err
		}
	}
	sum, err := in.SHA256()
	if err != nil {
		return FileResult{}, src, fmt.Errorf("%s: %w", path, err)
	}
	notes := s.notes
	if in.Compression != "" {
		notes = append([]string{"compression: " + in.Compression}, notes...)
	}
	// Counts and notes go into src at the end of Run, where held records
	// (google2019-usage sums) have been written.
	src = dataset.Source{Path: path, Format: f.Name, Table: f.Table, SizeBytes: in.Size, SHA256: sum}
	return FileResult{Path: path, Format: f.Name, Table: f.Table, Accepted: s.accepted, Rejected: s.rejected, Notes: notes}, src, nil
}

// recovered is the error for a panic recovered while a file was read. A
// memory fault (debug.SetPanicOnFault's runtime error, which has an Addr
// method) means the mapped file shrank under the reader; anything else is
// a bug in the reader: said so, with the code position, and never blamed
// on the file.
func recovered(file, format string, e any, site string) error {
	if _, fault := e.(interface{ Addr() uintptr }); fault {
		return fmt.Errorf("%s: the file changed while it was read (%v)", file, e)
	}
	return fmt.Errorf("%s: internal error in wlprof's %s reader at %s: %v; nothing of this file was ingested. "+
		"This is a bug in wlprof, not in your file: please report it with the file (or leave the file out meanwhile)",
		file, format, site, e)
}

// panicSite is the function and line that panicked, for a deferred
// recover in the panicking goroutine: the first frame past the runtime's
// panic machinery.
func panicSite() string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	inPanic := false
	for {
		fr, more := frames.Next()
		switch {
		case fr.Function == "runtime.gopanic":
			inPanic = true
		case inPanic && !strings.HasPrefix(fr.Function, "runtime."):
			return fmt.Sprintf("%s (%s:%d)", strings.TrimPrefix(fr.Function, "github.com/wlprof/wlprof/"), filepath.Base(fr.File), fr.Line)
		}
		if !more {
			return "an unknown place"
		}
	}
}

// expand turns the arguments into a sorted list of files: a directory
// stands for the non-hidden regular files below it.
func expand(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, errors.New("no input paths")
	}
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if path != p && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// sink collects what a format reads from one input: records into a table,
// rejects into the rejects table, and the counts.
type sink struct {
	tx       *dataset.Tx
	format   string
	opts     Options
	res      *Result
	accepted int64
	rejected int64
	notes    []string
	run      *runState // shared by the inputs of one Run (join tables)
	file     string    // the input's path
	index    int       // the input's FileResult in res.Files
}

// appendErr turns an append refused for a string that is not UTF-8
// (dataset.InvalidUTF8Error) into a reject of the record at line (0 when
// the reader cannot say); any other error is returned as it is.
func (s *sink) appendErr(err error, line int64) error {
	var bad *dataset.InvalidUTF8Error
	if !errors.As(err, &bad) {
		return err
	}
	return s.reject(&ParseError{File: s.file, Line: line, Err: bad,
		Record: recordText([]byte(bad.Column + "=" + bad.Value))})
}

// lineOf is the line (or record number) a reader is at, when it says.
func lineOf(r any) int64 {
	if l, ok := r.(interface{ Line() int64 }); ok {
		return l.Line()
	}
	return 0
}

// reject records one rejected input record and enforces MaxRejects.
func (s *sink) reject(perr *ParseError) error {
	s.rejected++
	s.res.Rejected++
	if len(s.res.Samples) < maxSamples {
		cp := *perr
		s.res.Samples = append(s.res.Samples, &cp)
	}
	// The reject's own strings are escaped: the record is the input's
	// raw bytes, and a reason may quote them.
	err := s.tx.Rejects().Append(&dataset.Reject{
		Ingest: int32(s.tx.Ingest()), File: dataset.EscapeInvalidUTF8(perr.File), Line: perr.Line, Col: int32(perr.Col),
		Format: s.format, Reason: dataset.EscapeInvalidUTF8(perr.Err.Error()), Record: dataset.EscapeInvalidUTF8(perr.Record),
	})
	if err != nil {
		return err
	}
	if s.opts.MaxRejects >= 0 && s.res.Rejected > s.opts.MaxRejects {
		return fmt.Errorf("%w: more than %d (last: %v); the dataset is unchanged (raise --max-rejects, or check the format)",
			ErrTooManyRejects, s.opts.MaxRejects, perr)
	}
	return nil
}

// appender takes the records a format reads: a table's writer, or a stage
// that holds them before writing (googleSums).
type appender[T any] interface {
	Append(*T) error
}

// drain copies every record of r into w and every rejected record into the
// rejects table.
func drain[T any](ctx context.Context, s *sink, r Reader[T], w appender[T]) error {
	if c, ok := r.(interface{ Close() }); ok {
		defer c.Close() // stop a reader's workers when we give up early
	}
	n := 0
	for r.Scan() {
		rec, perr := r.Record()
		if perr != nil {
			if err := s.reject(perr); err != nil {
				return err
			}
			continue
		}
		if err := w.Append(rec); err != nil {
			if err := s.appendErr(err, lineOf(r)); err != nil {
				return err
			}
			continue
		}
		s.accepted++
		s.res.Accepted++
		if n++; n&0xffff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	if nr, ok := r.(Noter); ok {
		s.notes = append(s.notes, nr.Notes()...)
	}
	return r.Err()
}
