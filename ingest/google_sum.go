package ingest

import (
	"bufio"
	"cmp"
	"container/heap"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

// Summing instance rows (google2019-usage).
//
// instance_usage has one row per instance and measurement window; the
// usage table has one row per tenant, server and time, because the series
// builder averages the samples of one server in one slot: several
// instances of a tenant on a machine must reach it as their sum, which is
// the tenant's use of that machine. The time is an aligned 5-minute window
// [k·300 s, (k+1)·300 s) of the trace clock, as in Google's analysis colab
// (query_machine_usage groups by FLOOR(start_time / 300 s)): an instance
// that starts or stops inside a window has a shorter row whose start_time
// is not on the grid, and keyed by its own start_time it would be a
// separate sample that the series builder averages with the window's sum
// instead of adding to it.
//
// A window's sum is the machine's (tenant's) time-weighted average usage
// over the window, so each row adds to each aligned window its
// [start_time, end_time) overlaps its average_usage × overlap / 300 s: a
// full aligned row its value unchanged (bit for bit; we multiply only when
// the overlap is not the whole window), a partial row its average × its
// duration / 300 s, a row that crosses a boundary (or is longer than 300
// s) a share in each window. A row without end_time stands for the whole
// aligned window that holds its start_time. The colab instead drops
// partial rows (end_time − start_time < 300 s), which loses the usage of
// every instance in the windows where it starts or stops; weighting keeps
// it. The rows of one window are anywhere in a file and in any shard, so
// every google2019-usage input of a Run feeds one googleSums, which writes
// the usage rows when the Run ends (runState.finish), sorted by tenant,
// server and time (string order), so that the table does not depend on
// the order of rows or inputs.
//
// Memory: a row's share of one window is held in 80 bytes, plus a 24-byte
// sort key while the rows are sorted. Past Options.sumRows of them
// (default googleSumRows, 20 MiB: small enough that, with Run's GOGC of
// 400, peak RSS stays near what the rest of the ingest takes) they are
// sorted and appended as one run to a temporary file (73 bytes each;
// unlinked at once where the system allows, so nothing is left behind).
// The end merges the runs with what is left in memory, reading each run
// through its own buffer (32 MiB in all, at most 64 KiB a run). One file
// holds every run, so a trace of any size needs one file descriptor.
// Memory is thus bounded whatever the trace size; disk is 73 bytes for
// each share spilled. A real trace's rows are almost all one aligned
// window each, so shares and rows are nearly the same count.
//
// Measured on 2 shared cores, wlprof ingest of a 3.1 GB JSON file of 3 M
// rows (11 runs, 168 MB spilled), against the same ingest without
// summing: 0.4 to 1.4 s more on about 10 s when no two rows share a group
// (3 M usage rows written either way), no slower when every group has two
// rows (half the rows to write); peak RSS 250-320 MB against 280 MB. That
// was with 64-byte rows keyed by start_time; the aligned, weighted shares
// (80 bytes, a span computed where an instance's rows tie) measured close
// to it in BenchmarkGoogleUsageIngest (50,000 rows, 17 interleaved runs of
// each build on 2 shared cores: medians +5% JSON, +5% to +7% Parquet with
// and without spilling; best runs -1% to +2%).

// googleSumRows is the default number of shares held before a spill.
const googleSumRows = 1 << 18

// gsRow is one accepted instance row's share of one aligned window, as
// held until the end of a Run. It keeps the row's own values (unweighted)
// and times, from which the share (gsRow.share) and the rejects' text are
// computed.
type gsRow struct {
	win                  int64   // the window's start, µs of the trace clock
	start                int64   // start_time, µs
	cpu, mem             float64 // average_usage; mem NaN when absent
	collection, instance int64
	line                 int64
	tenant, server       int32  // ids in googleSums' tables
	src                  int32  // index in googleSums.inputs
	dur                  uint32 // end_time − start_time, µs; 0 when end_time is absent
	ident                bool   // collection and instance identify the instance
}

const gsRowBytes = 7*8 + 4*4 + 1

func (r *gsRow) encode(b []byte) {
	le := binary.LittleEndian
	le.PutUint64(b[0:], uint64(r.win))
	le.PutUint64(b[8:], uint64(r.start))
	le.PutUint64(b[16:], math.Float64bits(r.cpu))
	le.PutUint64(b[24:], math.Float64bits(r.mem))
	le.PutUint64(b[32:], uint64(r.collection))
	le.PutUint64(b[40:], uint64(r.instance))
	le.PutUint64(b[48:], uint64(r.line))
	le.PutUint32(b[56:], uint32(r.tenant))
	le.PutUint32(b[60:], uint32(r.server))
	le.PutUint32(b[64:], uint32(r.src))
	le.PutUint32(b[68:], r.dur)
	b[72] = 0
	if r.ident {
		b[72] = 1
	}
}

func (r *gsRow) decode(b []byte) {
	le := binary.LittleEndian
	r.win = int64(le.Uint64(b[0:]))
	r.start = int64(le.Uint64(b[8:]))
	r.cpu = math.Float64frombits(le.Uint64(b[16:]))
	r.mem = math.Float64frombits(le.Uint64(b[24:]))
	r.collection = int64(le.Uint64(b[32:]))
	r.instance = int64(le.Uint64(b[40:]))
	r.line = int64(le.Uint64(b[48:]))
	r.tenant = int32(le.Uint32(b[56:]))
	r.server = int32(le.Uint32(b[60:]))
	r.src = int32(le.Uint32(b[64:]))
	r.dur = le.Uint32(b[68:])
	r.ident = b[72] == 1
}

// span is the time the row covers, [s, e) in µs of the trace clock: its
// own [start_time, end_time), or without end_time the aligned window that
// holds start_time (start_time is positive, so % floors).
func (r *gsRow) span() (s, e int64) {
	if r.dur == 0 {
		s = r.start - r.start%googleWindowUs
		return s, s + googleWindowUs
	}
	return r.start, r.start + int64(r.dur)
}

// share is what a row's value v adds to its window: v when the row covers
// the whole window, else v × overlap / 300 s (the time-weighted part of
// the window's average). A null memory (NaN) stays null.
func (r *gsRow) share(v float64) float64 {
	s, e := r.span()
	o := min(e, r.win+googleWindowUs) - max(s, r.win)
	if o == googleWindowUs {
		return v
	}
	return v * float64(o) / googleWindowUs
}

// googleSums holds the instance rows of a Run's google2019-usage inputs.
type googleSums struct {
	format           string // the inputs' format: google2019-usage, google2011-task-usage
	tenants, servers *strtab.Table
	startMs          int64 // where the trace window starts (googleWindowMs)
	inputs           []gsInput
	buf              []gsRow
	keys             []gsKey // sortBuf's, kept between spills
	maxRows          int
	spill            *os.File // the runs spilled, one after another
	runs             []gsSpan // where each run is in spill
	spilled          int64    // shares in runs
	rows             int64    // instance rows added
	viaAlloc         int64    // rows inside alloc sets, not summed (googleRows.record)
}

// gsSpan is one sorted run of a spill file: n rows from row off.
type gsSpan struct{ off, n int64 }

// gsInput is one google2019-usage input of the Run.
type gsInput struct {
	path  string
	index int // its FileResult in Result.Files
}

// googleSums returns the Run's accumulator, creating it on first use.
func (st *runState) googleSums(opts Options) *googleSums {
	if st.sums == nil {
		n := opts.sumRows
		if n <= 0 {
			n = googleSumRows
		}
		st.sums = &googleSums{format: googleUsageFormat, tenants: strtab.New(), servers: strtab.New(), maxRows: n,
			startMs: traceStartMs(opts, googleTraceStart)}
	}
	return st.sums
}

// finish writes what the Run's inputs left pending.
func (st *runState) finish(ctx context.Context, tx *dataset.Tx, res *Result, opts Options) error {
	if st.attempts != nil {
		if err := st.attempts.flush(ctx, tx, res); err != nil {
			return err
		}
	}
	st.lineage.finish(res)
	if st.sums2011 != nil {
		if err := st.sums2011.flush(ctx, tx, res, opts); err != nil {
			return err
		}
	}
	if st.sums == nil {
		return nil
	}
	return st.sums.flush(ctx, tx, res, opts)
}

func (st *runState) close() {
	if st.sums != nil {
		st.sums.close()
	}
	if st.sums2011 != nil {
		st.sums2011.close()
	}
}

// input registers an input whose rows go to the returned appender.
func (g *googleSums) input(path string, index int) *gsAppender {
	g.inputs = append(g.inputs, gsInput{path: path, index: index})
	return &gsAppender{g: g, src: int32(len(g.inputs) - 1)}
}

type gsAppender struct {
	g   *googleSums
	src int32
}

// Append holds the row's share of each aligned window it overlaps (one for
// almost every row; at most 13 for the hour googleRows.record allows).
func (a *gsAppender) Append(s *googleSample) error {
	g := a.g
	if s.viaAlloc {
		g.viaAlloc++
		return nil
	}
	g.rows++
	r := gsRow{start: s.start, dur: s.dur, cpu: s.CPU, mem: s.Memory, collection: s.collection, instance: s.instance,
		line: s.line, tenant: s.tenant, server: s.server, src: a.src, ident: s.ident}
	st, en := r.span()
	for r.win = st - st%googleWindowUs; r.win < en; r.win += googleWindowUs {
		if err := g.hold(&r); err != nil {
			return err
		}
	}
	return nil
}

func (g *googleSums) hold(r *gsRow) error {
	if len(g.buf) == cap(g.buf) {
		if len(g.buf) >= g.maxRows {
			if err := g.spillBuf(); err != nil {
				return err
			}
		} else {
			// Grow by doubling, to exactly maxRows at most (append
			// would round up past it).
			nb := make([]gsRow, len(g.buf), min(max(2*len(g.buf), 1024), g.maxRows))
			copy(nb, g.buf)
			g.buf = nb
		}
	}
	g.buf = append(g.buf, *r)
	return nil
}

// compare orders shares by tenant, server and window (tr and sr rank the
// ids in string order), then, within one window, those that identify
// their instance first and by instance, each instance's by the time they
// cover (start, then end), so that the overlap check in flush sees an
// instance's rows in time order, a row that began in an earlier window
// first; then by value, so that a group is summed in the same order
// whatever the input order (floating-point addition is not associative).
// Input and line only break ties between equal rows.
func (r *gsRow) compare(o *gsRow, tr, sr []int32) int {
	if c := cmp.Compare(tr[r.tenant], tr[o.tenant]); c != 0 {
		return c
	}
	if c := cmp.Compare(sr[r.server], sr[o.server]); c != 0 {
		return c
	}
	if c := cmp.Compare(r.win, o.win); c != 0 {
		return c
	}
	if r.ident != o.ident {
		if r.ident {
			return -1
		}
		return 1
	}
	if c := cmp.Compare(r.collection, o.collection); c != 0 {
		return c
	}
	if c := cmp.Compare(r.instance, o.instance); c != 0 {
		return c
	}
	rs, re := r.span()
	ps, pe := o.span()
	if c := cmp.Compare(rs, ps); c != 0 {
		return c
	}
	if c := cmp.Compare(re, pe); c != 0 {
		return c
	}
	if c := cmp.Compare(r.cpu, o.cpu); c != 0 {
		return c
	}
	if c := cmp.Compare(r.mem, o.mem); c != 0 { // NaN (null) first
		return c
	}
	if c := cmp.Compare(r.start, o.start); c != 0 { // rows without end_time
		return c
	}
	if c := cmp.Compare(r.src, o.src); c != 0 {
		return c
	}
	return cmp.Compare(r.line, o.line)
}

func sameGroup(a, b *gsRow) bool {
	return a.tenant == b.tenant && a.server == b.server && a.win == b.win
}

// stringRanks returns rank[id], the position of strs[id] in string order
// among the ids for which use is true (every id when use is nil); other
// entries are 0. Ranks of a subset keep the order of the whole, so runs
// sorted with them merge with ranks of the whole.
func stringRanks(strs []string, use []bool) []int32 {
	ids := make([]int32, 0, len(strs))
	for id := range strs {
		if use == nil || use[id] {
			ids = append(ids, int32(id))
		}
	}
	slices.SortFunc(ids, func(a, b int32) int { return strings.Compare(strs[a], strs[b]) })
	rank := make([]int32, len(strs))
	for i, id := range ids {
		rank[id] = int32(i)
	}
	return rank
}

// sortBuf sorts the rows in memory; all says whether to rank every string
// (the final run) or only those the rows use (a spill).
func (g *googleSums) sortBuf(all bool) (tr, sr []int32) {
	ts, ss := g.tenants.Strings(), g.servers.Strings()
	if all {
		tr, sr = stringRanks(ts, nil), stringRanks(ss, nil)
	} else {
		ut, us := make([]bool, len(ts)), make([]bool, len(ss))
		for i := range g.buf {
			ut[g.buf[i].tenant], us[g.buf[i].server] = true, true
		}
		tr, sr = stringRanks(ts, ut), stringRanks(ss, us)
	}
	// Sort small keys (the ranks and the window decide almost every
	// comparison) rather than the 80-byte rows, then move each row once.
	keys := slices.Grow(g.keys[:0], len(g.buf))[:len(g.buf)]
	for i := range g.buf {
		r := &g.buf[i]
		keys[i] = gsKey{uint64(tr[r.tenant])<<32 | uint64(sr[r.server]), r.win, int32(i)}
	}
	slices.SortFunc(keys, func(a, b gsKey) int {
		if a.ts != b.ts {
			return cmp.Compare(a.ts, b.ts)
		}
		if a.time != b.time {
			return cmp.Compare(a.time, b.time)
		}
		return g.buf[a.i].compare(&g.buf[b.i], tr, sr)
	})
	permute(g.buf, keys)
	g.keys = keys
	return tr, sr
}

// gsKey is a row's place in the sort: its tenant and server ranks packed,
// its window, its index.
type gsKey struct {
	ts   uint64
	time int64
	i    int32
}

// permute puts rows in the order of keys (rows[k] = old rows[keys[k].i])
// in place, following each cycle once; it uses keys[k].i as a mark.
func permute(rows []gsRow, keys []gsKey) {
	for start := range keys {
		if keys[start].i < 0 {
			continue
		}
		tmp := rows[start]
		k := start
		for {
			src := int(keys[k].i)
			keys[k].i = -1
			if src == start {
				rows[k] = tmp
				break
			}
			rows[k] = rows[src]
			k = src
		}
	}
}

// spillBuf sorts the rows held and appends them to the spill file as one
// run.
func (g *googleSums) spillBuf() error {
	g.sortBuf(false)
	if g.spill == nil {
		f, err := os.CreateTemp("", "wlprof-google-sums-*")
		if err != nil {
			return fmt.Errorf("%s: spilling rows to sum: %w", g.format, err)
		}
		g.spill = f
		os.Remove(f.Name()) // the open file stays readable; nothing is left behind on a crash
	}
	w := bufio.NewWriterSize(g.spill, 1<<16)
	var b [gsRowBytes]byte
	for i := range g.buf {
		g.buf[i].encode(b[:])
		w.Write(b[:])
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("%s: spilling rows to sum: %w", g.format, err)
	}
	g.runs = append(g.runs, gsSpan{off: g.spilled, n: int64(len(g.buf))})
	g.spilled += int64(len(g.buf))
	g.buf = g.buf[:0]
	return nil
}

func (g *googleSums) close() {
	if g.spill != nil {
		g.spill.Close()
		os.Remove(g.spill.Name())
	}
	g.spill, g.runs, g.buf, g.keys = nil, nil, nil, nil
}

// gsRun is one sorted run being merged: the rows in memory or a spill.
type gsRun struct {
	mem []gsRow
	r   *bufio.Reader
	cur gsRow
	b   [gsRowBytes]byte
}

func (c *gsRun) next() (bool, error) {
	if c.r == nil {
		if len(c.mem) == 0 {
			return false, nil
		}
		c.cur, c.mem = c.mem[0], c.mem[1:]
		return true, nil
	}
	if _, err := io.ReadFull(c.r, c.b[:]); err != nil {
		if err == io.EOF {
			return false, nil
		}
		return false, fmt.Errorf("reading back spilled rows to sum: %w", err)
	}
	c.cur.decode(c.b[:])
	return true, nil
}

// gsHeap merges runs by gsRow.compare.
type gsHeap struct {
	runs   []*gsRun
	tr, sr []int32
}

func (h *gsHeap) Len() int           { return len(h.runs) }
func (h *gsHeap) Less(i, j int) bool { return h.runs[i].cur.compare(&h.runs[j].cur, h.tr, h.sr) < 0 }
func (h *gsHeap) Swap(i, j int)      { h.runs[i], h.runs[j] = h.runs[j], h.runs[i] }
func (h *gsHeap) Push(x any)         { h.runs = append(h.runs, x.(*gsRun)) }
func (h *gsHeap) Pop() any {
	x := h.runs[len(h.runs)-1]
	h.runs = h.runs[:len(h.runs)-1]
	return x
}

// flush merges every share held, sums each group of one tenant, server and
// window, writes one usage row per group and rejects repeated instance
// rows.
//
// The rule: every instance row was checked on its own (cpu and memory in
// [0, 1]); a group's cpu is the sum of its shares of cpu (gsRow.share),
// its memory the sum of the shares of memory present (null when no row
// has one). A sum above 1 is stored as 1 and counted in the notes: 1 NCU
// (NMU) is the largest machine of the cell, so no machine's instances can
// use more, and more means rows that overlap; storing it as is would put a
// value the dataset does not allow (fractions of a server in [0, 1]) where
// the series builder drops it.
//
// Duplicates: one instance (collection_id and instance_index) may have
// several rows in one window, when they do not overlap in time (it
// stopped and started again: [0, 120 s) and [120 s, 300 s)). A row that
// overlaps an earlier row of the same instance on the same machine is not
// more usage but the same time measured again (an input given twice, a
// shard and its compressed copy, or a bad row): it is rejected as a
// duplicate. "Earlier" is the order above (start, end, then the smaller
// cpu; for equal rows the earlier input), and a row is judged once, in
// its first window: its shares in later windows follow that judgement, so
// a row is kept or rejected whole. This is consistent because an
// instance's shares in a window come in time order, those of rows begun
// in earlier windows (already judged) first: a kept row that overlaps a
// row's start has a share in that row's first window, before it. Rows
// without instance_index cannot be told apart and are summed.
func (g *googleSums) flush(ctx context.Context, tx *dataset.Tx, res *Result, opts Options) error {
	defer g.close()
	tr, sr := g.sortBuf(true)
	h := &gsHeap{tr: tr, sr: sr}
	g.keys = nil
	runs := []*gsRun{{mem: g.buf}}
	if len(g.runs) > 0 {
		size := min(max((32<<20)/len(g.runs), 4096), 1<<16)
		for _, sp := range g.runs {
			sec := io.NewSectionReader(g.spill, sp.off*gsRowBytes, sp.n*gsRowBytes)
			runs = append(runs, &gsRun{r: bufio.NewReaderSize(sec, size)})
		}
	}
	for _, r := range runs {
		ok, err := r.next()
		if err != nil {
			return err
		}
		if ok {
			h.runs = append(h.runs, r)
		}
	}
	heap.Init(h)

	w := tx.Usage()
	ts, ss := g.tenants.Strings(), g.servers.Strings()
	var (
		open             bool  // a group is being summed
		first            gsRow // its first share: tenant, server, window
		cpu, mem         float64
		parts            int
		inst             gsRow // the instance being read in the group
		instOpen         bool
		keptEnd          int64 // the latest end of inst's kept rows seen in the group
		keptBy           gsRow // the kept row that ends there
		out, multi, dups int64
		weighted         int64
		overCPU, overMem int64
		maxCPU, maxMem   float64
		u                dataset.Usage
	)
	// dropped holds the rejected rows (input, line) that have shares in
	// windows still to come; a row leaves it at its last share.
	dropped := map[[2]int64]bool{}
	emit := func() error {
		if parts == 0 { // every share of the group was a rejected row's
			return nil
		}
		if cpu > 1 {
			overCPU++
			maxCPU = max(maxCPU, cpu)
			cpu = 1
		}
		if mem > 1 {
			overMem++
			maxMem = max(maxMem, mem)
			mem = 1
		}
		if parts > 1 {
			multi++
		}
		out++
		u = dataset.Usage{Tenant: ts[first.tenant], Server: ss[first.server], TimeMs: googleWindowMs(g.startMs, first.win), CPU: cpu, Memory: mem}
		return w.Append(&u)
	}
	for n := 0; h.Len() > 0; n++ {
		if n&0xffff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		top := h.runs[0]
		r := top.cur
		ok, err := top.next()
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(h, 0)
		} else {
			heap.Pop(h)
		}
		if !open || !sameGroup(&r, &first) {
			if err := emit(); err != nil {
				return err
			}
			// cpu from 0 (0 + v is v, bit for bit); memory from null.
			open, first, cpu, mem, parts, instOpen = true, r, 0, math.NaN(), 0, false
		}
		s, e := r.span()
		head := s >= r.win // the row's first window
		if r.ident {
			if !instOpen || r.collection != inst.collection || r.instance != inst.instance {
				inst, instOpen, keptEnd = r, true, math.MinInt64
			}
			id := [2]int64{int64(r.src), r.line}
			switch {
			case !head && dropped[id]:
				if e <= r.win+googleWindowUs {
					delete(dropped, id)
				}
				continue
			case head && s < keptEnd:
				if err := g.reject(tx, res, opts, &r, &keptBy, ss[r.server]); err != nil {
					return err
				}
				dups++
				if e > r.win+googleWindowUs {
					dropped[id] = true
				}
				continue
			}
			if e > keptEnd {
				keptEnd, keptBy = e, r
			}
		}
		if head && (s != r.win || e-s != googleWindowUs) {
			weighted++
		}
		cpu += r.share(r.cpu)
		mem = addMemory(mem, r.share(r.mem))
		parts++
	}
	if err := emit(); err != nil {
		return err
	}

	if len(g.inputs) == 0 {
		return nil
	}
	notes := []string{fmt.Sprintf("%d instance rows of %d %s input(s) summed into %d usage rows, one per tenant, machine and aligned 5-minute window "+
		"(%d of them the sum of two or more rows)", g.rows-dups, len(g.inputs), g.format, out, multi)}
	if weighted > 0 {
		notes = append(notes, fmt.Sprintf("%d of those rows cover part of a window or more than one (an instance that started or stopped inside it, "+
			"or a row across a window boundary): each window got the row's average times the part of its 300 s the row covers; "+
			"partial windows are kept, not dropped as in Google's analysis colab", weighted))
	}
	if g.viaAlloc > 0 {
		notes = append(notes, fmt.Sprintf("%d instance rows inside alloc sets (alloc_collection_id set) counted through their alloc instance: "+
			"with --tenant-key machine only top-level instances are summed, as in Google's analysis colab, "+
			"so that a task's usage is not added beside that of the alloc instance it runs in", g.viaAlloc))
	}
	if overCPU > 0 {
		notes = append(notes, fmt.Sprintf("%d cpu sums above 1 NCU (largest %.6g) stored as 1: no machine has more than 1 NCU, so their rows overlap", overCPU, maxCPU))
	}
	if overMem > 0 {
		notes = append(notes, fmt.Sprintf("%d memory sums above 1 NMU (largest %.6g) stored as 1: no machine has more than 1 NMU, so their rows overlap", overMem, maxMem))
	}
	if len(g.runs) > 0 {
		notes = append(notes, fmt.Sprintf("%d window shares of rows were held on temporary disk, in %d sorted run(s) of at most %d (%d MB), to sum them",
			g.spilled, len(g.runs), g.maxRows, (g.spilled*gsRowBytes+(1<<20)-1)>>20))
	}
	last := &res.Files[g.inputs[len(g.inputs)-1].index]
	last.Notes = append(last.Notes, notes...)
	return nil
}

