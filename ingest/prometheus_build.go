package ingest

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// promCollector joins the responses of one Prometheus ingest into the
// dataset's tables: label roles into maps, then the series roles chunk by
// chunk into usage rows (memory bounded by a chunk of the grid) and into
// the traces of Jobs' pods, written as runs, skylines and instances at the
// end. Mapping decisions: the format's specification (format_prometheus.go).
type promCollector struct {
	s       *sink
	key     string // namespace or workload
	format  string
	stepMs  int64
	lstepMs int64
	startMs int64 // the range's first point
	endMs   int64 // its last point (on the grid)

	nodeCPU, nodeMem map[string][]promTV
	pods             map[string]*promPod // namespace/pod
	rsOwner          map[string]promRef  // namespace/replicaset → owner
	jobOwner         map[string]promRef  // namespace/job → owner
	resolved         bool

	chunk   [2]int64 // the grid chunk being summed, [first, last] point
	tn      map[[2]string]int
	tnKeys  [][2]string
	grid    []promGridRow
	memOnly int64 // tenant×node points with memory but no cpu rate
	idle    map[string]*promIdle
	zeros   int64 // idle rows written
	// nodeEvents are the machine_events rows written (writeNodes).
	nodeEvents int64
	clamped    int64 // utilisation values clamped to 1
	rejectBy   map[string]int64
	pieces     int64 // responses read
	// lastSeries is the most series a piece of the current chunk had,
	// which sizes the next chunk (promFetchAll).
	lastSeries int64

	warned         map[string]bool // server warnings noted
	rejectedSeries map[string]bool // role+labels of series rejected whole
	againPoints    int64           // their points in later chunks
}

// promIdle is a tenant's last point with a usage row and the node of that
// row (the first by name when it had several).
type promIdle struct {
	lastMs   int64
	lastNode string
	points   []promMark // this chunk's points with a row
}

// promMark is one point where a tenant had a row, on one node.
type promMark struct {
	ms   int64
	node string
}

type promTV struct {
	Ms int64
	V  float64
}

type promRef struct{ Kind, Name string }

type promPod struct {
	NS, Name, Node string
	Owner          promRef
	Requests       map[string][2]float64 // container → cpu cores, memory bytes
	tenant         string                // the namespace, or the workload (without the container)
	containers     map[string]bool       // a Job's pod: the containers its series named
	job, run       string                // the runs.job and runs.run of a Job's pod; "" otherwise
	trace          map[int64]*promPodPoint
}

type promPodPoint struct {
	Cores, Bytes float64
	Present      bool // a memory point: the pod was there
}

// promGridRow is one tenant on one node over the current chunk.
type promGridRow struct {
	cpu, mem []float64
	has      []uint8 // 1: a cpu rate, 2: a memory point
}

func newPromCollector(s *sink, format string, step time.Duration, start, end time.Time) *promCollector {
	key, note := tenantKey(format, s.opts)
	if note != "" {
		s.notes = append(s.notes, note)
	}
	stepMs := step.Milliseconds()
	startMs := start.UnixMilli()
	n := (end.UnixMilli() - startMs) / stepMs
	return &promCollector{s: s, key: key, format: format, stepMs: stepMs, lstepMs: labelStep(step).Milliseconds(),
		startMs: startMs, endMs: startMs + n*stepMs,
		nodeCPU: map[string][]promTV{}, nodeMem: map[string][]promTV{}, pods: map[string]*promPod{},
		rsOwner: map[string]promRef{}, jobOwner: map[string]promRef{}, tn: map[[2]string]int{}, rejectBy: map[string]int64{},
		idle: map[string]*promIdle{}, rejectedSeries: map[string]bool{}, warned: map[string]bool{}}
}

// rejectSeries rejects one series of a response.
func (c *promCollector) rejectSeries(file string, line int64, m map[string]string, why string) error {
	c.rejectBy[why]++
	return c.s.reject(&ParseError{File: file, Line: line, Err: fmt.Errorf("%s", why), Record: recordText([]byte(labelsText(m)))})
}

