package dataset

import "math"

// NoTime marks an unknown instant in the millisecond time fields below; it is
// stored as a Parquet null.
const NoTime int64 = math.MinInt64

// Usage is one raw utilisation sample of one server of one tenant.
type Usage struct {
	Tenant string
	Server string
	TimeMs int64   // UTC instant, milliseconds since the Unix epoch
	CPU    float64 // fraction of one server's CPU, in [0,1]
	Memory float64 // fraction of one server's memory, in [0,1]; NaN when unknown (null)
}

// Series is one tenant's average-server utilisation on a fixed grid.
type Series struct {
	Tenant  string
	StartMs int64     // instant of Values[0]
	StepS   float64   // grid step in seconds
	Values  []float64 // fraction of one server; NaN marks a gap
	Servers int32     // distinct servers averaged into the series
	// ThinTail is how many of the last Values are averages of fewer than
	// half the servers of the series' fullest slot: servers of a tenant
	// stop reporting at slightly different instants, and there the
	// average server is the late servers alone. 0 in files written before
	// the column existed.
	ThinTail int32
}

// Run is one run of a (possibly recurring) job, from a scheduler log.
type Run struct {
	Job      string // recurring job identity (normalised name), or the name itself
	Run      string // run identity, e.g. a YARN application id
	Name     string // name as logged
	User     string
	Queue    string
	Status   string // FINISHED, FAILED, KILLED, RUNNING, ...
	SubmitMs int64  // NoTime when unknown
	StartMs  int64  // NoTime when unknown
	EndMs    int64  // NoTime when unknown (run without an end)
	Source   string // input format the run came from
}

// SkylineSample is the resources one run held at one offset from its start.
type SkylineSample struct {
	Job         string
	Run         string
	OffsetS     float64 // seconds since the run's start
	Containers  float64 // containers held (may be fractional after normalisation)
	MemoryBytes int64   // memory held, bytes; 0 when unknown
	VCores      float64 // virtual cores held; 0 when unknown
}

// Provenance is one file-system or lineage operation: who touched which path when.
type Provenance struct {
	TimeMs      int64
	Op          string // write, rename, read, delete, ...
	Path        string
	Dst         string // destination of a rename, else ""
	User        string
	Job         string // job that performed it, "" when unattributed
	Run         string
	Attribution string // how Job/Run were found: callerContext, trackingId, lineage, user-window, none
	Cmd         string // the command as logged (hdfs-audit cmd=, OpenLineage eventType), for ops "other"/"meta"
}

// ProfRun is one profiling run: a task executed at one memory (or slot) setting.
type ProfRun struct {
	Job          string
	Task         string // map, reduce, stage name, ...
	Framework    string // sandbox, spark, mapreduce, tez
	MemoryBytes  int64  // memory given to the task
	Slots        int32  // tasks run at once on the node
	Repetition   int32
	InputBytes   int64
	RuntimeS     float64
	CPUS         float64
	PeakRSSBytes int64
	ReadBytes    int64
	WriteBytes   int64
	SpilledBytes int64
	ExitCode     int32
	Capped       bool   // a memory cap was enforced (cgroup)
	Host         string // host facts, JSON
	Config       string // framework configuration that matters, JSON object
	Source       string // input file or "profile run"
	// Added for the sandbox profiler; zero in rows from history.
	RunID             string // identifies the run; profsamples rows carry it
	StartMs           int64  // UTC instant the run started; 0 or NoTime when unknown
	Outcome           string // ok, failed, signaled, timeout, oom-killed; Spark task ends also killed, resubmitted
	ReadSyscallBytes  int64  // bytes passed to read-like syscalls (rchar), page cache included
	WriteSyscallBytes int64  // bytes passed to write-like syscalls (wchar)
	SpillPeakBytes    int64  // largest size the spill directory reached, sampled
	PeakThreads       int32  // most threads of the process tree at one sample
	OOMKills          int32  // OOM kills the memory cgroup counted
	CapNote           string // how memory was capped, or why it was not
	// Added for elasticity models; zero when the source does not say.
	MemorySpilledBytes int64 // in-memory (deserialised) size of what was spilled: Spark's memoryBytesSpilled
	SpilledRecords     int64 // records written to local disk by spills and merges: Hadoop's SPILLED_RECORDS
	OutputBytes        int64 // bytes put into the sort buffer: Hadoop's MAP_OUTPUT_BYTES
	OutputRecords      int64 // records put into the sort buffer: Hadoop's MAP_OUTPUT_RECORDS
	InputRecords       int64 // records read: MAP_INPUT_RECORDS, REDUCE_INPUT_RECORDS
	// Added for the elasticity accuracy bar on a shared machine.
	CPUWaitS float64 // time the main thread of each copy was runnable but waiting for a CPU (schedstat run_delay); 0 when not measured
	// A task's share of its container and the container itself, kept
	// apart: a Spark executor runs Slots tasks at once in one container.
	// TaskMemoryBytes is the memory one task has (Spark: the executor's
	// memory / its slots), what a scheduler replaying the task charges it;
	// ContainerMemoryBytes what the resource manager allocated for the
	// container the task ran in (YARN: executor memory + overhead, rounded
	// up to the minimum allocation), what a reservation asks for. 0 when
	// the source does not say (MemoryBytes is then both).
	TaskMemoryBytes      int64
	ContainerMemoryBytes int64
}

// ProfSample is one sample of a profiling run's whole process tree (all
// copies when several run at once). Counters are cumulative since the run's
// start; RSSBytes, Threads, Procs and SpillBytes are levels at the instant.
type ProfSample struct {
	Job         string
	Run         string // ProfRun.RunID
	OffsetS     float64
	CPUS        float64 // CPU seconds, user + system
	RSSBytes    int64   // resident set, summed over the tree
	ReadBytes   int64   // storage-level reads (/proc/PID/io read_bytes)
	WriteBytes  int64   // storage-level writes (/proc/PID/io write_bytes)
	Threads     int32
	Procs       int32
	SpillBytes  int64  // current size of the spill directory
	CgroupBytes int64  // memory charged to the run's cgroups (page cache included); 0 without a cap
	Phase       string // phase named by --phase-regex, "" when none
}

// Reject is an input record that was not ingested, and why. Its JSON
// names are those of wlprof rejects -o json.
type Reject struct {
	Ingest int32  `json:"ingest"` // ingest sequence number (manifest)
	File   string `json:"file"`
	Line   int64  `json:"line"` // 1-based; 0 when the error is not tied to a line
	Col    int32  `json:"col"`  // 1-based; 0 when unknown
	Format string `json:"format"`
	Reason string `json:"reason"`
	Record string `json:"record"` // the offending record, truncated to 256 bytes
}
