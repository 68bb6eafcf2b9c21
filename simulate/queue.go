package simulate

import "sort"

// jobQueue is the queue of jobs that ask for a task, in YARN's fair order
// (least memory held, then rank: the job's index): a sorted list cut into
// blocks of at most maxBlock jobs. Under yarn-me with reserved gaps each
// block also keeps the minimum, over its jobs, of what their next tasks
// need, so that the gap walk (rule 6) meets the jobs in queue order and
// skips every block with no job that could fit the gap. Blocks hold
// neighbours in queue order, which tend to be alike (starving jobs with
// big tasks first), so that skipping works.
type jobQueue struct {
	blocks []*qblock // in queue order, none empty
	where  []*qblock // job → its block, nil: not queued
	cons   []int64   // job → memory units held when it was put in place
	need   []need    // job → its next task's needs (gaps only)
	n      int
}

type qblock struct {
	jobs []int32
	agg  need // minimum over jobs (gaps only)
}

const maxBlock = 64

// need is what a task needs to start in a gap; as a block's minimum,
// each field is the least over its jobs (latest the greatest).
type need struct {
	ideal, kmin, cores int32   // kmin MaxInt32 without a model
	dur, minRT         float64 // minRT: the lowest elastic runtime, +Inf without a model
	// latest is the latest instant an elastic task could start and end
	// by its phase's estimate (the estimate less minRT): +Inf when the
	// estimate depends on the node (no lanes).
	latest float64
}

func newJobQueue(n int, gaps bool) jobQueue {
	q := jobQueue{where: make([]*qblock, n), cons: make([]int64, n)}
	if gaps {
		q.need = make([]need, n)
	}
	return q
}

func (q *jobQueue) len() int { return q.n }

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

func (q *jobQueue) pull(b *qblock) {
	if q.need == nil {
		return
	}
	a := q.need[b.jobs[0]]
	for _, j := range b.jobs[1:] {
		x := &q.need[j]
		a.ideal = min(a.ideal, x.ideal)
		a.kmin = min(a.kmin, x.kmin)
		a.cores = min(a.cores, x.cores)
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
	b.agg = a
}

// insert queues job j holding cons units; nd is its next task's needs.
func (q *jobQueue) insert(j int32, cons int64, nd need) {
	q.cons[j] = cons
	if q.need != nil {
		q.need[j] = nd
	}
	q.n++
	if len(q.blocks) == 0 {
		b := &qblock{jobs: append(make([]int32, 0, maxBlock+1), j)}
		q.blocks = append(q.blocks, b)
		q.where[j] = b
		q.pull(b)
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
	q.where[j] = b
	if len(b.jobs) <= maxBlock {
		q.pull(b)
		return
	}
	// Split: the second half becomes a new block after b.
	h := len(b.jobs) / 2
	nb := &qblock{jobs: make([]int32, 0, maxBlock+1)}
	nb.jobs = append(nb.jobs, b.jobs[h:]...)
	b.jobs = b.jobs[:h]
	for _, x := range nb.jobs {
		q.where[x] = nb
	}
	q.blocks = append(q.blocks, nil)
	copy(q.blocks[bi+2:], q.blocks[bi+1:])
	q.blocks[bi+1] = nb
	q.pull(b)
	q.pull(nb)
}

// remove takes job j out of the queue.
func (q *jobQueue) remove(j int32) {
	b := q.where[j]
	q.where[j] = nil
	q.n--
	k := sort.Search(len(b.jobs), func(i int) bool { return !q.less(b.jobs[i], j) })
	b.jobs = append(b.jobs[:k], b.jobs[k+1:]...)
	if len(b.jobs) > 0 {
		q.pull(b)
		return
	}
	for i, x := range q.blocks {
		if x == b {
			q.blocks = append(q.blocks[:i], q.blocks[i+1:]...)
			break
		}
	}
}

// setCons changes the memory job j holds and puts it in its place.
func (q *jobQueue) setCons(j int32, cons int64) {
	if q.where[j] == nil {
		q.cons[j] = cons
		return
	}
	var nd need
	if q.need != nil {
		nd = q.need[j]
	}
	q.remove(j)
	q.insert(j, cons, nd)
}

// setNeed changes what job j's next task needs.
func (q *jobQueue) setNeed(j int32, nd need) {
	if q.need == nil || q.where[j] == nil {
		return
	}
	q.need[j] = nd
	q.pull(q.where[j])
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
		if a.cores > cores || !(a.ideal <= free && a.dur <= slack || a.kmin <= free && a.minRT <= slack && a.latest >= since) {
			continue
		}
		for _, j := range b.jobs {
			n := &q.need[j]
			if n.cores <= cores && (n.ideal <= free && n.dur <= slack || n.ideal > free && n.kmin <= free && n.minRT <= slack && n.latest >= since) {
				if !f(j) {
					return
				}
			}
		}
	}
}