// rejectOnce rejects a whole series that cannot be mapped the first time
// it comes; its later chunks (the same labels, the same reason) are
// counted in a note instead of rejecting it again, so a month in 30 chunks
// does not reach --max-rejects thirty times as fast.
func (c *promCollector) rejectOnce(role, file string, line int64, sr *promSeries, why string) error {
	k := role + labelsText(sr.Metric)
	if c.rejectedSeries[k] {
		c.againPoints += int64(len(sr.Values))
		return nil
	}
	c.rejectedSeries[k] = true
	return c.rejectSeries(file, line, sr.Metric, why)
}

// need returns the labels of m named, or the first missing one.
func need(m map[string]string, names ...string) ([]string, string) {
	out := make([]string, len(names))
	for i, n := range names {
		v, ok := m[n]
		if !ok || v == "" {
			return nil, n
		}
		out[i] = v
	}
	return out, ""
}

// addLabels reads one response of a label role.
func (c *promCollector) addLabels(role string, r *promResponse, file string, line int64) error {
	if c.resolved {
		return fmt.Errorf("%s:%d: a %s response after the series responses: label roles must come first (as --save writes them)", file, line, role)
	}
	for i := range r.Data.Result {
		sr := &r.Data.Result[i]
		var names []string
		switch role {
		case "node_cpu", "node_memory":
			names = []string{"node"}
		case "pod_info":
			names = []string{"namespace", "pod", "node"}
		case "pod_owner":
			names = []string{"namespace", "pod", "owner_kind", "owner_name"}
		case "replicaset_owner":
			names = []string{"namespace", "replicaset", "owner_kind", "owner_name"}
		case "job_owner":
			names = []string{"namespace", "job_name", "owner_kind", "owner_name"}
		case "requests":
			names = []string{"namespace", "pod", "container", "resource"}
		}
		l, missing := need(sr.Metric, names...)
		if missing != "" {
			if role == "pod_owner" && (missing == "owner_kind" || missing == "owner_name") {
				// kube-state-metrics writes <none> for a pod without an
				// owner; an empty label is the same.
				l, missing = need(sr.Metric, "namespace", "pod")
				l = append(l, "<none>", "<none>")
			}
			if missing != "" {
				if err := c.rejectSeries(file, line, sr.Metric, fmt.Sprintf("%s series without label %s", role, missing)); err != nil {
					return err
				}
				continue
			}
		}
		// Values: label roles need presence (and node_*, requests the
		// number); a bad value is a reject of its point.
		var vals []promTV
		for _, p := range sr.Values {
			v, err := p.value()
			if err != nil {
				if err := c.rejectSeries(file, line, sr.Metric, fmt.Sprintf("%s at %d ms: %v", role, p.Ms, err)); err != nil {
					return err
				}
				continue
			}
			vals = append(vals, promTV{p.Ms, v})
		}
		if len(vals) == 0 {
			continue
		}
		switch role {
		case "node_cpu":
			c.nodeCPU[l[0]] = append(c.nodeCPU[l[0]], vals...)
		case "node_memory":
			c.nodeMem[l[0]] = append(c.nodeMem[l[0]], vals...)
		case "pod_info":
			c.pod(l[0], l[1]).Node = l[2]
		case "pod_owner":
			p := c.pod(l[0], l[1])
			if l[2] != "<none>" || p.Owner.Kind == "" {
				p.Owner = promRef{l[2], l[3]}
			}
		case "replicaset_owner":
			if l[2] != "<none>" {
				c.rsOwner[l[0]+"/"+l[1]] = promRef{l[2], l[3]}
			}
		case "job_owner":
			if l[2] != "<none>" {
				c.jobOwner[l[0]+"/"+l[1]] = promRef{l[2], l[3]}
			}
		case "requests":
			p := c.pod(l[0], l[1])
			if p.Requests == nil {
				p.Requests = map[string][2]float64{}
			}
			q := p.Requests[l[2]]
			most := 0.0
			for _, tv := range vals {
				most = max(most, tv.V)
			}
			switch l[3] {
			case "cpu":
				q[0] = max(q[0], most)
			case "memory":
				q[1] = max(q[1], most)
			}
			p.Requests[l[2]] = q
		}
	}
	return nil
}

