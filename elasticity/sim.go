package elasticity

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// spillSim says how many bytes a task writes to local disk at a memory.
type spillSim struct {
	name    string // what is simulated
	spilled func(memBytes float64) float64
	params  *paramSet
	notes   []string
	exact   float64 // ideal memory in closed form, when the simulator knows it
}

// groupStats are the facts of a group's runs that a simulator needs.
type groupStats struct {
	inputBytes    float64 // median input
	outputBytes   float64 // median map output (map tasks)
	outputRecords float64
	slots         float64 // tasks sharing the memory
	expansion     float64 // Spark: memory spilled / disk spilled, 0 when unknown
	expansionRuns int
}

const mib = 1 << 20

// reservedSparkBytes is the executor memory Spark keeps for itself
// (UnifiedMemoryManager's RESERVED_SYSTEM_MEMORY_BYTES, 300 MB).
const reservedSparkBytes = 300 * mib

// isMapTask reports whether a task name is a map side.
func isMapTask(task string) bool {
	t := strings.ToLower(task)
	return t == "map" || t == "mapper" || strings.HasPrefix(t, "map ") || strings.HasPrefix(t, "map-") || strings.HasPrefix(t, "map_")
}

// newSim picks the framework's simulator and reads its keys from c.
func newSim(framework, task string, c Conf, gs groupStats) *spillSim {
	p := newParamSet(c)
	s := &spillSim{params: p}
	switch framework {
	case "mapreduce", "hadoop":
		if isMapTask(task) {
			s.name = "hadoop-sort-buffer"
			hf := heapFraction(p, c, "map")
			sortMB := p.float("mapreduce.task.io.sort.mb", 100, 1, 2047)
			memMB := p.float("mapreduce.map.memory.mb", 1024, 1, 1<<30)
			frac := p.float("wlprof.sort.buffer.fraction", math.Min(sortMB/(memMB*hf), 1), 1e-6, 1)
			if p.used["wlprof.sort.buffer.fraction"].Source == "default" {
				p.set("wlprof.sort.buffer.fraction", frac, "derived")
				s.notes = append(s.notes, fmt.Sprintf("the sort buffer is taken to scale with the task's memory: io.sort.mb/heap = %.3g (set wlprof.sort.buffer.fraction to change it)", frac))
			}
			ms := &mapSort{outputBytes: gs.outputBytes, outputRecords: gs.outputRecords, heapFraction: hf, sortFraction: frac,
				spillPct: p.float("mapreduce.map.sort.spill.percent", 0.80, 0.01, 1),
				factor:   int(p.float("mapreduce.task.io.sort.factor", 10, 2, 1e6))}
			p.set("output_bytes", gs.outputBytes, "runs")
			p.set("output_records", gs.outputRecords, "runs")
			s.spilled = ms.spilled
			return s
		}
		s.name = "hadoop-merge-manager"
		rm := &reduceMerge{inputBytes: gs.inputBytes, heapFraction: heapFraction(p, c, "reduce"), capSingle: true,
			inBufPct:    p.float("mapreduce.reduce.shuffle.input.buffer.percent", 0.70, 0, 1),
			limitPct:    p.float("mapreduce.reduce.shuffle.memory.limit.percent", 0.25, 1e-6, 1),
			mergePct:    p.float("mapreduce.reduce.shuffle.merge.percent", 0.66, 1e-6, 1),
			reduceInPct: p.float("mapreduce.reduce.input.buffer.percent", 0.0, 0, 1),
			factor:      int(p.float("mapreduce.task.io.sort.factor", 10, 2, 1e6)),
			segments:    segmentCount(p, "mapreduce.job.maps", gs.inputBytes, &s.notes)}
		if rm.limitPct >= rm.mergePct {
			s.notes = append(s.notes, "shuffle.memory.limit.percent ≥ shuffle.merge.percent: Hadoop refuses this configuration (maxSingleShuffleLimit must be below mergeThreshold)")
		}
		if rm.reduceInPct == 0 {
			s.notes = append(s.notes, "mapreduce.reduce.input.buffer.percent=0: the reducer writes its whole input to disk before the reduce at every memory, so no memory avoids spilling; ideal memory is where the extra merge passes stop")
		}
		p.set("input_bytes", gs.inputBytes, "runs")
		s.spilled = rm.spilled
		return s
	case "tez":
		s.name = "tez-merge-manager"
		rm := &reduceMerge{inputBytes: gs.inputBytes, heapFraction: p.float("wlprof.heap.fraction", 0.8, 0.01, 1),
			inBufPct:    p.float("tez.runtime.shuffle.fetch.buffer.percent", 0.90, 0, 1),
			limitPct:    p.float("tez.runtime.shuffle.memory.limit.percent", 0.25, 1e-6, 1),
			mergePct:    p.float("tez.runtime.shuffle.merge.percent", 0.90, 1e-6, 1),
			reduceInPct: p.float("tez.runtime.task.input.post-merge.buffer.percent", 0.0, 0, 1),
			factor:      int(p.float("tez.runtime.io.sort.factor", 100, 2, 1e6)),
			segments:    segmentCount(p, "wlprof.map.outputs", gs.inputBytes, &s.notes)}
		if p.bool("tez.runtime.optimize.local.fetch", true) {
			rm.localFrac = p.float("wlprof.local.fetch.fraction", 0, 0, 1)
			if p.used["wlprof.local.fetch.fraction"].Source == "default" {
				s.notes = append(s.notes, "tez.runtime.optimize.local.fetch is on but the share of map outputs on the reducer's node is unknown: taken as 0 (set wlprof.local.fetch.fraction)")
			}
		}
		p.set("input_bytes", gs.inputBytes, "runs")
		s.spilled = rm.spilled
		return s
	case "spark":
		s.name = "spark-execution-memory"
		legacy := p.bool("spark.memory.useLegacyMode", false)
		if _, ok := c["spark.memory.fraction"]; !ok {
			if _, ok := c["spark.shuffle.memoryFraction"]; ok {
				legacy = true // Spark before 1.6: only the legacy keys exist
				p.set("spark.memory.useLegacyMode", 1, "derived")
			}
		}
		e := gs.expansion
		if e > 0 {
			p.set("expansion_factor", e, "learnt")
		} else {
			e = p.float("wlprof.expansion.factor", 1, 1e-3, 1e3)
			s.notes = append(s.notes, "no run spilled both memory and disk bytes: the expansion factor (in-memory size / serialised size) is taken as 1")
			p.set("expansion_factor", e, "default")
		}
		slots := math.Max(gs.slots, 1)
		p.set("concurrent_tasks", slots, "runs")
		var exec func(m float64) float64
		if legacy {
			fr := p.float("spark.shuffle.memoryFraction", 0.2, 0, 1)
			sf := p.float("spark.shuffle.safetyFraction", 0.8, 0, 1)
			exec = func(m float64) float64 { return m * fr * sf / slots }
		} else {
			fr := p.float("spark.memory.fraction", 0.6, 0, 1)
			exec = func(m float64) float64 { return math.Max(m-reservedSparkBytes, 0) * fr / slots }
		}
		in := gs.inputBytes
		p.set("input_bytes", in, "runs")
		s.spilled = func(m float64) float64 {
			d, x := in*e, exec(m)
			if d <= x || in <= 0 {
				return 0
			}
			if x <= 0 {
				return in
			}
			// The collection spills each time it fills execution memory;
			// what is left at the end is merged from memory.
			k := math.Ceil(d/x) - 1
			return k * x / e
		}
		return s
	}
	e := p.float("wlprof.expansion.factor", 1, 1e-3, 1e3)
	in := gs.inputBytes
	p.set("input_bytes", in, "runs")
	if p.bool("wlprof.spill.buffer", false) {
		// A reducer's shuffle buffer (Iorgulescu et al., ATC'17 §2.3): the input takes
		// input × expansion in memory, the buffer spills whole each time it
		// fills, and the last buffer is merged from memory.
		s.name = "spill-buffer"
		s.spilled = func(m float64) float64 { return bufferSpill(in, e, m) }
		s.exact = math.Max(in*e, 1)
		return s
	}
	s.name = "all-or-nothing"
	s.spilled = func(m float64) float64 {
		if in*e <= m {
			return 0
		}
		return in
	}
	s.exact = math.Max(in*e, 1)
	return s
}

