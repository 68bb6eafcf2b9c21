package simulate

import (
	"slices"
	"sort"
)

// jobQueue is the queue of jobs that ask for a task, in YARN's fair order
// (least memory held, then rank: the job's index): a sorted list cut into
// blocks of at most maxBlock jobs. Under yarn-me with reserved gaps each
// entry also holds what its job's next task needs, and each block the
// minimum of that over its jobs, so that the gap walk (rule 6) meets the
// jobs in queue order and skips every block with no job that could fit
// the gap. Blocks hold neighbours in queue order, which tend to be alike
// (starving jobs with big tasks first), so that skipping works.
type jobQueue struct {
	blocks []*qblock // in queue order, none empty
	where  []*qblock // job → its block, nil: not queued
	cons   []int64   // job → memory units held when it was put in place
	gaps   bool      // keep needs
	n      int
	free   []*qblock // emptied blocks, for reuse: the queue empties and fills again all the time
}

type qblock struct {
	jobs  []int32
	needs []need // jobs' needs (gaps only)
	agg   need   // their minimum (gaps only)
}

const maxBlock = 64

// need is what a task needs to start in a gap; as a block's minimum,
// each field is the least over its jobs (latest the greatest; cores is
// not kept: nearly every task takes one, and the walk checks each job's).
type need struct {
	ideal, kmin, cores int32   // kmin MaxInt32 without a model
	dur, minRT         float64 // minRT: the lowest elastic runtime, +Inf without a model
	// latest is the latest instant an elastic task could start and end
	// by its phase's estimate (the estimate less minRT): +Inf when the
	// estimate depends on the node (no lanes).
	latest float64
}

func newJobQueue(n int, gaps bool) jobQueue {
	return jobQueue{where: make([]*qblock, n), cons: make([]int64, n), gaps: gaps}
}

func (q *jobQueue) len() int { return q.n }

// cloneInto is a copy of q, for stock YARN's continuation, that shares
// nothing q changes: it keeps no needs (YARN walks no gaps) nor free
// blocks. It reuses old's buffers (old is no longer used).
func (q *jobQueue) cloneInto(old *jobQueue) jobQueue {
	c := jobQueue{where: old.where[:0], cons: append(old.cons[:0], q.cons...), n: q.n,
		blocks: old.blocks[:0], free: old.free}
	for _, b := range old.blocks {
		b.jobs, b.needs = b.jobs[:0], nil
		c.free = append(c.free, b)
	}
	c.where = slices.Grow(c.where, len(q.where))[:len(q.where)]
	clear(c.where)
	for _, b := range q.blocks {
		var nb *qblock
		if k := len(c.free); k > 0 {
			nb, c.free = c.free[k-1], c.free[:k-1]
		} else {
			nb = &qblock{}
		}
		nb.jobs = append(nb.jobs[:0], b.jobs...)
		c.blocks = append(c.blocks, nb)
		for _, j := range nb.jobs {
			c.where[j] = nb
		}
	}
	c.free = c.free[:0] // newBlock's blocks must be empty: keep none
	return c
}

// less orders jobs by memory held, then rank (the job index).
func (q *jobQueue) less(a, b int32) bool {
	return q.cons[a] < q.cons[b] || (q.cons[a] == q.cons[b] && a < b)
}

func (q *jobQueue) head() int32 {
	if q.n == 0 {
		return -1
	}
	return q.blocks[0].jobs[0]
}

// each calls f on the queued jobs in queue order until f returns false.
// f must not change the queue unless it returns false.
func (q *jobQueue) each(f func(j int32) bool) {
	for _, b := range q.blocks {
		for _, j := range b.jobs {
			if !f(j) {
				return
			}
		}
	}
}

// pull recomputes a block's minimum.
func (q *jobQueue) pull(b *qblock) {
	if !q.gaps {
		return
	}
	b.agg = b.needs[0]
	for i := 1; i < len(b.needs); i++ {
		b.agg.add(&b.needs[i])
	}
}

// add makes a the minimum of itself and x.
func (a *need) add(x *need) {
	a.ideal = min(a.ideal, x.ideal)
	a.kmin = min(a.kmin, x.kmin)
	if x.dur < a.dur {
		a.dur = x.dur
	}
	if x.minRT < a.minRT {
		a.minRT = x.minRT
	}
	if x.latest > a.latest {
		a.latest = x.latest
	}
}

// bounds says whether x attains one of a's minima: without it, a may be
// too low, and is recomputed.
func (a *need) bounds(x *need) bool {
	return x.ideal == a.ideal || x.kmin == a.kmin || x.dur == a.dur || x.minRT == a.minRT || x.latest == a.latest
}