func (c *promCollector) pod(ns, name string) *promPod {
	k := ns + "/" + name
	p := c.pods[k]
	if p == nil {
		p = &promPod{NS: ns, Name: name}
		c.pods[k] = p
	}
	return p
}

// resolve fixes every pod's tenant and job once the label roles are in.
func (c *promCollector) resolve() {
	if c.resolved {
		return
	}
	c.resolved = true
	for _, m := range []map[string][]promTV{c.nodeCPU, c.nodeMem} {
		for _, v := range m {
			sort.SliceStable(v, func(i, j int) bool { return v[i].Ms < v[j].Ms })
		}
	}
	for _, p := range c.pods {
		c.resolvePod(p)
	}
}

// resolvePod fixes p's tenant and, for a Job's pod, its job and run.
func (c *promCollector) resolvePod(p *promPod) {
	w := p.Owner
	switch w.Kind {
	case "", "<none>":
		w = promRef{"Pod", p.Name}
	case "ReplicaSet":
		if o, ok := c.rsOwner[p.NS+"/"+w.Name]; ok && o.Kind == "Deployment" {
			w = o
		}
	case "Job":
		o, ok := c.jobOwner[p.NS+"/"+w.Name]
		p.run = p.NS + "/" + w.Name
		if ok && o.Kind == "CronJob" {
			w = o
			p.job = p.NS + "/" + o.Name
		} else {
			// A Job of its own says its kind, so that it is not taken for
			// a CronJob of that name (which wlprof export kubernetes would
			// patch, and which does not exist).
			p.job = p.NS + "/Job/" + normaliseJobName(w.Name)
		}
		p.trace = map[int64]*promPodPoint{}
		p.containers = map[string]bool{}
	}
	if c.key == "workload" {
		p.tenant = p.NS + "/" + w.Kind + "/" + w.Name
	} else {
		p.tenant = p.NS
	}
}

// at is the value of a step-sampled series (label step) at ms: the first
// point at or after it (its window covers ms), else the last one.
func at(v []promTV, ms int64) (float64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	i := sort.Search(len(v), func(i int) bool { return v[i].Ms >= ms })
	if i == len(v) {
		i--
	}
	return v[i].V, true
}

// addSeries reads one response of a series role, for the chunk
// [first, last] of the grid.
func (c *promCollector) addSeries(role string, r *promResponse, file string, line int64, chunk [2]int64) error {
	c.resolve()
	if chunk != c.chunk {
		if err := c.flush(); err != nil {
			return err
		}
		c.chunk = chunk
	}
	n := int((chunk[1]-chunk[0])/c.stepMs) + 1
	c.lastSeries = max(c.lastSeries, int64(len(r.Data.Result)))
	for i := range r.Data.Result {
		sr := &r.Data.Result[i]
		l, missing := need(sr.Metric, "namespace", "pod", "container")
		if missing != "" {
			if err := c.rejectSeries(file, line, sr.Metric, fmt.Sprintf("%s series without label %s", role, missing)); err != nil {
				return err
			}
			continue
		}
		p := c.pods[l[0]+"/"+l[1]]
		// The series' own node label (kubelet's cAdvisor is scraped per
		// node) wins over kube_pod_info's: a StatefulSet's pod keeps its
		// name when it is recreated on another node.
		node := sr.Metric["node"]
		if p == nil && node != "" {
			p = c.pod(l[0], l[1])
			c.resolvePod(p)
		}
		if p != nil && node == "" {
			node = p.Node
		}
		if p != nil && p.Node == "" {
			p.Node = node // for its instance row
		}
		if node == "" {
			if err := c.rejectOnce(role, file, line, sr, fmt.Sprintf("%s series of pod %s/%s, which has no node label and no kube_pod_info (pod_info) with a node: its server is unknown", role, l[0], l[1])); err != nil {
				return err
			}
			continue
		}
		alloc := c.nodeCPU
		if role == "memory" {
			alloc = c.nodeMem
		}
		if len(alloc[node]) == 0 {
			if err := c.rejectOnce(role, file, line, sr, fmt.Sprintf("%s series on node %s, which has no allocatable %s (node_%s): utilisation has no denominator", role, node, role, role)); err != nil {
				return err
			}
			continue
		}
		// A workload's tenant is one of its containers: requests are set
		// per container, and a pod's containers summed would give one
		// container the others' usage.
		tenant := p.tenant
		if c.key == "workload" {
			tenant += "/" + l[2]
		}
		if p.containers != nil {
			p.containers[l[2]] = true
		}
		row := c.row(tenant, node, n)
		bit := uint8(1)
		if role == "memory" {
			bit = 2
		}
		for _, pt := range sr.Values {
			k := pt.Ms - chunk[0]
			if k < 0 || pt.Ms > chunk[1] || k%c.stepMs != 0 {
				if err := c.rejectSeries(file, line, sr.Metric, fmt.Sprintf("%s point at %d ms: off the query's grid [%d, %d] step %d ms", role, pt.Ms, chunk[0], chunk[1], c.stepMs)); err != nil {
					return err
				}
				continue
			}
			v, err := pt.value()
			if err == nil && v < 0 {
				err = fmt.Errorf("value %s: negative", pt.V)
			}
			if err != nil {
				if err := c.rejectSeries(file, line, sr.Metric, fmt.Sprintf("%s at %d ms: %v", role, pt.Ms, err)); err != nil {
					return err
				}
				continue
			}
			j := int(k / c.stepMs)
			if role == "memory" {
				row.mem[j] += v
			} else {
				row.cpu[j] += v
			}
			row.has[j] |= bit
			if p.trace != nil {
				q := p.trace[pt.Ms]
				if q == nil {
					q = &promPodPoint{}
					p.trace[pt.Ms] = q
				}
				if role == "memory" {
					q.Bytes += v
					q.Present = true
				} else {
					q.Cores += v
				}
			}
		}
	}
	return nil
}

