package ingest

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/wlprof/wlprof/dataset"
)

const (
	// parallelMinBytes: smaller mapped inputs are parsed on one goroutine.
	parallelMinBytes = 8 << 20
	// chunkBytes is the work unit of a parallel parse, cut at a newline.
	chunkBytes = 2 << 20
)

// parallelCSV parses a mapped CSV input in chunks on GOMAXPROCS workers and
// hands records to Scan in input order. Each worker has its own parser (and
// string tables); line numbers are chunk-relative until the consumer, which
// knows how many lines came before, adds the base.
type parallelCSV struct {
	in     *Input // hashed chunk by chunk as chunks are cut (Input.hashTo)
	data   []byte
	next   int         // offset of the next chunk to cut
	queue  []*csvChunk // cut and not yet consumed, in order
	work   chan *csvChunk
	stop   chan struct{}
	wg     sync.WaitGroup
	base   int64 // lines before the current chunk
	cur    *csvChunk
	i, j   int // next record and next reject of cur
	closed bool
	// columnar: workers fill csvChunk.cols instead of recs (drainChunks);
	// maps holds each worker's tenant and server IDMaps for the consumer.
	columnar bool
	maps     [][2]dataset.IDMap
	free     sync.Pool // *dataset.UsageColumns whose rows were appended (recycle)
}

type csvChunk struct {
	start, end int
	recs       []dataset.Usage
	rejects    []chunkReject
	lines      int64
	fault      any    // a recovered panic: the file shrank while mapped, or a bug
	faultAt    string // where it happened (panicSite)
	done       chan struct{}
	cols       dataset.UsageColumns // columnar mode: the records
	worker     int                  // columnar mode: whose string tables cols uses
}

// chunkReject is a rejected line that comes before recs[at].
type chunkReject struct {
	at   int
	perr ParseError
}

func startParallel(r *usageCSV, columnar bool) *parallelCSV {
	workers := runtime.GOMAXPROCS(0)
	// Chunks are hashed as they are cut and parsed once a worker takes
	// them: the fewer are in flight, the more of a chunk a parser still
	// finds in the cache the hasher read it into; three per worker is the
	// fewest that keeps the workers fed (the measurements are in the
	// README's benchmark section).
	inflight := 3 * workers
	pc := &parallelCSV{in: r.in, data: r.lr.data, next: r.lr.off, base: r.lr.line,
		work: make(chan *csvChunk, inflight), stop: make(chan struct{}),
		columnar: columnar, maps: make([][2]dataset.IDMap, workers)}
	r.lr.off = len(r.lr.data) // the line reader is done; chunks take over
	for w := 0; w < workers; w++ {
		p := r.p.clone()
		pc.wg.Add(1)
		go pc.worker(p, w)
	}
	for k := 0; k < inflight; k++ {
		pc.cut()
	}
	return pc
}

// cut queues the next chunk. At most `inflight` chunks are outstanding, so
// the send never blocks.
func (pc *parallelCSV) cut() {
	if pc.next >= len(pc.data) {
		return
	}
	end := min(pc.next+chunkBytes, len(pc.data))
	if end < len(pc.data) {
		if k := bytes.IndexByte(pc.data[end:], '\n'); k >= 0 {
			end += k + 1
		} else {
			end = len(pc.data)
		}
	}
	c := &csvChunk{start: pc.next, end: end, done: make(chan struct{})}
	pc.next = end
	if pc.in != nil {
		pc.in.hashTo(end)
	}
	pc.queue = append(pc.queue, c)
	pc.work <- c
}

func (pc *parallelCSV) worker(p *csvParser, w int) {
	defer pc.wg.Done()
	for c := range pc.work {
		select {
		case <-pc.stop:
		default:
			c.worker = w
			pc.parseChunk(p, c)
		}
		close(c.done)
	}
}

