// Formats "prometheus" and "prometheus-json": Kubernetes clusters as
// Prometheus records them (cAdvisor's container metrics, kube-state-metrics'
// objects and owners).
//
// prometheus reads a Prometheus server's HTTP API (GET /api/v1/query_range,
// Options.Prometheus: --url, --start, --end, --step, --query ROLE=EXPR);
// prometheus-json reads the same responses saved to a file (--save FILE
// writes it while the server is read): JSON lines, the first a header
// {"format":"wlprof-prometheus-json","version":1,"url","start_ms",
// "end_ms","step_s","label_step_s","queries"} and then one line per query
// answered, {"role","query","start_ms","end_ms","step_s","chunk",
// "response"} (chunk: the series chunk [first, last] in ms a series
// role's piece belongs to, [0,0] for label roles), response being the
// server's body as it came
// ({"status":"success","data":{"resultType":"matrix","result":[{"metric":
// {...},"values":[[t,"v"],...]}]}}). Label roles come before series roles
// (a file where they do not is refused: its joins could not be made).
//
// # Roles and their default queries
//
// Series roles, queried at the step (default 1m):
//
//	cpu          rate(container_cpu_usage_seconds_total{container!="",container!="POD",pod!=""}[$__rate_interval])
//	memory       max_over_time(container_memory_working_set_bytes{container!="",container!="POD",pod!=""}[$__interval])
//
// Label roles, queried at the label step (max(step, 1h)): who owns what
// and where it runs, which changes rarely.
//
//	node_cpu          max_over_time(kube_node_status_allocatable{resource="cpu"}[$__interval])
//	node_memory       max_over_time(kube_node_status_allocatable{resource="memory"}[$__interval])
//	pod_info          max_over_time(kube_pod_info[$__interval])              pod → node
//	pod_owner         max_over_time(kube_pod_owner[$__interval])             pod → ReplicaSet, Job, StatefulSet, DaemonSet, ...
//	replicaset_owner  max_over_time(kube_replicaset_owner[$__interval])      ReplicaSet → Deployment
//	job_owner         max_over_time(kube_job_owner[$__interval])             Job → CronJob
//	requests          max_over_time(kube_pod_container_resource_requests[$__interval])
//
// $__interval is the query's step less 1 ms, so a point at t stands for
// the samples of (t − step, t]: a series is present at t exactly when it
// was scraped in the step before (a pod's end is seen at the step it ended,
// not up to five minutes later as Prometheus' lookback would show a
// backfilled gauge). $__rate_interval is max(2 × step, 1m): rate needs two
// samples in its window. The step must be at least the scrape interval,
// else a scraped series shows gaps. Series are matched by their labels,
// never by __name__ (rate and max_over_time drop it): cpu and memory need
// namespace, pod and container; node_cpu and node_memory node; pod_info
// namespace, pod and node; pod_owner namespace, pod, owner_kind and
// owner_name; replicaset_owner namespace, replicaset, owner_kind and
// owner_name; job_owner namespace, job_name, owner_kind and owner_name;
// requests namespace, pod, container and resource ("cpu" in cores,
// "memory" in bytes). A series without them is a reject.
//
// Long ranges are split so that no query asks for more than
// promChunkPoints (1,440) points per series (Prometheus refuses more than
// 11,000), and, once a first chunk of 60 points shows how many series
// there are, no more than about promMaxPoints (2 million) points in all,
// so memory stays bounded however large the cluster;
// a query the server still refuses as too large (400/422 "exceeded
// maximum resolution", "query processing would load too many samples") is
// split in halves down to one point. 429, 503 and connection errors are
// retried (Options.Prometheus.Retries, 5; backoff from 0.5 s doubling, at
// most 8 s); any other refusal, or a body with "status":"error", stops the
// ingest with the server's errorType and error.
//
// # What maps to what
//
//   - A server is a node: the container series' own node label when it
//     has one (kubelet's cAdvisor, scraped per node), else kube_pod_info's
//     (a pod recreated under its name on another node, as a StatefulSet's
//     is, is placed by its latest pod_info only). Utilisation (usage
//     table) is per tenant, node and point: cpu = the cores its
//     containers on the node used (cpu role)
//     over the node's allocatable cores (node_cpu at that time), memory =
//     their working-set bytes over the node's allocatable memory; both
//     clamped to 1 (the count is a note: allocatable is the capacity less
//     what the kubelet reserves, which a node can exceed). A point where a
//     tenant's containers on a node have a memory sample but no cpu rate (a
//     container's first scrape) is not a usage row (counted in a note).
//     Between two points where a tenant has rows, a point where none of
//     its containers ran anywhere is a row of 0 (cpu and memory) on the
//     node of its last row before (the first by name when it had several):
//     a namespace of CronJobs uses nothing between its runs, which no row
//     at all would leave unknown (too sparse to classify), and it did use
//     0 of that node; on a real node the row adds no server to any
//     reader's count of the tenant's servers (wlprof before wrote it on a
//     server "<none>", one server more for classify, harvest and
//     placement). No running container has a working set of 0 bytes, so a
//     reader tells these rows by cpu = memory = 0 (wlprof export
//     kubernetes does). Before a tenant's first point and after its last
//     nothing is written.
//   - A node's allocatable is a machine_events row (type ADD, cpus in
//     cores, memory in bytes, source the format) at the first point of
//     the series grid in the label window it is first seen in, and an
//     UPDATE where either changes; no REMOVE (a node taken out and a gap
//     in kube-state-metrics' scrapes look alike, and a REMOVE is what the
//     placement stage counts as a reimage). A node the dataset's machine
//     history already has (an earlier ingest) gets an UPDATE instead of a
//     second ADD, and a change before its latest event there is left out
//     (counted in a note). wlprof export kubernetes and the report take
//     node shapes from these rows.
//   - A tenant is a namespace (--tenant-key namespace, the default) or a
//     workload's container (--tenant-key workload):
//     "namespace/Kind/name/container", Kind/name the pod's controller, a
//     ReplicaSet's Deployment when it has one, a Job's CronJob when it has
//     one; StatefulSet, DaemonSet, a ReplicaSet or Job of its own
//     likewise; a pod without an owner is "namespace/Pod/name/container".
//     The container is always named, not only where a workload has
//     several: requests are set per container (a pod's containers summed
//     would give one container the others' usage), and whether a workload
//     has several is known only at the end of the range (a sidecar added
//     mid-range), while rows are written chunk by chunk.
//   - A recurring job is a CronJob: runs.job is "namespace/cronjob"; its
//     runs are its Jobs (runs.run "namespace/job", name the Job's name,
//     user and queue the namespace). A Job no CronJob owns is a job of its
//     own, runs.job "namespace/Job/" and its normalised name: its kind
//     tells it from a CronJob of that name (a finished Job cannot be
//     patched; wlprof export kubernetes skips it and says why). A memory
//     point at t says the pod ran in the step before
//     it, [t − step, t) (its window is (t − step, t]): a run starts one
//     step before its pods' first memory point and ends at their last;
//     status FINISHED, or RUNNING (no end) when a pod is still there at the
//     range's last point.
//   - A run's skyline (skylines table) is its pods over time on the step
//     grid: containers = pods present; memory_bytes and vcores = per pod
//     its requests (requests role, summed over its containers) when it
//     declares them, else what it used (working set, cores).
//   - A job's task attempts are its pods (instances table, one row per
//     pod): job = the runs.job, stage = the runs.run (the Job), task the
//     pod's containers by name joined with "," (a Job's pods share their
//     template, so the task is the same across them, as a task name is in
//     other traces; wlprof export kubernetes sets the container it names),
//     instance the pod, machine its node, start and end as for runs,
//     cpu_avg and cpu_max its cores, mem_avg and mem_max its working set
//     over its node's allocatable memory.
//
// The manifest records the source with format "prometheus" (path: the
// server's URL, a password in it masked as xxxxx; size_bytes and sha256
// of the response bodies in the order read) or "prometheus-json" (path:
// the file), table usage, and notes: the first two begin "kubernetes: "
// (the range, step and label step; the mapping, with the tenant key),
// then every query that is not the default. runs.source and
// instances.source and machine_events.source are the format's name too.
// A reader tells Kubernetes data by a source of either format. Accepted
// counts rows written (usage, runs, skyline samples, instances, machine
// events); a reject is one
// series (line: the file's line, or the response's number in an API
// ingest; record: its labels) or one point whose value is NaN, infinite or
// negative. A series that cannot be mapped (its pod has no node, its node
// no allocatable) is rejected once per ingest; its points in later chunks
// are counted in a note.
//
// Speed (BenchmarkPrometheusMonth, make bench: k8sworld.Month, 960
// long-running containers and 10 hourly CronJobs of 4 pods, one minute,
// through Prometheus 2.42 on 127.0.0.1, then the saved file in the same
// run). Measured here on one day of that world (1.4 M usage rows, 86 MB
// saved; WLPROF_K8S_BENCH_DAYS=1), on 2 cores shared with other builds
// (load 7 to 12), in four runs: 11.6–13.3 s through the API (1.8 s of it
// wlprof's CPU, the rest the server's query evaluation and its JSON),
// 3.1–4.7 s from the file (1.35 s CPU: decoding, joining, Parquet). A
// month is 30 such days: about 6 to 6.7 minutes through the API and 1.6
// to 2.3 from the file at that rate (extrapolated, not measured here: the
// full month is make bench's).
//
// Each series is one container: two series for one container (cAdvisor
// scraped by two jobs) are both counted; narrow the query (--query
// cpu=...{job="kubelet",...}) when the server holds such duplicates.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