// row is the grid row of tenant on node for this chunk.
func (c *promCollector) row(tenant, node string, n int) *promGridRow {
	k := [2]string{tenant, node}
	i, ok := c.tn[k]
	if !ok {
		i = len(c.tnKeys)
		c.tn[k] = i
		c.tnKeys = append(c.tnKeys, k)
	}
	for len(c.grid) <= i {
		c.grid = append(c.grid, promGridRow{})
	}
	g := &c.grid[i]
	if len(g.has) != n {
		g.cpu, g.mem, g.has = make([]float64, n), make([]float64, n), make([]uint8, n)
	}
	return g
}

// flush writes the chunk's usage rows, tenant by node by time, and clears
// the grid.
func (c *promCollector) flush() error {
	order := make([]int, 0, len(c.tnKeys))
	for i := range c.tnKeys {
		order = append(order, i)
	}
	sort.Slice(order, func(a, b int) bool {
		ka, kb := c.tnKeys[order[a]], c.tnKeys[order[b]]
		if ka[0] != kb[0] {
			return ka[0] < kb[0]
		}
		return ka[1] < kb[1]
	})
	w := c.s.tx.Usage()
	var u dataset.Usage
	for _, i := range order {
		g := &c.grid[i]
		if len(g.has) == 0 {
			continue
		}
		u.Tenant, u.Server = c.tnKeys[i][0], c.tnKeys[i][1]
		for j, h := range g.has {
			if h == 0 {
				continue
			}
			if h&1 == 0 {
				c.memOnly++
				continue
			}
			ms := c.chunk[0] + int64(j)*c.stepMs
			c.mark(u.Tenant, u.Server, ms)
			u.TimeMs = ms
			cores, _ := at(c.nodeCPU[u.Server], ms)
			u.CPU = c.fraction(g.cpu[j], cores)
			u.Memory = math.NaN()
			if h&2 != 0 {
				if mem, ok := at(c.nodeMem[u.Server], ms); ok {
					u.Memory = c.fraction(g.mem[j], mem)
				}
			}
			if err := w.Append(&u); err != nil {
				if err := c.s.appendErr(err, 0); err != nil {
					return err
				}
				continue
			}
			c.s.accepted++
			c.s.res.Accepted++
		}
		clear(g.cpu)
		clear(g.mem)
		clear(g.has)
	}
	return c.writeIdle(w)
}