// addMemory sums two memory values, null (NaN) standing for nothing.
func addMemory(a, b float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return a + b
}

// reject records r, a row that overlaps kept's (the same instance), as a
// rejected record of its input: the input's accepted count goes down by
// one. The record shows the row as read, not its share of the window.
func (g *googleSums) reject(tx *dataset.Tx, res *Result, opts Options, r, kept *gsRow, machine string) error {
	in, by := g.inputs[r.src], g.inputs[kept.src]
	s := &sink{tx: tx, format: g.format, opts: opts, res: res, file: in.path, index: in.index}
	mem, end := "null", "null"
	if !math.IsNaN(r.mem) {
		mem = fmt.Sprint(r.mem)
	}
	if r.dur != 0 {
		end = strconv.FormatInt(r.start+int64(r.dur), 10)
	}
	perr := &ParseError{File: in.path, Line: r.line,
		Err: fmt.Errorf("duplicate: instance %d of collection %d already has a row for machine %s that overlaps this one in time (%s:%d)",
			r.instance, r.collection, machine, by.path, kept.line),
		Record: fmt.Sprintf("collection_id=%d instance_index=%d machine_id=%s start_time=%d end_time=%s average_usage.cpus=%v average_usage.memory=%s",
			r.collection, r.instance, machine, r.start, end, r.cpu, mem)}
	fr := &res.Files[in.index]
	fr.Accepted--
	fr.Rejected++
	res.Accepted--
	return s.reject(perr)
}