const (
	promFormat     = "prometheus"
	promJSONFormat = "prometheus-json"
	promFileMarker = "wlprof-prometheus-json"
)

// PrometheusOptions say which server, range and queries the prometheus
// format reads; prometheus-json takes the tenant key from Options and the
// rest from its file's header.
type PrometheusOptions struct {
	URL        string    // the server's base URL, e.g. http://127.0.0.1:9090
	Start, End time.Time // the range, both included on the step grid
	Step       time.Duration
	// Queries override the default query of a role (see the format's
	// specification); roles not named keep theirs.
	Queries map[string]string
	// Save, when set, is a file the responses are also written to, in the
	// prometheus-json format (temporary file, renamed when done).
	Save string
	// Retries is how often a query refused with 429 or 503, or cut by a
	// connection error, is tried again; 0 means promRetries.
	Retries int
	// Client is the HTTP client; nil means one with a 5-minute timeout.
	Client *http.Client
	// backoff is the first retry's wait; 0 means promBackoff. Tests
	// shorten it.
	backoff time.Duration
}

// Prometheus roles, in the order they are read: label roles first, since
// the series roles are joined to them as they stream.
var (
	promLabelRoles  = []string{"node_cpu", "node_memory", "pod_info", "pod_owner", "replicaset_owner", "job_owner", "requests"}
	promSeriesRoles = []string{"cpu", "memory"}
)

