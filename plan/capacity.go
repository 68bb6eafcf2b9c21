package plan

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/internal/bytesize"
)

// Capacity is the cluster the cost c(t) is normalised by (Jyothi et al., OSDI'16 §6:
// c(t) = max over resources r of load(r, t) / capacity(r)). A zero field
// leaves that resource out of the cost; the zero Capacity is the default
// cost, the load in containers.
type Capacity struct {
	Containers  int64 `json:"containers,omitempty"`
	MemoryBytes int64 `json:"memory_bytes,omitempty"`
	// VCores counts in thousandths of a vcore (the loads' unit): 0.0004
	// is too small, 2.0004 is 2.
	VCores float64 `json:"vcores,omitempty"`
}

// Set says whether any resource is given: the multi-resource cost is in
// force.
func (c Capacity) Set() bool { return c.Containers != 0 || c.MemoryBytes != 0 || c.VCores != 0 }

// milliCores is VCores in thousandths of a vcore, rounded.
func (c Capacity) milliCores() int64 { return int64(math.Round(c.VCores * 1000)) }

// validate reports every bad capacity.
func (c Capacity) validate() []error {
	var errs []error
	if c.Containers < 0 {
		errs = append(errs, fmt.Errorf("capacity: containers %d: want > 0", c.Containers))
	}
	if c.MemoryBytes < 0 {
		errs = append(errs, fmt.Errorf("capacity: memory %d bytes: want > 0", c.MemoryBytes))
	}
	if !(c.VCores >= 0) || c.VCores > 1e15 {
		errs = append(errs, fmt.Errorf("capacity: cores %g: want a finite number > 0", c.VCores))
	} else if c.VCores > 0 && c.milliCores() < 1 {
		errs = append(errs, fmt.Errorf("capacity: cores %g: want at least a thousandth of a vcore", c.VCores))
	}
	return errs
}

// String is the capacity as --capacity reads it: containers=500,
// memory=2T, cores=4000 (the resources named, in this order).
func (c Capacity) String() string {
	var parts []string
	if c.Containers > 0 {
		parts = append(parts, fmt.Sprintf("containers=%d", c.Containers))
	}
	if c.MemoryBytes > 0 {
		parts = append(parts, "memory="+bytesize.Format(c.MemoryBytes))
	}
	if c.VCores > 0 {
		parts = append(parts, "cores="+strconv.FormatFloat(float64(c.milliCores())/1000, 'f', -1, 64))
	}
	return strings.Join(parts, ",")
}

// ParseCapacity reads --capacity: comma-separated resource=amount pairs,
// containers=N (a whole number), memory=SIZE (as bytesize.Parse reads
// it: 2T, 512G) and cores=N (vcores, to a thousandth; vcores= is the same
// resource); each at most once. "" is the zero Capacity (the default
// cost). Every bad pair is reported at once; the flag parser names the
// flag.
func ParseCapacity(s string) (Capacity, error) {
	var c Capacity
	var errs []error
	seen := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		k, v, ok := strings.Cut(f, "=")
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		if k == "vcores" {
			k = "cores"
		}
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("%q: want resource=amount (containers=500, memory=2T, cores=4000)", f))
			continue
		case k != "containers" && k != "memory" && k != "cores":
			errs = append(errs, fmt.Errorf("unknown resource %q (want containers, memory or cores)", k))
			continue
		case seen[k]:
			errs = append(errs, fmt.Errorf("%s given twice", k))
			continue
		}
		seen[k] = true
		switch k {
		case "containers":
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				errs = append(errs, fmt.Errorf("containers=%q: want a whole number > 0", v))
			}
			c.Containers = n
		case "memory":
			b, err := bytesize.Parse(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("memory: %w", err))
			}
			c.MemoryBytes = b
		case "cores":
			x, err := strconv.ParseFloat(v, 64)
			if err != nil || !(x > 0) || x > 1e15 {
				errs = append(errs, fmt.Errorf("cores=%q: want a number of vcores > 0", v))
			} else if c.VCores = x; c.milliCores() < 1 {
				errs = append(errs, fmt.Errorf("cores=%q: want at least a thousandth of a vcore", v))
			}
		}
	}
	if len(errs) > 0 {
		return Capacity{}, errors.Join(errs...)
	}
	return c, nil
}

