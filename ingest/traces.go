package ingest

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// runState is what the inputs of one Run share: the VM table that azure-cpu
// readings join with, filled by azure-vmtable inputs read before them.
type runState struct {
	vms      *vmIndex
	colls    *collIndex
	machines *machineIndex  // machine histories, for the machine-event formats
	sums     *googleSums    // google2019-usage rows, written when the Run ends
	sums2011 *googleSums    // google2011-task-usage rows, likewise
	lineage  *olLineage     // outputs of OpenLineage runs, merged across their events
	attempts *sparkAttempts // Spark application attempts, one run each application
}

// tenantKeys lists, per format, the values --tenant-key accepts; the first
// is the default.
var tenantKeys = map[string][]string{
	googleUsageFormat:  {"collection", "machine", "user"},
	azureCPUFormat:     {"subscription", "deployment", "vm"},
	alibabaMachineName: {"cluster", "machine"},
}

// TenantKeys returns every --tenant-key value some format accepts, sorted.
func TenantKeys() []string {
	seen := map[string]bool{}
	var out []string
	for _, keys := range tenantKeys {
		for _, k := range keys {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// tenantKey returns the key format uses under opts, and a note when the
// asked key does not apply to it (a mixed "auto" ingest may name a key
// meant for another format).
func tenantKey(format string, opts Options) (key, note string) {
	keys := tenantKeys[format]
	if opts.TenantKey == "" {
		return keys[0], ""
	}
	for _, k := range keys {
		if k == opts.TenantKey {
			return k, ""
		}
	}
	return keys[0], fmt.Sprintf("--tenant-key %s does not apply to %s (keys: %s); tenant = %s",
		opts.TenantKey, format, strings.Join(keys, ", "), keys[0])
}

// traceStartMs is the instant of offset 0 of a trace-relative clock: the
// option when set, else the format's default.
func traceStartMs(opts Options, def time.Time) int64 {
	if !opts.TraceStart.IsZero() {
		return opts.TraceStart.UnixMilli()
	}
	return def.UnixMilli()
}

// unixEpoch is the default start of traces whose real start date is not
// published (Azure, Alibaba): offset s lands at 1970-01-01T00:00:00Z + s.
var unixEpoch = time.Unix(0, 0).UTC()

// baseName is a file's name without directories, compression suffix and
// extension: the tenant of a single-series file.
func baseName(path string) string {
	b := filepath.Base(path)
	for _, z := range []string{".gz", ".zst", ".zstd"} {
		b = strings.TrimSuffix(b, z)
	}
	if e := filepath.Ext(b); e != "" && e != b {
		b = strings.TrimSuffix(b, e)
	}
	return b
}

// lineRecords is a Reader over a line-oriented input whose lines each give
// one record (or one reject) through parse. An optional header line is
// skipped when header says so.
type lineRecords[T any] struct {
	file   string
	lr     lineReader
	parse  func(line []byte, lineNo int64, rec *T) *ParseError
	header func(line []byte) bool // the first non-blank line is a header
	seen   bool                   // a non-blank line was read
	rec    T
	perr   *ParseError
	err    error
}

func newLineRecords[T any](in *Input, parse func([]byte, int64, *T) *ParseError) *lineRecords[T] {
	return &lineRecords[T]{file: in.Path, lr: newLineReader(in), parse: parse}
}

func (r *lineRecords[T]) Scan() bool {
	for {
		line, err := r.lr.next()
		if err == io.EOF {
			return false
		}
		if err == errLineTooLong {
			r.perr = &ParseError{File: r.file, Line: r.lr.line, Err: err, Record: recordText(line)}
			return true
		}
		if err != nil {
			r.err = fmt.Errorf("%s: %w", r.file, err)
			return false
		}
		if len(line) == 0 {
			continue
		}
		first := !r.seen
		r.seen = true
		if first && r.header != nil && r.header(line) {
			continue
		}
		r.perr = r.parse(line, r.lr.line, &r.rec)
		return true
	}
}

// Line is where the reader is: the current record's line (or row).
func (r *lineRecords[T]) Line() int64 { return r.lr.line }

func (r *lineRecords[T]) Record() (*T, *ParseError) {
	if r.perr != nil {
		return nil, r.perr
	}
	return &r.rec, nil
}

func (r *lineRecords[T]) Err() error { return r.err }

// lastTime remembers each server's previous sample (by its strtab id) so
// that a sample repeating it (same server, same instant) is rejected as a
// duplicate. Traces are written in time order, so a repeat is almost always
// adjacent; out-of-order repeats are left to the series builder.
type lastTime struct {
	ms  []int64
	set []bool
}

func (l *lastTime) repeat(id int32, ms int64) bool {
	for int(id) >= len(l.ms) {
		l.ms = append(l.ms, 0)
		l.set = append(l.set, false)
	}
	if l.set[id] && l.ms[id] == ms {
		return true
	}
	l.ms[id], l.set[id] = ms, true
	return false
}

// timeUTC is an instant in ms as a UTC time.
func timeUTC(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// detectAll detects the format of every file up front, so that a failure
// comes before any work and join tables can be ordered first.
func detectAll(files []string) ([]*Format, error) {
	out := make([]*Format, len(files))
	for i, path := range files {
		in, err := Open(path)
		if err != nil {
			return nil, err
		}
		out[i], err = Detect(in)
		in.Close()
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// joinTablesFirst moves inputs that other inputs join with (Azure vmtables,
// Google collection_events) before the rest, keeping the order within each group, so that "auto" on
// a folder joins readings with the vmtable beside them whatever the names.
func joinTablesFirst(files []string, formats []*Format) ([]string, []*Format) {
	idx := make([]int, len(files))
	for i := range idx {
		idx[i] = i
	}
	join := func(f *Format) bool {
		return f.Table == dataset.VMsTable.Name || f.Table == dataset.CollectionsTable.Name
	}
	sort.SliceStable(idx, func(a, b int) bool { return join(formats[idx[a]]) && !join(formats[idx[b]]) })
	f2, t2 := make([]string, len(files)), make([]*Format, len(files))
	for k, i := range idx {
		f2[k], t2[k] = files[i], formats[i]
	}
	return f2, t2
}

// planInputs gives each input its format (detected when fixed is nil) and
// puts the join tables first: the --collection-events and --vmtable files,
// then, with "auto", the inputs detected as join tables.
func planInputs(files []string, fixed *Format, opts Options) ([]string, []*Format, error) {
	formats := make([]*Format, len(files))
	for i := range formats {
		formats[i] = fixed
	}
	if fixed == nil {
		var err error
		if formats, err = detectAll(files); err != nil {
			return nil, nil, err
		}
		files, formats = joinTablesFirst(files, formats)
	}
	for _, jt := range []struct {
		paths  []string
		format string
	}{{opts.VMTables, azureVMTableFormat}, {opts.CollectionEvents, googleCollectionsFormat}} {
		if len(jt.paths) == 0 {
			continue
		}
		vt, err := expand(jt.paths)
		if err != nil {
			return nil, nil, err
		}
		files = append(vt, files...)
		formats = append(make([]*Format, len(vt)), formats...)
		for i := range vt {
			formats[i] = registry[jt.format]
		}
	}
	return files, formats, nil
}

// msText writes an instant for notes.
func msText(ms int64) string {
	return timeUTC(ms).Format("2006-01-02T15:04:05Z07:00")
}
