package simulate

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/internal/bytesize"
)

// Job is one job of a workload (a trace, DSS §4): when it is submitted and
// its phases.
type Job struct {
	ID      string
	SubmitS float64
	Phases  []Phase
	// ModelJob is the recurring job whose elasticity models the phases
	// use; "" means ID (a trace's jobs). A workload from the dataset's
	// runs (FromHistory) names each run, and its models are the job's.
	ModelJob string
	// ObservedS is how long the run took in the history it was built
	// from (FromHistory: its last attempt's end − its submission); 0 when
	// unknown or not from history.
	ObservedS float64
}

// Phase is a set of identical tasks of a job: maps, reduces, a Spark
// stage. A phase waits for the phase named by After (reduces start when
// every map of their job has finished); without After it is ready at
// submission.
type Phase struct {
	Task  string
	Tasks int
	// RuntimeS is one task's duration at its ideal memory.
	RuntimeS float64
	// MemoryBytes is one task's ideal memory as the trace gives it; an
	// elasticity model's ideal memory wins over it (Load).
	MemoryBytes int64
	Cores       int
	After       string
	// Model gives the task's runtime below ideal memory; nil when the
	// task is never elastic ("none").
	Model Model
	// ModelSource says where Model came from: "trace" (the model column),
	// "dataset" (the elasticity stage), "default" (--default-model).
	ModelSource string
	// Line is the trace line the phase came from (0 when not from a file).
	Line int
	// modelSet records that the trace's model column named a model
	// ("none" included), which wins over the dataset's.
	modelSet bool
}