// PrometheusRoles lists every role a --query can override.
func PrometheusRoles() []string {
	return append(append([]string{}, promLabelRoles...), promSeriesRoles...)
}

// promDefaultQueries are the cAdvisor and kube-state-metrics queries.
var promDefaultQueries = map[string]string{
	"cpu":              `rate(container_cpu_usage_seconds_total{container!="",container!="POD",pod!=""}[$__rate_interval])`,
	"memory":           `max_over_time(container_memory_working_set_bytes{container!="",container!="POD",pod!=""}[$__interval])`,
	"node_cpu":         `max_over_time(kube_node_status_allocatable{resource="cpu"}[$__interval])`,
	"node_memory":      `max_over_time(kube_node_status_allocatable{resource="memory"}[$__interval])`,
	"pod_info":         `max_over_time(kube_pod_info[$__interval])`,
	"pod_owner":        `max_over_time(kube_pod_owner[$__interval])`,
	"replicaset_owner": `max_over_time(kube_replicaset_owner[$__interval])`,
	"job_owner":        `max_over_time(kube_job_owner[$__interval])`,
	"requests":         `max_over_time(kube_pod_container_resource_requests[$__interval])`,
}

// PrometheusDefaultQuery is the default query of a role ("" for none).
func PrometheusDefaultQuery(role string) string { return promDefaultQueries[role] }

