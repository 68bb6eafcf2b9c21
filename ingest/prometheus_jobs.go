package ingest

import (
	"context"
	"math"
	"sort"
	"strings"

	"github.com/wlprof/wlprof/dataset"
)

// promRun is one Job's pods.
type promRun struct {
	job, run, ns, name string
	pods               []*promPod
}

// writeJobs writes one run per Job with pods seen, its skyline and its
// pods as instances.
func (c *promCollector) writeJobs(ctx context.Context) error {
	runs := map[string]*promRun{}
	for _, p := range c.pods {
		if p.trace == nil || len(p.trace) == 0 {
			continue
		}
		r := runs[p.run]
		if r == nil {
			r = &promRun{job: p.job, run: p.run, ns: p.NS, name: p.Owner.Name}
			runs[p.run] = r
		}
		r.pods = append(r.pods, p)
	}
	ids := make([]string, 0, len(runs))
	for id := range runs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	rw, sw, iw := c.s.tx.Runs(), c.s.tx.Skylines(), c.s.tx.Instances()
	for _, id := range ids {
		if err := ctx.Err(); err != nil {
			return err
		}
		r := runs[id]
		sort.Slice(r.pods, func(i, j int) bool { return r.pods[i].Name < r.pods[j].Name })
		first, last := int64(math.MaxInt64), int64(math.MinInt64)
		held := map[int64]*dataset.SkylineSample{}
		var insts []dataset.Instance
		for _, p := range r.pods {
			pf, pl := int64(math.MaxInt64), int64(math.MinInt64)
			var reqCPU, reqMem float64
			for _, q := range p.Requests {
				reqCPU += q[0]
				reqMem += q[1]
			}
			var sumCores, maxCores, sumMem, maxMem float64
			var nPresent int
			times := make([]int64, 0, len(p.trace))
			for ms := range p.trace {
				times = append(times, ms)
			}
			sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
			for _, ms := range times {
				q := p.trace[ms]
				if !q.Present {
					continue
				}
				nPresent++
				pf, pl = min(pf, ms), max(pl, ms)
				h := held[ms]
				if h == nil {
					h = &dataset.SkylineSample{}
					held[ms] = h
				}
				h.Containers++
				cores, bytes := q.Cores, q.Bytes
				if reqCPU > 0 {
					cores = reqCPU
				}
				if reqMem > 0 {
					bytes = reqMem
				}
				h.VCores += cores
				h.MemoryBytes += int64(math.Round(bytes))
				alloc, _ := at(c.nodeMem[p.Node], ms)
				frac := math.NaN()
				if alloc > 0 {
					frac = q.Bytes / alloc
				}
				sumCores += q.Cores
				maxCores = max(maxCores, q.Cores)
				sumMem += frac
				maxMem = max(maxMem, frac)
			}
			if nPresent == 0 {
				continue // cpu points only: the pod's memory was never seen
			}
			first, last = min(first, pf), max(last, pl)
			end := pl
			if pl >= c.endMs {
				end = dataset.NoTime
			}
			insts = append(insts, dataset.Instance{Job: r.job, Stage: r.run, Task: podContainers(p), Instance: p.Name,
				Status: status(end), StartMs: pf - c.stepMs, EndMs: end, Machine: p.Node,
				CPUAvg: sumCores / float64(nPresent), CPUMax: maxCores, MemAvg: sumMem / float64(nPresent), MemMax: maxMem, Source: c.format})
		}
		if len(insts) == 0 {
			continue
		}
		end := last
		if last >= c.endMs {
			end = dataset.NoTime
		}
		run := dataset.Run{Job: r.job, Run: r.run, Name: r.name, User: r.ns, Queue: r.ns, Status: status(end),
			SubmitMs: first - c.stepMs, StartMs: first - c.stepMs, EndMs: end, Source: c.format}
		if err := c.put(rw.Append(&run)); err != nil {
			return err
		}
		// The skyline on the grid from the run's start: a point at t
		// holds for the step before it, [t − step, t), so offset 0 is the
		// first point's step; a change point where the pods held change,
		// and 0 at the run's end.
		var prev dataset.SkylineSample
		samples := 0
		for ms := first - c.stepMs; ms <= last; ms += c.stepMs {
			cur := dataset.SkylineSample{Job: r.job, Run: r.run, OffsetS: float64(ms-(first-c.stepMs)) / 1000}
			// ms is the start of the step that the point at ms+step holds.
			if h := held[ms+c.stepMs]; h != nil {
				cur.Containers, cur.MemoryBytes, cur.VCores = h.Containers, h.MemoryBytes, h.VCores
			}
			if samples > 0 && cur.Containers == prev.Containers && cur.MemoryBytes == prev.MemoryBytes && cur.VCores == prev.VCores {
				continue
			}
			if ms >= last && end == dataset.NoTime {
				break // still running: no closing 0
			}
			if err := c.put(sw.Append(&cur)); err != nil {
				return err
			}
			prev = cur
			samples++
		}
		for i := range insts {
			if err := c.put(iw.Append(&insts[i])); err != nil {
				return err
			}
		}
	}
	return nil
}

// podContainers is an instance's task: the pod's containers by name,
// joined with ",", which no Kubernetes name holds. The pods of a Job share
// their template, so the task is the same kind of work across its pods,
// as a task name is in other traces; and it is what names the container
// wlprof export kubernetes sets from these pods.
func podContainers(p *promPod) string {
	names := make([]string, 0, len(p.containers))
	for n := range p.containers {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ",")
}

func status(end int64) string {
	if end == dataset.NoTime {
		return "RUNNING"
	}
	return "FINISHED"
}

// put counts an appended row, or rejects it when a string was refused.
func (c *promCollector) put(err error) error {
	if err != nil {
		return c.s.appendErr(err, 0)
	}
	c.s.accepted++
	c.s.res.Accepted++
	return nil
}
