// Package k8sworld generates a Kubernetes cluster's metrics history with
// known truth, as a Prometheus scraping cAdvisor and kube-state-metrics
// would hold it, in OpenMetrics text for promtool tsdb
// create-blocks-from openmetrics; and runs a Prometheus server on
// 127.0.0.1 over the blocks. The tests and the benchmark of ingest's
// prometheus formats read it through the server's API.
//
// The world: nodes of equal allocatable cores and memory; per tenant a
// namespace with one workload (a Deployment through its ReplicaSet, or a
// StatefulSet) whose replicas follow one pattern: periodic (a sine of
// Config.Period), constant, or unpredictable (a mean-reverting walk with
// bursts at random times); and CronJobs, each in its own namespace,
// starting a Job every CronPeriod whose pods run a fixed shape (CronShape:
// pods that each run a number of seconds from the Job's start). Scrapes
// are every Config.Scrape, offset by half a scrape from the minute (a
// pod started on the minute is first scraped half a scrape later, as a
// kubelet's scrape is not aligned with a CronJob's schedule).
package k8sworld

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"time"
)

// Pattern names, as the classify stage reports them.
const (
	Periodic      = "periodic"
	Constant      = "constant"
	Unpredictable = "unpredictable"
)

// Config describes a world.
type Config struct {
	Start    time.Time
	Duration time.Duration
	Scrape   time.Duration // scrape interval of cAdvisor (and of kube-state-metrics unless KSMScrape)
	// KSMScrape, a multiple of Scrape, is kube-state-metrics' interval
	// when it is scraped less often; 0: Scrape.
	KSMScrape time.Duration
	Seed      uint64

	Nodes      int
	NodeCores  float64
	NodeMemory float64 // bytes

	Tenants  int           // namespaces with a long-running workload; patterns cycle periodic, constant, unpredictable
	Replicas int           // pods (one container each) per workload
	Period   time.Duration // of the periodic tenants

	CronJobs   int
	CronPeriod time.Duration
	// CronShape: seconds each pod of a Job runs from the Job's start.
	CronShape []float64
	// Jobs are Jobs of their own (no CronJob owns them), one per namespace
	// batch-N, each started once, StandaloneStart after the world's start,
	// with the pods of CronShape.
	Jobs int
}

// StandaloneStart is when the Jobs of their own start, from the world's
// start.
const StandaloneStart = 30 * time.Minute

// Job is a Job of its own's truth.
type Job struct {
	Namespace, Name string
	ID              string // "namespace/Job/name": runs.job
	Container       string
}

// Small is a few days of a small cluster, for make test.
func Small() Config {
	return Config{
		Start: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), Duration: 4 * 24 * time.Hour, Scrape: 30 * time.Second, Seed: 1,
		Nodes: 4, NodeCores: 8, NodeMemory: 32 << 30,
		Tenants: 3, Replicas: 3, Period: 6 * time.Hour,
		CronJobs: 1, CronPeriod: time.Hour, CronShape: []float64{900, 900, 600, 600},
	}
}

// Month is a month of a thousand containers at one minute.
func Month() Config {
	c := Small()
	c.Duration, c.Scrape, c.KSMScrape = 30*24*time.Hour, time.Minute, 5*time.Minute
	c.Nodes, c.NodeCores, c.NodeMemory = 100, 32, 128<<30
	c.Tenants, c.Replicas, c.Period = 240, 4, 24*time.Hour
	c.CronJobs = 10
	return c
}

// Containers is how many containers run at once at most.
func (c Config) Containers() int { return c.Tenants*c.Replicas + c.CronJobs*len(c.CronShape) }

// Tenant is a namespace's truth.
type Tenant struct {
	Namespace string
	Workload  string // "namespace/Kind/name", the workload
	Container string // its pods' one container
	// Cores is one replica's level: a constant tenant's cores, the mean
	// of a periodic one's sine, the centre of an unpredictable one's walk
	// (before its bursts); its working set is 512 MiB + 256 MiB per core.
	Cores   float64
	Pattern string
	PeriodS float64 // 0 unless periodic
}

// CronJob is a CronJob's truth.
type CronJob struct {
	Namespace, Name string
	ID              string // "namespace/name": runs.job
	Container       string // its pods' one container (CronContainer)
	Runs            int    // Jobs started and finished in the world
	// Containers is the pods running in each step of CronStep seconds from
	// a Job's start, as the shape says; VCores and MemoryBytes what they
	// request.
	Containers  []float64
	VCores      []float64
	MemoryBytes []int64
}