// bufferSpill is what a buffer of m bytes spills of in bytes that take
// in × e in memory when it is spilled whole each time it fills and the
// last (partial or full) buffer stays in memory: (⌈in·e/m⌉ − 1)·m/e.
func bufferSpill(in, e, m float64) float64 {
	d := in * e
	if d <= m || in <= 0 {
		return 0
	}
	if m <= 0 {
		return in
	}
	return (math.Ceil(d/m) - 1) * m / e
}

// heapFraction is the JVM heap's share of the task memory: -Xmx over
// memory.mb when both are configured, else mapreduce.job.heap.memory-mb.ratio.
func heapFraction(p *paramSet, c Conf, kind string) float64 {
	key := "wlprof.heap.fraction"
	if _, ok := c[key]; ok {
		return p.float(key, 0.8, 0.01, 1)
	}
	for _, k := range []string{"mapreduce." + kind + ".java.opts", "mapred.child.java.opts"} {
		if x, ok := xmxBytes(c[k]); ok {
			memMB := p.float("mapreduce."+kind+".memory.mb", 1024, 1, 1<<30)
			if f := float64(x) / (memMB * mib); f > 0 && f <= 1 {
				p.set(key, f, "derived")
				return f
			}
		}
	}
	f := p.float("mapreduce.job.heap.memory-mb.ratio", 0.8, 0.01, 1)
	p.set(key, f, "derived")
	return f
}

// segmentCount is how many map outputs a reducer fetches.
func segmentCount(p *paramSet, key string, input float64, notes *[]string) int {
	if _, ok := p.conf[key]; !ok {
		*notes = append(*notes, fmt.Sprintf("%s unknown: the input is taken as 100 equal map outputs", key))
	}
	return int(p.float(key, 100, 1, 1e5))
}

// idealMemory is the smallest memory from which the simulator's spilled
// bytes stay at their floor (nothing spilled, or only what every memory
// writes). The search assumes that once a memory avoids the extra spill,
// every larger one does (all thresholds grow with memory). ok is false
// when no memory up to 1 PiB reaches the floor.
func (s *spillSim) idealMemory() (ideal, floor float64, ok bool) {
	const hi0 = float64(1 << 50)
	floor = s.spilled(hi0)
	if s.exact > 0 {
		return s.exact, floor, true
	}
	at := func(m float64) bool { return s.spilled(m) <= floor*(1+1e-9)+1 }
	lo, hi := float64(mib), hi0
	if at(lo) {
		return lo, floor, true
	}
	if !at(hi) {
		return 0, floor, false
	}
	for hi-lo > math.Max(4096, hi*1e-6) {
		mid := (lo + hi) / 2
		if at(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return math.Ceil(hi), floor, true
}

// sortFloats returns a sorted copy.
func sortFloats(x []float64) []float64 {
	y := append([]float64(nil), x...)
	sort.Float64s(y)
	return y
}