// promLabelStep is the least step of the label roles.
const promLabelStep = time.Hour

// labelStep is the step the label roles are queried at.
func labelStep(step time.Duration) time.Duration { return max(step, promLabelStep) }

// promQuery is role's query with its placeholders filled for step.
func promQuery(expr string, step time.Duration) string {
	rate := max(2*step, time.Minute)
	r := strings.NewReplacer("$__rate_interval", fmt.Sprintf("%ds", int64(rate/time.Second)),
		"$__interval", fmt.Sprintf("%dms", step.Milliseconds()-1))
	return r.Replace(expr)
}

// Validate reports every problem of o at once.
func (o PrometheusOptions) Validate() error {
	var errs []error
	if o.URL == "" {
		errs = append(errs, errors.New("--url: the Prometheus server to read (e.g. http://127.0.0.1:9090)"))
	} else if !strings.HasPrefix(o.URL, "http://") && !strings.HasPrefix(o.URL, "https://") {
		errs = append(errs, fmt.Errorf("--url %q: want an http:// or https:// URL", o.URL))
	}
	if o.Step < time.Second || o.Step%time.Second != 0 {
		errs = append(errs, fmt.Errorf("--step %v: want whole seconds, at least 1s", o.Step))
	}
	if o.Start.IsZero() || o.End.IsZero() {
		errs = append(errs, errors.New("--start and --end: the range to read (RFC 3339 or epoch seconds)"))
	} else if !o.End.After(o.Start) {
		errs = append(errs, fmt.Errorf("--end %s is not after --start %s", o.End.UTC().Format(time.RFC3339), o.Start.UTC().Format(time.RFC3339)))
	}
	roles := map[string]bool{}
	for _, r := range PrometheusRoles() {
		roles[r] = true
	}
	var bad []string
	for r, q := range o.Queries {
		if !roles[r] {
			bad = append(bad, r)
		} else if strings.TrimSpace(q) == "" {
			errs = append(errs, fmt.Errorf("--query %s=: empty query", r))
		}
	}
	sort.Strings(bad)
	for _, r := range bad {
		errs = append(errs, fmt.Errorf("--query %s: unknown role (roles: %s)", r, strings.Join(PrometheusRoles(), ", ")))
	}
	return errors.Join(errs...)
}

func init() {
	tenantKeys[promFormat] = []string{"namespace", "workload"}
	tenantKeys[promJSONFormat] = tenantKeys[promFormat]
	register(&Format{
		Name:  promFormat,
		Table: dataset.UsageTable.Name,
		Description: "Kubernetes through a Prometheus server's API (--url, --start, --end, --step): cAdvisor CPU and memory per container, " +
			"kube-state-metrics nodes, owners, requests → usage (tenant = namespace or workload/container, server = node), nodes → machine_events, CronJobs' Jobs → runs, skylines, instances",
		ingest: func(context.Context, *Input, *sink) error {
			return errors.New("prometheus reads a server (wlprof ingest prometheus --url URL), not files; a saved capture is format prometheus-json")
		},
	})
	register(&Format{
		Name:        promJSONFormat,
		Table:       dataset.UsageTable.Name,
		Description: "Prometheus query_range responses saved by wlprof ingest prometheus --save (JSON lines) → as prometheus",
		Detect: func(_ string, head []byte) bool {
			first := firstLine(head)
			return strings.HasPrefix(string(first), "{") && strings.Contains(string(first), `"format":"`+promFileMarker+`"`)
		},
		ingest: ingestPromFile,
	})
}

// ParsePrometheusQueries reads --query ROLE=PROMQL values (the query may
// hold "="), every bad one reported at once.
func ParsePrometheusQueries(args []string) (map[string]string, error) {
	out := map[string]string{}
	var errs []error
	for _, a := range args {
		role, q, ok := strings.Cut(a, "=")
		if !ok {
			errs = append(errs, fmt.Errorf("--query %q: want ROLE=PROMQL (roles: %s)", a, strings.Join(PrometheusRoles(), ", ")))
			continue
		}
		out[strings.TrimSpace(role)] = q
	}
	return out, errors.Join(errs...)
}