// Cron pods' requests, and their container's name.
const (
	CronContainer = "etl"

	CronPodCores     = 0.5
	CronPodMemory    = 1 << 30
	CronPodUsedCores = 0.4
	// CronPodWorkingSet is what a cron pod's container uses, bytes.
	CronPodWorkingSet = 700 << 20
	longCores         = 1.0
	longMemory        = 2 << 30
)

// World is a generated world.
type World struct {
	c       Config
	tenants []Tenant
	cron    []CronJob
	jobs    []Job
	pods    []pod // long-running pods
	level   []float64
	ar      []float64 // walk state per unpredictable tenant
	burst   []int
	rng     *rand.Rand
	counter []float64 // cpu seconds per long-running pod
	at      time.Time // where the next Write continues
}

type pod struct {
	tenant              int
	ns, name, container string
	node                string
	ownerKind, owner    string
	rs                  string // its ReplicaSet, for Deployments
}

// New builds the world's objects; Write writes its samples.
func New(c Config) *World {
	w := &World{c: c, rng: rand.New(rand.NewPCG(c.Seed, 7)), at: c.Start}
	kinds := []string{Periodic, Constant, Unpredictable}
	for i := 0; i < c.Tenants; i++ {
		kind := kinds[i%3]
		var ns, wl, k string
		switch kind {
		case Periodic:
			ns, wl, k = fmt.Sprintf("web-%d", i), "frontend", "Deployment"
		case Constant:
			ns, wl, k = fmt.Sprintf("db-%d", i), "postgres", "StatefulSet"
		default:
			ns, wl, k = fmt.Sprintf("adhoc-%d", i), "explore", "Deployment"
		}
		t := Tenant{Namespace: ns, Workload: ns + "/" + k + "/" + wl, Container: wl, Pattern: kind}
		if kind == Periodic {
			t.PeriodS = c.Period.Seconds()
		}
		t.Cores = 0.5 + 1.5*w.rng.Float64()
		w.tenants = append(w.tenants, t)
		w.level = append(w.level, t.Cores)
		w.ar = append(w.ar, 0)
		w.burst = append(w.burst, 0)
		rs := fmt.Sprintf("%s-%x", wl, 0x5c4b3a2910+i)
		for r := 0; r < c.Replicas; r++ {
			p := pod{tenant: i, ns: ns, container: wl, node: w.node(i*c.Replicas + r)}
			if k == "StatefulSet" {
				p.name, p.ownerKind, p.owner = fmt.Sprintf("%s-%d", wl, r), "StatefulSet", wl
			} else {
				p.name, p.ownerKind, p.owner, p.rs = fmt.Sprintf("%s-%s", rs, suffix(uint64(i), uint64(r))), "ReplicaSet", rs, rs
			}
			w.pods = append(w.pods, p)
		}
	}
	w.counter = make([]float64, len(w.pods))
	longest := 0.0
	for _, s := range c.CronShape {
		longest = max(longest, s)
	}
	for j := 0; j < c.CronJobs; j++ {
		cj := CronJob{Namespace: fmt.Sprintf("etl-%d", j), Name: "hourly-etl", Container: CronContainer}
		cj.ID = cj.Namespace + "/" + cj.Name
		for t := c.Start; !t.Add(time.Duration(longest * float64(time.Second))).After(c.Start.Add(c.Duration)); t = t.Add(c.CronPeriod) {
			cj.Runs++
		}
		for s := 0.0; s < longest; s += 60 {
			n := 0.0
			for _, d := range c.CronShape {
				if s < d {
					n++
				}
			}
			cj.Containers = append(cj.Containers, n)
			cj.VCores = append(cj.VCores, n*CronPodCores)
			cj.MemoryBytes = append(cj.MemoryBytes, int64(n)*CronPodMemory)
		}
		w.cron = append(w.cron, cj)
	}
	for j := 0; j < c.Jobs; j++ {
		ns := fmt.Sprintf("batch-%d", j)
		w.jobs = append(w.jobs, Job{Namespace: ns, Name: "backfill", ID: ns + "/Job/backfill", Container: "backfill"})
	}
	return w
}

// Jobs is the truth per Job of its own.
func (w *World) Jobs() []Job { return w.jobs }

// CronStep is the step of CronJob.Containers, seconds.
const CronStep = 60

func (w *World) node(i int) string { return fmt.Sprintf("node-%03d", i%w.c.Nodes) }

