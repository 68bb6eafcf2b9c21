package profiler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/bytesize"
)

// CapMode says whether runs are put in a memory cgroup.
type CapMode int

const (
	// CapAuto caps memory where the machine allows and records why not
	// elsewhere, with a warning.
	CapAuto CapMode = iota
	// CapOff never caps.
	CapOff
	// CapRequire fails the sweep when memory cannot be capped.
	CapRequire
)

// ParseCapMode reads "auto", "off" or "require".
func ParseCapMode(s string) (CapMode, error) {
	switch s {
	case "auto":
		return CapAuto, nil
	case "off":
		return CapOff, nil
	case "require":
		return CapRequire, nil
	}
	return 0, fmt.Errorf("cap %q: want auto, off or require", s)
}

// Options configure a sweep. The zero value of every field but Job is a
// documented default.
type Options struct {
	Job  string
	Task string // default "task"

	Mems     []int64       // memory settings in bytes; none: one setting with no memory value and no cap
	Slots    []int         // copies run at once; default {1}
	Repeat   int           // repetitions of each setting; default 3
	Interval time.Duration // sampling interval; default 100 ms
	Timeout  time.Duration // per run; 0: none
	Grace    time.Duration // SIGTERM to SIGKILL after a timeout or interrupt; default 5 s

	SpillDir string // parent of the per-run spill directories; default os.TempDir()
	// Input is the task's input, a file or a directory: {input} in the
	// command is replaced by it, and its size (InputSize) is recorded as
	// InputBytes when that is 0.
	Input string
	// InputBytes is the task's input size, recorded with each run: the
	// elasticity models of the runs are for that input, and carried to
	// other inputs by it (Iorgulescu et al.'s (ATC'17) models scale with the data).
	InputBytes int64
	Cap        CapMode
	// CapOverhead is added to the memory setting to make the cgroup limit:
	// room for the program's code, runtime and page cache beyond the
	// buffers {mem} sizes (as YARN adds overhead to a container's heap).
	// 0: DefaultCapOverhead; NoCapOverhead (any negative value): none, the
	// cap is the setting itself.
	CapOverhead int64
	PhaseRegex  *regexp.Regexp // lines of the command's output that start a phase
	// IOCapacity is the node's disk bandwidth in bytes/s, the capacity I/O
	// shares are fractions of; 0: measured once at the start of the sweep
	// on SpillDir's file system (iocal.go). The host facts of every run
	// record it and whether it was measured or given.
	IOCapacity int64
	// DiskLimit, when above 0, throttles each run's reads and writes on
	// SpillDir's disk to this many bytes per second each way, the copies
	// of a run sharing it (disklimit.go): the disk of the node the profile
	// is for. It needs a cgroup I/O controller (v1 blkio with throttling,
	// or v2 io) and fails the sweep without one. With it and no
	// IOCapacity, the node's I/O capacity is the limit.
	DiskLimit int64

	Env    []string  // environment of the command; nil: the profiler's own
	Dir    string    // working directory; "": the profiler's
	Output io.Writer // receives the command's output lines when set

	// OnRun is called after each finished run (in the order they ran); an
	// error stops the sweep. The command layer commits the run there, so
	// an interrupted sweep keeps every run finished before it.
	OnRun func(*Run) error
	// Warn receives caveats as they arise (also kept in Run.Warnings).
	Warn func(string)
}

// Run is one finished run: one setting, one repetition, Slots copies.
type Run struct {
	Record   dataset.ProfRun
	Samples  []dataset.ProfSample
	Phases   []Phase
	Tail     string // last output lines, for failures
	Warnings []string
}

// Phase is a span of a run named by --phase-regex.
type Phase struct {
	Name   string  `json:"name"`
	StartS float64 `json:"start_s"`
	EndS   float64 `json:"end_s"`
}