// newBlock is an empty block, reused when one is free.
func (q *jobQueue) newBlock() *qblock {
	if n := len(q.free); n > 0 {
		b := q.free[n-1]
		q.free = q.free[:n-1]
		return b
	}
	b := &qblock{jobs: make([]int32, 0, maxBlock+1)}
	if q.gaps {
		b.needs = make([]need, 0, maxBlock+1)
	}
	return b
}

// insert queues job j holding cons units; nd is its next task's needs.
func (q *jobQueue) insert(j int32, cons int64, nd need) {
	q.cons[j] = cons
	q.n++
	if len(q.blocks) == 0 {
		b := q.newBlock()
		b.jobs = append(b.jobs, j)
		if q.gaps {
			b.needs = append(b.needs, nd)
			b.agg = nd
		}
		q.blocks = append(q.blocks, b)
		q.where[j] = b
		return
	}
	// The first block whose last job comes after j, else the last block.
	bi := sort.Search(len(q.blocks), func(i int) bool {
		js := q.blocks[i].jobs
		return q.less(j, js[len(js)-1])
	})
	if bi == len(q.blocks) {
		bi--
	}
	b := q.blocks[bi]
	k := sort.Search(len(b.jobs), func(i int) bool { return q.less(j, b.jobs[i]) })
	b.jobs = append(b.jobs, 0)
	copy(b.jobs[k+1:], b.jobs[k:])
	b.jobs[k] = j
	if q.gaps {
		b.needs = append(b.needs, need{})
		copy(b.needs[k+1:], b.needs[k:])
		b.needs[k] = nd
	}
	q.where[j] = b
	if len(b.jobs) <= maxBlock {
		if q.gaps {
			b.agg.add(&nd)
		}
		return
	}
	// Split: the second half becomes a new block after b.
	h := len(b.jobs) / 2
	nb := q.newBlock()
	nb.jobs = append(nb.jobs, b.jobs[h:]...)
	b.jobs = b.jobs[:h]
	if q.gaps {
		nb.needs = append(nb.needs, b.needs[h:]...)
		b.needs = b.needs[:h]
	}
	for _, x := range nb.jobs {
		q.where[x] = nb
	}
	q.blocks = append(q.blocks, nil)
	copy(q.blocks[bi+2:], q.blocks[bi+1:])
	q.blocks[bi+1] = nb
	q.pull(b)
	q.pull(nb)
}

// remove takes job j out of the queue and returns its needs.
func (q *jobQueue) remove(j int32) need {
	b := q.where[j]
	q.where[j] = nil
	q.n--
	k := sort.Search(len(b.jobs), func(i int) bool { return !q.less(b.jobs[i], j) })
	b.jobs = append(b.jobs[:k], b.jobs[k+1:]...)
	var nd need
	if q.gaps {
		nd = b.needs[k]
		b.needs = append(b.needs[:k], b.needs[k+1:]...)
	}
	if len(b.jobs) > 0 {
		if q.gaps && b.agg.bounds(&nd) {
			q.pull(b)
		}
		return nd
	}
	for i, x := range q.blocks {
		if x == b {
			q.blocks = append(q.blocks[:i], q.blocks[i+1:]...)
			break
		}
	}
	q.free = append(q.free, b) // empty: jobs and needs are [:0]
	return nd
}

// setCons changes the memory job j holds and puts it in its place.
func (q *jobQueue) setCons(j int32, cons int64) {
	if q.where[j] == nil || q.cons[j] == cons { // not queued, or in its place
		q.cons[j] = cons
		return
	}
	q.insert(j, cons, q.remove(j))
}

// update changes the memory job j holds and what its next task needs.
func (q *jobQueue) update(j int32, cons int64, nd need) {
	if q.where[j] == nil {
		q.cons[j] = cons
		return
	}
	q.remove(j)
	q.insert(j, cons, nd)
}

// gapWalk calls f on the queued jobs, in queue order, whose next task
// might start on a node with free units and cores and end within slack
// seconds: regularly (ideal ≤ free, duration ≤ slack) or elastically
// (⌈10%⌉ ≤ free < ideal, lowest runtime ≤ slack, latest ≥ since), until
// f returns false. Every job that gaps could start is among them. f must
// not change the queue unless it returns false.
func (q *jobQueue) gapWalk(free, cores int32, slack, since float64, f func(j int32) bool) {
	for _, b := range q.blocks {
		a := &b.agg
		if !(a.ideal <= free && a.dur <= slack || a.kmin <= free && a.minRT <= slack && a.latest >= since) {
			continue
		}
		for i := range b.needs {
			n := &b.needs[i]
			if n.cores <= cores && (n.ideal <= free && n.dur <= slack || n.ideal > free && n.kmin <= free && n.minRT <= slack && n.latest >= since) {
				if !f(b.jobs[i]) {
					return
				}
			}
		}
	}
}