// suffix is a pod name's random-looking tail, from its indices.
func suffix(a, b uint64) string {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d/%d", a, b)
	x := h.Sum64()
	const letters = "bcdfghjklmnpqrstvwxz2456789"
	out := make([]byte, 5)
	for i := range out {
		out[i] = letters[x%uint64(len(letters))]
		x /= uint64(len(letters))
	}
	return string(out)
}

// Tenants is the truth per namespace.
func (w *World) Tenants() []Tenant { return w.tenants }

// CronJobs is the truth per CronJob.
func (w *World) CronJobs() []CronJob { return w.cron }

// cores is one replica's cores at scrape k (the world's seconds sec) of
// tenant i; the walk advances once per scrape, so it is called in time
// order, once per tenant and scrape.
func (w *World) cores(i int, sec float64) float64 {
	t, lvl := w.tenants[i], w.level[i]
	switch t.Pattern {
	case Periodic:
		return lvl * (1 + 0.6*math.Sin(2*math.Pi*sec/t.PeriodS))
	case Constant:
		return lvl
	}
	// Unpredictable: AR(1) around the level with bursts of random length
	// at random times, about one every half day.
	w.ar[i] = 0.995*w.ar[i] + 0.03*w.rng.NormFloat64()
	v := lvl * math.Exp(w.ar[i])
	if w.burst[i] > 0 {
		w.burst[i]--
		v += 2
	} else if w.rng.Float64() < w.c.Scrape.Seconds()/43200 {
		w.burst[i] = 1 + w.rng.IntN(int(3*3600/w.c.Scrape.Seconds()))
	}
	return v
}

// noise is a deterministic small factor per pod and scrape.
func noise(p, k int) float64 {
	x := uint64(p)*0x9e3779b97f4a7c15 ^ uint64(k)*0xbf58476d1ce4e5b9
	x ^= x >> 31
	x *= 0x94d049bb133111eb
	x ^= x >> 29
	return 1 + 0.01*(float64(x%2001)/1000-1)
}