// resources of the multi-resource cost, in this order everywhere.
const (
	resContainers = iota
	resMemory     // bytes
	resMilliCores // thousandths of a vcore, so that every load is a whole number
	nRes
)

// caps are the capacities as the cost divides by them, 0 for a resource
// left out: containers, bytes, thousandths of a vcore.
func (c Capacity) caps() [nRes]int64 {
	return [nRes]int64{c.Containers, c.MemoryBytes, c.milliCores()}
}

// weights is a unit's container size per resource for each of the n
// steps of its skyline trimmed of trim leading zero steps: one container,
// the job's memory and thousandths of a vcore per container (0 where
// unknown).
func weights(j *Job, trim, n int) [nRes][]int64 {
	var w [nRes][]int64
	w[resContainers] = make([]int64, n)
	for k := range w[resContainers] {
		w[resContainers][k] = 1
	}
	for r, sz := range map[int][]int64{resMemory: j.MemoryPerContainer, resMilliCores: j.MilliVCoresPerContainer} {
		w[r] = make([]int64, n)
		if sz != nil {
			copy(w[r], sz[trim:trim+n])
		}
	}
	return w
}

// SizeSample is one skyline sample's resources (the skylines table's
// containers, memory_bytes and vcores), from which a container's size in
// each step is derived (see stepSizes).
type SizeSample struct {
	OffsetS     float64
	Containers  float64
	MemoryBytes int64
	VCores      float64
}

// stepSizes derives the size of one container of a fitted skyline of n
// steps from the runs it was fitted on: in each step, the largest
// memory-per-container and vcores-per-container ratio of the samples in
// force during that step (the sample at or before the step's start and
// those inside it, the samples skyline.Quantise takes the maximum of),
// counting only samples with containers and that resource known (> 0).
// A step none of whose samples tells takes the job's largest ratio; a job
// with no memory (or vcores) at all gets 0 (Pack warns). Memory is
// rounded up to a byte, vcores up to a thousandth. The largest ratio,
// not the mean: the reservation must hold the biggest containers the
// step asked for.
func stepSizes(runs [][]SizeSample, n int, stepS float64) (mem, milli []int64) {
	mem, milli = make([]int64, n), make([]int64, n)
	memR, coreR := make([]float64, n), make([]float64, n)
	var memAll, coreAll float64
	for _, r := range runs {
		ss := append([]SizeSample(nil), r...)
		sort.SliceStable(ss, func(a, b int) bool { return ss[a].OffsetS < ss[b].OffsetS })
		for i, s := range ss {
			if !(s.Containers > 0) || math.IsInf(s.Containers, 0) || math.IsNaN(s.OffsetS) || math.IsInf(s.OffsetS, 0) || s.OffsetS < 0 {
				continue
			}
			until := s.OffsetS + stepS // the last sample holds one step, as in Quantise
			if i+1 < len(ss) {
				until = ss[i+1].OffsetS
			}
			first := int(math.Floor(s.OffsetS / stepS))
			m := float64(s.MemoryBytes) / s.Containers
			c := s.VCores / s.Containers
			okM := s.MemoryBytes > 0
			okC := s.VCores > 0 && !math.IsInf(c, 0)
			// Quantise's steps of the sample; one held for an instant (a
			// sample at the same offset follows) counts in its own step.
			for k := first; k < n && (float64(k)*stepS < until || k == first); k++ {
				if okM {
					memR[k] = max(memR[k], m)
				}
				if okC {
					coreR[k] = max(coreR[k], c)
				}
			}
			if okM {
				memAll = max(memAll, m)
			}
			if okC {
				coreAll = max(coreAll, c)
			}
		}
	}
	for k := 0; k < n; k++ {
		if memR[k] == 0 {
			memR[k] = memAll
		}
		if coreR[k] == 0 {
			coreR[k] = coreAll
		}
		mem[k] = int64(math.Ceil(memR[k] - 1e-6))
		milli[k] = int64(math.Ceil(coreR[k]*1000 - 1e-6))
	}
	return mem, milli
}