// mark notes that tenant has a usage row on node at ms.
func (c *promCollector) mark(tenant, node string, ms int64) {
	d := c.idle[tenant]
	if d == nil {
		d = &promIdle{lastMs: dataset.NoTime}
		c.idle[tenant] = d
	}
	d.points = append(d.points, promMark{ms, node})
}

// writeIdle writes, for every tenant, a row of 0 (cpu and memory) at each
// point between two of its points with rows where none of its containers
// ran anywhere: a namespace of CronJobs uses nothing between its runs,
// which an absent row would leave unknown (and classify would find too
// sparse). The row is on the node of the tenant's last row before the gap
// (the first by name at that point): the tenant did use 0 of that node,
// and a real node keeps every reader's count of the tenant's servers what
// the tenant ran on (a row on a made-up server was one server more in
// classify's counts, harvest's replay and placement). wlprof export
// kubernetes tells these rows by their 0 memory: a running container's
// working set is never 0 bytes. Before its first point and after its
// last, nothing is written: it did not exist, or no longer does.
func (c *promCollector) writeIdle(w *dataset.Writer[dataset.Usage]) error {
	names := make([]string, 0, len(c.idle))
	for n, d := range c.idle {
		if len(d.points) > 0 {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var u dataset.Usage
	for _, n := range names {
		d := c.idle[n]
		sort.Slice(d.points, func(i, j int) bool {
			a, b := d.points[i], d.points[j]
			return a.ms < b.ms || a.ms == b.ms && a.node < b.node
		})
		u.Tenant = n
		for _, p := range d.points {
			if p.ms == d.lastMs {
				continue // another node at the same point
			}
			if d.lastMs != dataset.NoTime {
				u.Server = d.lastNode
				for z := d.lastMs + c.stepMs; z < p.ms; z += c.stepMs {
					u.TimeMs = z
					if err := c.put(w.Append(&u)); err != nil {
						return err
					}
					c.zeros++
				}
			}
			d.lastMs, d.lastNode = p.ms, p.node
		}
		d.points = d.points[:0]
	}
	return nil
}

// fraction is used over allocatable, in [0,1].
func (c *promCollector) fraction(used, alloc float64) float64 {
	if alloc <= 0 {
		c.clamped++
		return 1
	}
	f := used / alloc
	if f > 1 {
		c.clamped++
		return 1
	}
	return f
}

// finish writes the last chunk, the Jobs' runs, skylines and instances,
// and the notes.
func (c *promCollector) finish(ctx context.Context) error {
	c.resolve()
	if err := c.flush(); err != nil {
		return err
	}
	if err := c.writeJobs(ctx); err != nil {
		return err
	}
	if err := c.writeNodes(ctx); err != nil {
		return err
	}
	if c.memOnly > 0 {
		c.s.notes = append(c.s.notes, fmt.Sprintf("tenant×node points with a memory sample but no cpu rate (a container's first scrape), not written as usage: %d", c.memOnly))
	}
	if c.againPoints > 0 {
		c.s.notes = append(c.s.notes, fmt.Sprintf("points of rejected series in later chunks (the series is rejected once): %d", c.againPoints))
	}
	if c.zeros > 0 {
		c.s.notes = append(c.s.notes, fmt.Sprintf("points where a tenant ran nowhere between two where it ran, written as 0 (cpu and memory) on the node it last ran on: %d", c.zeros))
	}
	if c.nodeEvents > 0 {
		c.s.notes = append(c.s.notes, fmt.Sprintf("nodes' allocatable written as machine_events (cpus in cores, memory in bytes): %d rows", c.nodeEvents))
	}
	if c.clamped > 0 {
		c.s.notes = append(c.s.notes, fmt.Sprintf("utilisation above the node's allocatable, written as 1: %d values", c.clamped))
	}
	whys := make([]string, 0, len(c.rejectBy))
	for w := range c.rejectBy {
		whys = append(whys, w)
	}
	sort.Strings(whys)
	if len(whys) > 0 {
		c.s.notes = append(c.s.notes, fmt.Sprintf("rejected series or points: %d kinds (see wlprof rejects)", len(whys)))
	}
	return nil
}
