package simulate

// headQueue is the job queue of a look-ahead (stock YARN's continuation,
// notLater) on identical nodes, where only the queue's head is ever read:
// no gap walk, and no job is passed over. It is a binary min-heap in
// YARN's fair order (least memory held, then rank), whose head is the
// block queue's head, at a fraction of the cost of keeping every job in
// its place.
type headQueue struct {
	h    []int32 // the heap
	pos  []int32 // job → its index in h, −1: not queued
	cons []int64 // job → memory units held when put in place
}

func (q *headQueue) less(a, b int32) bool {
	return q.cons[a] < q.cons[b] || (q.cons[a] == q.cons[b] && a < b)
}

func (q *headQueue) head() int32 {
	if len(q.h) == 0 {
		return -1
	}
	return q.h[0]
}

// load makes q a copy of src, reusing q's buffers. src's order, a sorted
// list, is a heap as it is.
func (q *headQueue) load(src *jobQueue) {
	for _, j := range q.h {
		q.pos[j] = -1
	}
	if len(q.pos) != len(src.where) {
		q.pos = make([]int32, len(src.where))
		for i := range q.pos {
			q.pos[i] = -1
		}
	}
	q.cons = append(q.cons[:0], src.cons...)
	q.h = q.h[:0]
	for _, b := range src.blocks {
		for _, j := range b.jobs {
			q.pos[j] = int32(len(q.h))
			q.h = append(q.h, j)
		}
	}
}

func (q *headQueue) insert(j int32, cons int64) {
	q.cons[j] = cons
	q.pos[j] = int32(len(q.h))
	q.h = append(q.h, j)
	q.up(len(q.h) - 1)
}

func (q *headQueue) remove(j int32) {
	i := int(q.pos[j])
	q.pos[j] = -1
	last := len(q.h) - 1
	if i != last {
		x := q.h[last]
		q.h[i] = x
		q.pos[x] = int32(i)
		q.h = q.h[:last]
		q.down(i)
		q.up(int(q.pos[x]))
		return
	}
	q.h = q.h[:last]
}

// setCons changes the memory job j holds and puts it in its place.
func (q *headQueue) setCons(j int32, cons int64) {
	old := q.cons[j]
	q.cons[j] = cons
	if i := q.pos[j]; i >= 0 && cons != old {
		if cons < old {
			q.up(int(i))
		} else {
			q.down(int(i))
		}
	}
}

func (q *headQueue) up(i int) {
	h := q.h
	x := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !q.less(x, h[p]) {
			break
		}
		h[i] = h[p]
		q.pos[h[i]] = int32(i)
		i = p
	}
	h[i] = x
	q.pos[x] = int32(i)
}

func (q *headQueue) down(i int) {
	h := q.h
	x := h[i]
	for {
		l := 2*i + 1
		if l >= len(h) {
			break
		}
		if r := l + 1; r < len(h) && q.less(h[r], h[l]) {
			l = r
		}
		if !q.less(h[l], x) {
			break
		}
		h[i] = h[l]
		q.pos[h[i]] = int32(i)
		i = l
	}
	h[i] = x
	q.pos[x] = int32(i)
}