// ParseError is a trace line that cannot be simulated: where and why.
type ParseError struct {
	File string
	Line int
	Err  error
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// TraceColumns are the simjobs-csv columns, the required ones first.
var TraceColumns = []string{"job", "submit_s", "task", "tasks", "runtime_s", "memory_bytes", "cores", "after", "model"}

const requiredColumns = 6

// maxTasks bounds one phase's task count: a typo of a few digits should
// be an error, not an hour of simulation.
const maxTasks = 100_000_000

// ReadTraceFile reads a simjobs-csv trace (ReadTrace).
func ReadTraceFile(path string) ([]Job, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadTrace(f, path)
}

// ReadTrace reads a simjobs-csv trace: a header naming the columns
// (job,submit_s,task,tasks,runtime_s,memory_bytes, then optionally cores,
// after and model, in any order), one row per phase, lines starting with
// # are comments. Every problem is reported, each as a *ParseError with
// the file and line, joined (errors.Join); jobs come back ordered by
// submission then id, phases in trace order.
func ReadTrace(r io.Reader, name string) ([]Job, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	var errs []error
	bad := func(line int, format string, a ...any) {
		errs = append(errs, &ParseError{File: name, Line: line, Err: fmt.Errorf(format, a...)})
	}
	header, err := cr.Read()
	if err == io.EOF {
		return nil, &ParseError{File: name, Err: errors.New("empty trace: want a header " + strings.Join(TraceColumns[:requiredColumns], ","))}
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	hl, _ := cr.FieldPos(0)
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		known := false
		for _, c := range TraceColumns {
			known = known || c == h
		}
		switch {
		case !known:
			bad(hl, "unknown column %q (simjobs-csv has %s)", h, strings.Join(TraceColumns, ","))
		case col[h] > 0:
			bad(hl, "column %q given twice", h)
		default:
			col[h] = i + 1
		}
	}
	for _, c := range TraceColumns[:requiredColumns] {
		if col[c] == 0 {
			bad(hl, "no %s column (simjobs-csv: %s[,cores][,after][,model])", c, strings.Join(TraceColumns[:requiredColumns], ","))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	get := func(rec []string, c string) string {
		if i := col[c]; i > 0 && i <= len(rec) {
			return strings.TrimSpace(rec[i-1])
		}
		return ""
	}
	jobs := map[string]*Job{}
	jobLine := map[string]int{}
	var order []string
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if !errors.As(err, &pe) {
				return nil, csvError(name, err) // I/O
			}
			errs = append(errs, csvError(name, err))
			if len(errs) > 100 {
				break
			}
			continue
		}
		line, _ := cr.FieldPos(0)
		if len(rec) > len(header) {
			bad(line, "%d fields, the header has %d", len(rec), len(header))
			continue
		}
		n0 := len(errs)
		p := Phase{Line: line, Cores: 1}
		id := get(rec, "job")
		if id == "" {
			bad(line, "empty job")
		}
		submit, err := strconv.ParseFloat(get(rec, "submit_s"), 64)
		if err != nil || math.IsNaN(submit) || math.IsInf(submit, 0) || submit < 0 {
			bad(line, "submit_s %q: want seconds, 0 or more", get(rec, "submit_s"))
		}
		if p.Task = get(rec, "task"); p.Task == "" {
			bad(line, "empty task")
		}
		n, err := strconv.ParseInt(get(rec, "tasks"), 10, 64)
		if err != nil || n < 1 || n > maxTasks {
			bad(line, "tasks %q: want a whole number from 1 to %d", get(rec, "tasks"), maxTasks)
		}
		p.Tasks = int(n)
		p.RuntimeS, err = strconv.ParseFloat(get(rec, "runtime_s"), 64)
		if err != nil || !(p.RuntimeS > 0) || math.IsInf(p.RuntimeS, 0) {
			bad(line, "runtime_s %q: want a duration in seconds above 0", get(rec, "runtime_s"))
		}
		if p.MemoryBytes, err = bytesize.Parse(get(rec, "memory_bytes")); err != nil {
			bad(line, "memory_bytes %q: want a size above 0 (bytes, or with K, M, G, T)", get(rec, "memory_bytes"))
		}
		if s := get(rec, "cores"); s != "" {
			c, err := strconv.Atoi(s)
			if err != nil || c < 1 || c > 1<<20 {
				bad(line, "cores %q: want a whole number, 1 or more", s)
			}
			p.Cores = c
		}
		p.After = get(rec, "after")
		if s := get(rec, "model"); s != "" {
			m, err := ParseModel(s)
			if err != nil {
				bad(line, "%v", err)
			}
			p.Model, p.ModelSource, p.modelSet = m, "trace", true
		}
		if len(errs) > n0 {
			if len(errs) > 100 {
				break
			}
			continue
		}
		j := jobs[id]
		if j == nil {
			j = &Job{ID: id, SubmitS: submit}
			jobs[id], jobLine[id] = j, line
			order = append(order, id)
		} else if j.SubmitS != submit {
			bad(line, "job %s: submit_s %s, but line %d says %s", id, get(rec, "submit_s"), jobLine[id], strconv.FormatFloat(j.SubmitS, 'g', -1, 64))
			continue
		}
		dup := false
		for _, q := range j.Phases {
			if q.Task == p.Task {
				bad(line, "job %s: task %s given twice (first on line %d)", id, p.Task, q.Line)
				dup = true
			}
		}
		if !dup {
			j.Phases = append(j.Phases, p)
		}
	}
	if len(errs) == 0 && len(order) == 0 {
		errs = append(errs, &ParseError{File: name, Err: errors.New("no jobs: the trace has a header and no rows")})
	}
	out := make([]Job, 0, len(order))
	for _, id := range order {
		j := jobs[id]
		errs = append(errs, checkAfter(name, j)...)
		out = append(out, *j)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	SortJobs(out)
	return out, nil
}

// SortJobs orders jobs by submission, then id: the order that breaks
// every tie in the simulation.
func SortJobs(jobs []Job) {
	sort.SliceStable(jobs, func(a, b int) bool {
		if jobs[a].SubmitS != jobs[b].SubmitS {
			return jobs[a].SubmitS < jobs[b].SubmitS
		}
		return jobs[a].ID < jobs[b].ID
	})
}

// checkAfter reports after names that are no phase of the job, and
// cycles (which would never start).
func checkAfter(file string, j *Job) []error {
	var errs []error
	idx := map[string]int{}
	for i, p := range j.Phases {
		idx[p.Task] = i
	}
	for _, p := range j.Phases {
		if p.After == "" {
			continue
		}
		if p.After == p.Task {
			errs = append(errs, &ParseError{File: file, Line: p.Line, Err: fmt.Errorf("job %s: task %s waits for itself", j.ID, p.Task)})
		} else if _, ok := idx[p.After]; !ok {
			errs = append(errs, &ParseError{File: file, Line: p.Line, Err: fmt.Errorf("job %s: task %s waits for %s, which is no task of the job", j.ID, p.Task, p.After)})
		}
	}
	if len(errs) > 0 {
		return errs
	}
	for _, p := range j.Phases {
		seen := map[string]bool{p.Task: true}
		for q := p; q.After != ""; {
			if seen[q.After] {
				errs = append(errs, &ParseError{File: file, Line: p.Line, Err: fmt.Errorf("job %s: task %s waits for itself through after (a cycle)", j.ID, p.Task)})
				break
			}
			seen[q.After] = true
			q = j.Phases[idx[q.After]]
		}
	}
	return errs
}

func csvError(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ParseError{File: file, Line: pe.Line, Err: pe.Err}
	}
	return fmt.Errorf("%s: %w", file, err)
}

// WriteTrace writes jobs as simjobs-csv (every column; a phase's model as
// its spec when it has one ModelSpec knows, else empty). ReadTrace reads
// it back to the same jobs.
func WriteTrace(w io.Writer, jobs []Job) error {
	cw := csv.NewWriter(w)
	_ = cw.Write(TraceColumns)
	for _, j := range jobs {
		for _, p := range j.Phases {
			spec := ""
			if p.modelSet || p.Model != nil {
				spec = ModelSpec(p.Model)
			}
			_ = cw.Write([]string{j.ID, strconv.FormatFloat(j.SubmitS, 'g', -1, 64), p.Task, strconv.Itoa(p.Tasks),
				strconv.FormatFloat(p.RuntimeS, 'g', -1, 64), strconv.FormatInt(p.MemoryBytes, 10), strconv.Itoa(p.Cores), p.After, spec})
		}
	}
	cw.Flush()
	return cw.Error()
}
