package elasticity

import (
	"math"
	"sort"
)

// This file simulates how many bytes a Hadoop (or Tez) task writes to its
// local disk at a given memory: the reduce side follows MergeManagerImpl
// and Merger, the map side MapTask's sort buffer (MapOutputBuffer). It is a
// sequential model of a concurrent process: fetched map outputs arrive one
// at a time, and a merge the manager starts finishes before the next
// output arrives. Sizes are bytes, as float64.

// metaBytesPerRecord is the sort buffer's accounting metadata per record
// (MapOutputBuffer: NMETA = 4 ints, METASIZE = 16 bytes).
const metaBytesPerRecord = 16

// maxSortBufferBytes: Hadoop refuses mapreduce.task.io.sort.mb > 2047.
const maxSortBufferBytes = 2047 << 20

// maxSingleShuffleCap: a single in-memory shuffle is at most
// Integer.MAX_VALUE bytes (MergeManagerImpl caps maxSingleShuffleLimit).
const maxSingleShuffleCap = math.MaxInt32

// reduceMerge holds the reducer's shuffle and merge configuration.
type reduceMerge struct {
	inputBytes   float64 // the reducer's shuffled input
	segments     int     // map outputs it fetches (one per map)
	heapFraction float64 // JVM heap / task memory
	inBufPct     float64 // shuffle.input.buffer.percent: memoryLimit = heap × this
	limitPct     float64 // shuffle.memory.limit.percent: largest single in-memory output
	mergePct     float64 // shuffle.merge.percent: in-memory merge threshold
	reduceInPct  float64 // reduce.input.buffer.percent: kept in memory for the reduce
	factor       int     // io.sort.factor
	localFrac    float64 // Tez: fraction of map outputs local to the reducer, read from disk
	capSingle    bool    // cap maxSingleShuffleLimit at Integer.MAX_VALUE (Hadoop)
}

// mergeStats is one simulated reduce.
type mergeStats struct {
	diskBytes     float64 // written to local disk: shuffled-to-disk outputs, spills, merges
	shuffleSpills int     // in-memory merges to disk during the shuffle
	diskMerges    int     // on-disk merges during the shuffle
	finalPasses   int     // intermediate passes of the final merge
	keptInMemory  float64 // bytes fed to the reduce straight from memory
}

// spilled is the disk bytes of a reduce with memBytes of task memory.
func (r *reduceMerge) spilled(memBytes float64) float64 { return r.simulate(memBytes).diskBytes }

// simulate replays the shuffle of r.segments equal map outputs.
func (r *reduceMerge) simulate(memBytes float64) mergeStats {
	var st mergeStats
	if r.inputBytes <= 0 || memBytes <= 0 {
		return st
	}
	n := max(r.segments, 1)
	seg := r.inputBytes / float64(n)
	memoryLimit := math.Floor(memBytes * r.heapFraction * r.inBufPct)
	maxSingle := math.Floor(memoryLimit * r.limitPct)
	if r.capSingle && maxSingle > maxSingleShuffleCap {
		maxSingle = maxSingleShuffleCap
	}
	mergeThreshold := math.Floor(memoryLimit * r.mergePct)
	factor := max(r.factor, 2)

	var onDisk []float64 // sorted ascending, like the manager's TreeSet
	var inMem []float64
	commit := 0.0
	addDisk := func(size float64) {
		i := sort.SearchFloat64s(onDisk, size)
		onDisk = append(onDisk, 0)
		copy(onDisk[i+1:], onDisk[i:])
		onDisk[i] = size
		// closeOnDiskFile: at 2·factor−1 files, merge the factor smallest.
		for len(onDisk) >= 2*factor-1 {
			sum := 0.0
			for _, s := range onDisk[:factor] {
				sum += s
			}
			onDisk = append(onDisk[:0], onDisk[factor:]...)
			st.diskBytes += sum
			st.diskMerges++
			j := sort.SearchFloat64s(onDisk, sum)
			onDisk = append(onDisk, 0)
			copy(onDisk[j+1:], onDisk[j:])
			onDisk[j] = sum
		}
	}
	local := 0.0
	for i := 0; i < n; i++ {
		// Tez: every 1/localFrac-th output is on the reducer's node and is
		// read from disk where the map wrote it, bypassing shuffle memory.
		local += r.localFrac
		if local >= 1-1e-12 {
			local--
			addDisk(seg)
			continue
		}
		if seg > maxSingle {
			st.diskBytes += seg // shuffled straight to disk
			addDisk(seg)
			continue
		}
		inMem = append(inMem, seg)
		commit += seg
		if commit >= mergeThreshold {
			sum := 0.0
			for _, s := range inMem {
				sum += s
			}
			inMem = inMem[:0]
			commit = 0
			st.diskBytes += sum
			st.shuffleSpills++
			addDisk(sum)
		}
	}
	// finalMerge: free memory down to reduce.input.buffer.percent, smallest
	// outputs first.
	maxInMemReduce := math.Floor(memoryLimit * r.reduceInPct)
	sort.Float64s(inMem)
	full := 0.0
	for _, s := range inMem {
		full += s
	}
	var memDisk []float64
	for len(inMem) > 0 && full > maxInMemReduce {
		memDisk = append(memDisk, inMem[0])
		full -= inMem[0]
		inMem = inMem[1:]
	}
	st.keptInMemory = full
	if len(memDisk) > 0 && factor > len(onDisk) {
		sum := 0.0
		for _, s := range memDisk {
			sum += s
		}
		st.diskBytes += sum
		onDisk = append(onDisk, sum)
		sort.Float64s(onDisk)
		memDisk = nil
	}
	if len(onDisk) > 0 {
		w, passes := mergePasses(memDisk, onDisk, factor)
		st.diskBytes += w
		st.finalPasses = passes
	} else {
		st.keptInMemory += sumOf(memDisk)
	}
	return st
}