// Write writes the samples of [from, to) in OpenMetrics text, ending with
// "# EOF". Calls continue each other: from must be where the last ended.
func (w *World) Write(out io.Writer, to time.Time) error {
	from := w.at
	if end := w.c.Start.Add(w.c.Duration); to.After(end) {
		to = end
	}
	w.at = to
	bw := bufio.NewWriterSize(out, 1<<20)
	// Scrape times: the world's start + half a scrape + k scrapes.
	step := w.c.Scrape
	first := int((from.Sub(w.c.Start) + step - 1) / step)
	var ks []int
	var times []float64 // unix seconds
	for k := first; ; k++ {
		t := w.c.Start.Add(step/2 + time.Duration(k)*step)
		if !t.Before(to) {
			break
		}
		if t.Before(from) {
			continue
		}
		ks = append(ks, k)
		times = append(times, float64(t.UnixMilli())/1000)
	}
	every := 1
	if w.c.KSMScrape > w.c.Scrape {
		every = int(w.c.KSMScrape / w.c.Scrape)
	}
	var ksm []float64
	for j, k := range ks {
		if k%every == 0 {
			ksm = append(ksm, times[j])
		}
	}
	// One replica's cores per tenant and scrape, in time order.
	vals := make([][]float64, len(w.tenants))
	for i := range vals {
		vals[i] = make([]float64, len(ks))
	}
	for j, k := range ks {
		sec := step.Seconds()*float64(k) + step.Seconds()/2
		for i := range w.tenants {
			vals[i][j] = w.cores(i, sec)
		}
	}
	e := &emitter{w: bw}
	// Nodes.
	e.family("kube_node_status_allocatable", "gauge")
	for n := 0; n < w.c.Nodes; n++ {
		for _, r := range [][3]string{{"cpu", "core", fmtF(w.c.NodeCores)}, {"memory", "byte", fmtF(w.c.NodeMemory)}} {
			e.series(fmt.Sprintf(`kube_node_status_allocatable{node=%q,resource=%q,unit=%q}`, w.node(n), r[0], r[1]))
			for _, t := range ksm {
				e.sample(r[2], t)
			}
		}
	}
	cron := w.cronPods(times)
	// Pods: info, owner, requests (kube-state-metrics).
	e.family("kube_pod_info", "gauge")
	for _, p := range w.pods {
		e.constant(fmt.Sprintf(`kube_pod_info{namespace=%q,pod=%q,node=%q,created_by_kind=%q,created_by_name=%q}`, p.ns, p.name, p.node, p.ownerKind, p.owner), "1", ksm)
	}
	for _, c := range cron {
		e.span(fmt.Sprintf(`kube_pod_info{namespace=%q,pod=%q,node=%q,created_by_kind="Job",created_by_name=%q}`, c.ns, c.pod, c.node, c.job), "1", ksm, c.from, c.kubeTo)
	}
	e.family("kube_pod_owner", "gauge")
	for _, p := range w.pods {
		e.constant(fmt.Sprintf(`kube_pod_owner{namespace=%q,pod=%q,owner_kind=%q,owner_name=%q,owner_is_controller="true"}`, p.ns, p.name, p.ownerKind, p.owner), "1", ksm)
	}
	for _, c := range cron {
		e.span(fmt.Sprintf(`kube_pod_owner{namespace=%q,pod=%q,owner_kind="Job",owner_name=%q,owner_is_controller="true"}`, c.ns, c.pod, c.job), "1", ksm, c.from, c.kubeTo)
	}
	e.family("kube_replicaset_owner", "gauge")
	seen := map[string]bool{}
	for _, p := range w.pods {
		if p.rs != "" && !seen[p.ns+"/"+p.rs] {
			seen[p.ns+"/"+p.rs] = true
			e.constant(fmt.Sprintf(`kube_replicaset_owner{namespace=%q,replicaset=%q,owner_kind="Deployment",owner_name=%q,owner_is_controller="true"}`, p.ns, p.rs, p.container), "1", ksm)
		}
	}
	e.family("kube_job_owner", "gauge")
	jobs := map[string]*cronPod{}
	var jobKeys []string
	for i := range cron {
		c := &cron[i]
		k := c.ns + "/" + c.job
		if j, ok := jobs[k]; !ok {
			cp := *c
			jobs[k] = &cp
			jobKeys = append(jobKeys, k)
		} else {
			j.from, j.kubeTo = min(j.from, c.from), max(j.kubeTo, c.kubeTo)
		}
	}
	sort.Strings(jobKeys)
	for _, k := range jobKeys {
		j := jobs[k]
		if j.cronjob == "" {
			// kube-state-metrics' owner of a Job nothing owns.
			e.span(fmt.Sprintf(`kube_job_owner{namespace=%q,job_name=%q,owner_kind="<none>",owner_name="<none>",owner_is_controller="<none>"}`, j.ns, j.job), "1", ksm, j.from, j.kubeTo)
			continue
		}
		e.span(fmt.Sprintf(`kube_job_owner{namespace=%q,job_name=%q,owner_kind="CronJob",owner_name=%q,owner_is_controller="true"}`, j.ns, j.job, j.cronjob), "1", ksm, j.from, j.kubeTo)
	}
	e.family("kube_pod_container_resource_requests", "gauge")
	for _, p := range w.pods {
		for _, r := range [][3]string{{"cpu", "core", fmtF(longCores)}, {"memory", "byte", fmtF(longMemory)}} {
			e.constant(fmt.Sprintf(`kube_pod_container_resource_requests{namespace=%q,pod=%q,container=%q,node=%q,resource=%q,unit=%q}`, p.ns, p.pod(), p.container, p.node, r[0], r[1]), r[2], ksm)
		}
	}
	for _, c := range cron {
		for _, r := range [][3]string{{"cpu", "core", fmtF(CronPodCores)}, {"memory", "byte", fmtF(CronPodMemory)}} {
			e.span(fmt.Sprintf(`kube_pod_container_resource_requests{namespace=%q,pod=%q,container=%q,node=%q,resource=%q,unit=%q}`, c.ns, c.pod, c.container, c.node, r[0], r[1]), r[2], ksm, c.from, c.kubeTo)
		}
	}
	// cAdvisor.
	e.family("container_cpu_usage_seconds_total", "counter")
	for pi, p := range w.pods {
		e.series(fmt.Sprintf(`container_cpu_usage_seconds_total{namespace=%q,pod=%q,container=%q,node=%q}`, p.ns, p.name, p.container, p.node))
		for j, t := range times {
			w.counter[pi] += vals[p.tenant][j] * noise(pi, ks[j]) * step.Seconds()
			e.sample(fmtF(w.counter[pi]), t)
		}
	}
	for _, c := range cron {
		e.series(fmt.Sprintf(`container_cpu_usage_seconds_total{namespace=%q,pod=%q,container=%q,node=%q}`, c.ns, c.pod, c.container, c.node))
		for _, t := range times {
			if t >= c.from && t < c.to {
				e.sample(fmtF(CronPodUsedCores*(t-c.from)), t) // a counter from the pod's start
			}
		}
	}
	e.family("container_memory_working_set_bytes", "gauge")
	for pi, p := range w.pods {
		e.series(fmt.Sprintf(`container_memory_working_set_bytes{namespace=%q,pod=%q,container=%q,node=%q}`, p.ns, p.name, p.container, p.node))
		for j, t := range times {
			e.sample(fmtF(math.Round((512<<20+256<<20*vals[p.tenant][j])*noise(pi+7, ks[j]))), t)
		}
	}
	for _, c := range cron {
		e.span(fmt.Sprintf(`container_memory_working_set_bytes{namespace=%q,pod=%q,container=%q,node=%q}`, c.ns, c.pod, c.container, c.node), fmtF(CronPodWorkingSet), times, c.from, c.to)
	}
	if e.err == nil {
		_, e.err = bw.WriteString("# EOF\n")
	}
	if e.err != nil {
		return e.err
	}
	return bw.Flush()
}