// DefaultCapOverhead is the cap's overhead when Options.CapOverhead is 0
// (--cap-overhead's default): 32 MiB. Measured here under cgroup v1 at a 4
// MiB setting, the least overhead that let a run finish was 1 to 4 MiB for
// GNU sort -S, 4 MiB for the Go reference workload (spillsort) and 8 MiB
// for CPython holding a 4 MiB buffer; without any (the old default) each
// was OOM-killed. 32 MiB leaves such programs room at every setting while
// keeping the limit close to the setting, as Iorgulescu et al., ATC'17 §2 wants ("as close
// to the JVM heap size as possible", so that spills reach the disk). A JVM
// needs more for its non-heap memory (YARN and Spark add max(384 MiB, 10%)):
// give --cap-overhead then; a run the cap kills says so.
const DefaultCapOverhead = 32 << 20

// NoCapOverhead as Options.CapOverhead caps a run at its setting exactly.
const NoCapOverhead = -1

// detect finds the cgroup host; tests replace it to play a machine without.
var detect = detectCgroups

// ErrNoCap is returned under CapRequire when memory cannot be capped.
var ErrNoCap = errors.New("profiler: memory cannot be capped on this machine")

// setting is one point of the sweep.
type setting struct {
	mem   int64
	slots int
}

func (o *Options) defaults() {
	if o.Task == "" {
		o.Task = "task"
	}
	if len(o.Slots) == 0 {
		o.Slots = []int{1}
	}
	if o.Repeat <= 0 {
		o.Repeat = 3
	}
	if o.Interval <= 0 {
		o.Interval = 100 * time.Millisecond
	}
	if o.Grace <= 0 {
		o.Grace = 5 * time.Second
	}
	if o.SpillDir == "" {
		o.SpillDir = os.TempDir()
	}
	if o.Env == nil {
		o.Env = os.Environ()
	}
	if o.CapOverhead == 0 {
		o.CapOverhead = DefaultCapOverhead
	}
}

// overhead is the bytes added to a setting to make its cgroup limit.
func (o *Options) overhead() int64 { return max(o.CapOverhead, 0) }

// ParseCapOverhead reads --cap-overhead: a size (bytesize.Parse), or 0 for
// none (NoCapOverhead).
func ParseCapOverhead(s string) (int64, error) {
	if strings.TrimSpace(s) == "0" {
		return NoCapOverhead, nil
	}
	return bytesize.Parse(s)
}