func sumOf(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

// mergePasses replays Merger.merge over inMem segments (first, not subject
// to the pass factor) and disk segments (sorted ascending): it returns the
// bytes written by intermediate passes, until at most factor segments are
// left for the final pass, which feeds the consumer and writes nothing.
func mergePasses(inMem, disk []float64, factor int) (float64, int) {
	nMem := len(inMem)
	n := nMem + len(disk)
	f := passFactor(factor, 1, len(disk)) + nMem
	if n <= f {
		return 0, 0
	}
	// Pass 1 takes the in-memory segments and the smallest disk ones; every
	// later pass the factor smallest of what is left, so a min-heap of the
	// remaining sizes replays Merger's sorted list.
	h := floatHeap(append([]float64(nil), disk[f-nMem:]...))
	h.init()
	first := sumOf(inMem) + sumOf(disk[:f-nMem])
	h.push(first)
	written, passes := first, 1
	for len(h) > factor {
		sum := 0.0
		for i := 0; i < factor; i++ {
			sum += h.pop()
		}
		h.push(sum)
		written += sum
		passes++
	}
	return written, passes
}

// floatHeap is a min-heap of sizes.
type floatHeap []float64

func (h floatHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h floatHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		if r := l + 1; r < len(h) && h[r] < h[l] {
			l = r
		}
		if h[i] <= h[l] {
			return
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
}

func (h *floatHeap) push(x float64) {
	*h = append(*h, x)
	for i := len(*h) - 1; i > 0; {
		p := (i - 1) / 2
		if (*h)[p] <= (*h)[i] {
			break
		}
		(*h)[p], (*h)[i] = (*h)[i], (*h)[p]
		i = p
	}
}

func (h *floatHeap) pop() float64 {
	old := *h
	x := old[0]
	old[0] = old[len(old)-1]
	*h = old[:len(old)-1]
	h.down(0)
	return x
}

// passFactor is Merger's first-pass rule: merge just enough segments that
// every later pass merges exactly factor.
func passFactor(factor, pass, n int) int {
	if pass > 1 || n <= factor || factor == 1 {
		return factor
	}
	if mod := (n - 1) % (factor - 1); mod != 0 {
		return mod + 1
	}
	return factor
}

// mapSort holds the mapper's sort buffer configuration and output.
type mapSort struct {
	outputBytes   float64
	outputRecords float64
	heapFraction  float64 // JVM heap / task memory
	sortFraction  float64 // sort buffer (io.sort.mb) / heap, as the sweep scales it
	spillPct      float64 // map.sort.spill.percent
	factor        int     // io.sort.factor
}

// spilled is the disk bytes a map task writes: its one output file when the
// buffer holds everything, else every spill, the merge passes and the
// merged output.
func (m *mapSort) spilled(memBytes float64) float64 {
	if m.outputBytes <= 0 {
		return 0
	}
	buf := math.Min(memBytes*m.heapFraction*m.sortFraction, maxSortBufferBytes)
	soft := buf * m.spillPct
	total := m.outputBytes + metaBytesPerRecord*m.outputRecords
	if soft <= 0 {
		return math.Inf(1)
	}
	if total <= soft {
		return m.outputBytes
	}
	n := int(math.Min(math.Ceil(total/soft), 1e4)) // more spills than this is not a task worth modelling
	segs := make([]float64, n)
	for i := range segs {
		segs[i] = m.outputBytes / float64(n)
	}
	w, _ := mergePasses(nil, segs, max(m.factor, 2))
	return m.outputBytes + w + m.outputBytes
}