func (p pod) pod() string { return p.name }

// cronPod is one pod of a Job within a Write's window: scraped while in
// [from, to) (unix seconds), shown by kube-state-metrics until kubeTo
// (completed pods stay listed a while after their containers are gone).
// cronjob is "" for a Job of its own.
type cronPod struct {
	ns, cronjob, job, container, pod, node string
	from, to, kubeTo                       float64
}

// cronPods lists the CronJobs' pods, and those of the Jobs of their own,
// that overlap the window of times.
func (w *World) cronPods(times []float64) []cronPod {
	if len(times) == 0 {
		return nil
	}
	lo, hi := times[0], times[len(times)-1]
	var out []cronPod
	end := float64(w.c.Start.Add(w.c.Duration).Unix())
	for ci, cj := range w.cron {
		for r, t := 0, w.c.Start; t.Before(w.c.Start.Add(w.c.Duration)); r, t = r+1, t.Add(w.c.CronPeriod) {
			s := float64(t.Unix())
			job := fmt.Sprintf("%s-%d", cj.Name, t.Unix()/60)
			for i, d := range w.c.CronShape {
				c := cronPod{ns: cj.Namespace, cronjob: cj.Name, job: job, container: cj.Container, pod: job + "-" + suffix(uint64(r), uint64(i)),
					node: w.node(ci*7 + r*len(w.c.CronShape) + i), from: s, to: math.Min(s+d, end), kubeTo: math.Min(s+d+300, end)}
				if c.kubeTo < lo || c.from > hi {
					continue
				}
				out = append(out, c)
			}
		}
	}
	for ji, j := range w.jobs {
		s := float64(w.c.Start.Add(StandaloneStart).Unix())
		for i, d := range w.c.CronShape {
			c := cronPod{ns: j.Namespace, job: j.Name, container: j.Container, pod: j.Name + "-" + suffix(uint64(1000+ji), uint64(i)),
				node: w.node(ji*3 + i), from: s, to: math.Min(s+d, end), kubeTo: math.Min(s+d+300, end)}
			if c.kubeTo < lo || c.from > hi {
				continue
			}
			out = append(out, c)
		}
	}
	return out
}

// emitter writes OpenMetrics lines.
type emitter struct {
	w    *bufio.Writer
	err  error
	name string
	buf  []byte
}

func (e *emitter) family(name, typ string) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, "# TYPE %s %s\n", name, typ)
	}
}

func (e *emitter) series(name string) { e.name = name }

func (e *emitter) sample(v string, t float64) {
	if e.err != nil {
		return
	}
	e.buf = append(e.buf[:0], e.name...)
	e.buf = append(e.buf, ' ')
	e.buf = append(e.buf, v...)
	e.buf = append(e.buf, ' ')
	e.buf = strconv.AppendFloat(e.buf, t, 'f', -1, 64)
	e.buf = append(e.buf, '\n')
	_, e.err = e.w.Write(e.buf)
}

func (e *emitter) constant(name, v string, times []float64) {
	e.series(name)
	for _, t := range times {
		e.sample(v, t)
	}
}

func (e *emitter) span(name, v string, times []float64, from, to float64) {
	e.series(name)
	for _, t := range times {
		if t >= from && t < to {
			e.sample(v, t)
		}
	}
}

func fmtF(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Config is the world's configuration.
func (w *World) Config() Config { return w.c }