// InputSize is the size of a task's input: a file's size, or the sizes of
// the regular files under a directory, summed (symbolic links are not
// followed below the top).
func InputSize(path string) (int64, error) {
	var n int64
	err := filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == path || d.Type().IsRegular() {
			fi, err := os.Stat(p)
			if err != nil {
				return err
			}
			if fi.Mode().IsRegular() {
				n += fi.Size()
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("input %s: %w", path, err)
	}
	return n, nil
}

// Sweep runs argv once per memory setting, slot setting and repetition.
// Repetitions are the outer loop, so slow drift of the machine (page
// cache, thermal, neighbours) spreads over every setting instead of
// biasing one. It returns the runs it finished; when ctx is cancelled it
// stops the run in progress (SIGTERM, then SIGKILL after Grace), cleans
// up, and returns the finished runs with ctx's error.
func Sweep(ctx context.Context, argv []string, o Options) ([]*Run, error) {
	o.defaults()
	if len(argv) == 0 {
		return nil, errors.New("profiler: no command")
	}
	mems := o.Mems
	if len(mems) == 0 {
		mems = []int64{0}
	}
	// Check every substitution before running anything.
	for _, m := range mems {
		if _, err := (vars{mem: m, slots: 1, input: o.Input}).argv(argv); err != nil {
			return nil, err
		}
	}
	if o.Input != "" && o.InputBytes == 0 {
		n, err := InputSize(o.Input)
		if err != nil {
			return nil, err
		}
		o.InputBytes = n
	}
	if fi, err := os.Stat(o.SpillDir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("profiler: spill directory parent %q is not a directory", o.SpillDir)
	}

	var host *cgroupHost
	capNote := "not capped: no --mem setting"
	if o.Mems != nil && o.Cap != CapOff {
		var why string
		host, why = detect()
		if host == nil {
			capNote = "not capped: " + why
			if o.Cap == CapRequire {
				return nil, fmt.Errorf("%w: %s", ErrNoCap, why)
			}
			warn(&o, nil, "memory is not capped, runs may use more than their setting: "+why)
		} else {
			host.removeStale()
		}
	} else if o.Cap == CapOff {
		capNote = "not capped: --cap off"
	}

	restore, err := becomeSubreaper()
	if err != nil {
		return nil, err
	}
	defer restore()

	var disk *diskLimit
	if o.DiskLimit > 0 {
		ioh, why := detectIO()
		if ioh == nil {
			return nil, fmt.Errorf("%w: %s", ErrNoDiskLimit, why)
		}
		dev, err := blockDevice(o.SpillDir)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNoDiskLimit, err)
		}
		ioh.removeStale()
		disk = &diskLimit{host: ioh, dev: dev, rate: o.DiskLimit}
	}
	capacity := ioCapacity{BytesPerS: float64(o.IOCapacity), Source: "flag", Detail: "given (--io-capacity)"}
	if o.IOCapacity <= 0 && disk != nil {
		capacity = ioCapacity{BytesPerS: float64(o.DiskLimit), Source: "flag", Detail: fmt.Sprintf("the --disk-limit rate on %s (device %s)", o.SpillDir, disk.dev)}
	} else if o.IOCapacity <= 0 {
		var err error
		if capacity, err = measureIOCapacity(o.SpillDir); err != nil {
			warn(&o, nil, fmt.Sprintf("the node's I/O capacity could not be measured (%v): I/O shares will be of the best rate seen; give it with --io-capacity", err))
		}
	}
	facts := hostFacts(host, capacity)
	var runs []*Run
	seq := 0
	for rep := 1; rep <= o.Repeat; rep++ {
		order := mems
		if rep%2 == 0 { // every other pass backwards: see doc.go
			order = slices.Clone(mems)
			slices.Reverse(order)
		}
		for _, m := range order {
			for _, k := range o.Slots {
				seq++
				r, err := runOne(ctx, argv, o, setting{m, k}, rep, host, capNote, facts, disk)
				if err != nil {
					return runs, err
				}
				runs = append(runs, r)
				if o.OnRun != nil {
					if err := o.OnRun(r); err != nil {
						return runs, err
					}
				}
			}
		}
	}
	return runs, nil
}

func warn(o *Options, r *Run, msg string) {
	if r != nil {
		r.Warnings = append(r.Warnings, msg)
	}
	if o.Warn != nil {
		o.Warn(msg)
	}
}

// becomeSubreaper makes the profiler the reaper of processes its runs
// orphan, so they are measured and stopped instead of escaping to init.
func becomeSubreaper() (func(), error) {
	var prev int32
	_, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prGetChildSubreaper, uintptrOf(&prev), 0)
	if e != 0 {
		return nil, fmt.Errorf("profiler: prctl: %w", e)
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		return nil, fmt.Errorf("profiler: prctl: %w", e)
	}
	return func() {
		if prev == 0 {
			syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 0, 0)
		}
	}, nil
}

func uintptrOf(p *int32) uintptr { return uintptr(unsafe.Pointer(p)) }

const (
	prSetChildSubreaper = 36
	prGetChildSubreaper = 37
)

// hostFacts is the JSON the runs keep about the node (hostInfo reads it).
func hostFacts(h *cgroupHost, c ioCapacity) string {
	var u syscall.Utsname
	syscall.Uname(&u)
	rel := make([]byte, 0, len(u.Release))
	for _, c := range u.Release {
		if c == 0 {
			break
		}
		rel = append(rel, byte(c))
	}
	name, _ := os.Hostname()
	cg := ""
	if h != nil {
		cg = fmt.Sprintf("v%d", h.version)
	}
	facts := fmt.Sprintf(`{"hostname":%q,"cpus":%d,"mem_total_bytes":%d,"kernel":%q,"cgroup":%q`,
		name, runtime.NumCPU(), hostMemBytes(), string(rel), cg)
	if c.BytesPerS > 0 {
		facts += fmt.Sprintf(`,"io_capacity_bytes_per_s":%.0f,"io_capacity_source":%q,"io_capacity_detail":%q`, c.BytesPerS, c.Source, c.Detail)
	}
	return facts + "}"
}