func (pc *parallelCSV) parseChunk(p *csvParser, c *csvChunk) {
	// A mapped file that is truncated under us faults; turn that into an
	// error instead of a crash.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if e := recover(); e != nil {
			c.fault, c.faultAt = e, panicSite()
		}
	}()
	data := pc.data[c.start:c.end]
	est := len(data)/32 + 16
	if pc.columnar {
		if old, ok := pc.free.Get().(*dataset.UsageColumns); ok {
			c.cols = dataset.UsageColumns{Tenant: old.Tenant[:0], Server: old.Server[:0],
				TimeMs: old.TimeMs[:0], CPU: old.CPU[:0], Memory: old.Memory[:0]}
		} else {
			c.cols = dataset.UsageColumns{Tenant: make([]int32, 0, est), Server: make([]int32, 0, est),
				TimeMs: make([]int64, 0, est), CPU: make([]float64, 0, est), Memory: make([]float64, 0, est)}
		}
	} else {
		c.recs = make([]dataset.Usage, 0, est)
	}
	var scratch dataset.Usage
	var line int64
	fast := pc.columnar && p.fastLayout()
	// Without a memory column every row's memory is null: the column
	// stays empty (dataset.UsageColumns).
	mem := p.idx[colMemory] >= 0
	for len(data) > 0 {
		if fast {
			if ts, cpu, m, used, ok := p.fastRow(data); ok {
				line++
				data = data[used:]
				cc := &c.cols
				cc.Tenant = append(cc.Tenant, p.tenantID)
				cc.Server = append(cc.Server, p.serverID)
				cc.TimeMs = append(cc.TimeMs, ts)
				cc.CPU = append(cc.CPU, cpu)
				if mem {
					cc.Memory = append(cc.Memory, m)
				}
				continue
			}
		}
		var l []byte
		var simple bool
		l, data, p.fields, p.cols, simple = splitLine(data, p.fields, p.cols)
		line++
		if len(l) == 0 {
			continue
		}
		if len(l) >= MaxLineBytes { // as lineReader.finish: the stream path cannot tell longer from equal
			c.rejects = append(c.rejects, chunkReject{at: len(c.recs),
				perr: ParseError{File: p.file, Line: line, Err: errLineTooLong, Record: recordText(l)}})
			continue
		}
		rec := &scratch
		if !pc.columnar {
			c.recs = append(c.recs, dataset.Usage{})
			rec = &c.recs[len(c.recs)-1]
		}
		var perr *ParseError
		if simple {
			perr = p.parseFields(l, line, rec)
		} else {
			perr = p.parse(l, line, rec)
		}
		if perr == nil {
			if perr = p.checkRange(rec, line, ""); perr != nil {
				perr.Record = recordText(l)
			}
		}
		switch {
		case perr != nil && pc.columnar:
			c.rejects = append(c.rejects, chunkReject{at: c.cols.Len(), perr: *perr})
		case perr != nil:
			c.recs = c.recs[:len(c.recs)-1]
			c.rejects = append(c.rejects, chunkReject{at: len(c.recs), perr: *perr})
		case pc.columnar:
			cc := &c.cols
			cc.Tenant = append(cc.Tenant, p.tenantID)
			cc.Server = append(cc.Server, p.serverID)
			cc.TimeMs = append(cc.TimeMs, rec.TimeMs)
			cc.CPU = append(cc.CPU, rec.CPU)
			if mem {
				cc.Memory = append(cc.Memory, rec.Memory)
			}
		}
	}
	c.lines = line
	if pc.columnar {
		// The tables only grow: entries below these lengths never change,
		// so the consumer may read them while this worker goes on.
		c.cols.Tenants, c.cols.Servers = p.tenants.Strings(), p.servers.Strings()
	}
}

// scan moves r to the next record or reject, in input order.
func (pc *parallelCSV) scan(r *usageCSV) bool {
	for {
		if c := pc.cur; c != nil {
			if pc.j < len(c.rejects) && c.rejects[pc.j].at == pc.i {
				r.bad, r.perr = true, c.rejects[pc.j].perr
				r.perr.Line += pc.base
				pc.j++
				return true
			}
			if pc.i < len(c.recs) {
				r.bad, r.cur = false, &c.recs[pc.i]
				pc.i++
				return true
			}
			pc.finish(r, c)
		}
		c, ok := pc.take(r)
		if !ok {
			return false
		}
		pc.cur, pc.i, pc.j = c, 0, 0
	}
}

// take waits for the next chunk in input order. At the end, or when a chunk
// faulted (r.err is then set), it stops the workers and returns false.
// Reject lines of the chunk are relative to pc.base until finish.
func (pc *parallelCSV) take(r *usageCSV) (*csvChunk, bool) {
	if len(pc.queue) == 0 {
		pc.close()
		r.eof = true
		return nil, false
	}
	c := pc.queue[0]
	pc.queue = pc.queue[1:]
	<-c.done
	if c.fault != nil {
		pc.close()
		r.err = recovered(r.file, "csv", c.fault, c.faultAt)
		return nil, false
	}
	return c, true
}

// recycle hands the column buffers of a consumed columnar chunk back to
// the workers; c.cols must not be used afterwards.
func (pc *parallelCSV) recycle(c *csvChunk) {
	cols := c.cols
	c.cols = dataset.UsageColumns{}
	pc.free.Put(&cols)
}

// finish is called when every record and reject of c was consumed: the
// lines move on, the input may drop its pages, and the next chunk is cut.
func (pc *parallelCSV) finish(r *usageCSV, c *csvChunk) {
	pc.base += c.lines
	r.in.consumed(c.end)
	pc.cur = nil
	pc.cut()
}

// close stops the workers; chunks being parsed are finished first.
func (pc *parallelCSV) close() {
	if pc.closed {
		return
	}
	pc.closed = true
	close(pc.stop)
	close(pc.work)
	pc.wg.Wait()
}
