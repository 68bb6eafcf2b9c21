package ingest

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// fakeProm answers query_range like Prometheus 2.42 does, for a tiny
// cluster: one node of 4 cores and 8 GiB, one pod "web" of namespace
// "shop" with one container using 1 core and 2 GiB at every point.
// refuse, when it returns a status, makes the server answer that first.
type fakeProm struct {
	mu       sync.Mutex
	calls    int
	maxPts   int // points per series above which the query is refused (Prometheus: 11,000)
	refuse   func(call int) (int, string)
	memValue string // the memory value, "" for 2 GiB
	noPod    bool   // no kube_pod_info: the pod's node is unknown
	nodeOn   bool   // container series carry their node label (n1)
	// nodeCPU, when set, is the node's allocatable cores at a point (unix
	// seconds); nil: 4.
	nodeCPU func(sec float64) string
}

func (f *fakeProm) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.calls++
	call := f.calls
	f.mu.Unlock()
	if f.refuse != nil {
		if code, body := f.refuse(call); code != 0 {
			w.WriteHeader(code)
			fmt.Fprint(w, body)
			return
		}
	}
	q := r.URL.Query()
	start, _ := strconv.ParseFloat(q.Get("start"), 64)
	end, _ := strconv.ParseFloat(q.Get("end"), 64)
	step, _ := strconv.ParseFloat(q.Get("step"), 64)
	n := int((end-start)/step) + 1
	if f.maxPts > 0 && n > f.maxPts {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"status":"error","errorType":"bad_data","error":"exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)"}`)
		return
	}
	expr := q.Get("query")
	var metric, value string
	switch {
	case strings.Contains(expr, `resource="cpu"`):
		metric, value = `{"node":"n1","resource":"cpu"}`, "4"
	case strings.Contains(expr, `resource="memory"`):
		metric, value = `{"node":"n1","resource":"memory"}`, "8589934592"
	case strings.Contains(expr, "kube_pod_info") && f.noPod:
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[]}}`)
		return
	case strings.Contains(expr, "kube_pod_info"):
		metric, value = `{"namespace":"shop","pod":"web-1","node":"n1"}`, "1"
	case strings.Contains(expr, "kube_pod_owner"):
		metric, value = `{"namespace":"shop","pod":"web-1","owner_kind":"ReplicaSet","owner_name":"web-5d"}`, "1"
	case strings.Contains(expr, "kube_replicaset_owner"):
		metric, value = `{"namespace":"shop","replicaset":"web-5d","owner_kind":"Deployment","owner_name":"web"}`, "1"
	case strings.Contains(expr, "container_cpu"):
		metric, value = `{"namespace":"shop","pod":"web-1","container":"app"}`, "1"
		if f.nodeOn {
			metric = `{"namespace":"shop","pod":"web-1","container":"app","node":"n1"}`
		}
	case strings.Contains(expr, "container_memory"):
		metric, value = `{"namespace":"shop","pod":"web-1","container":"app"}`, "2147483648"
		if f.nodeOn {
			metric = `{"namespace":"shop","pod":"web-1","container":"app","node":"n1"}`
		}
		if f.memValue != "" {
			value = f.memValue
		}
	default:
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[]}}`)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":%s,"values":[`, metric)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		sec := start + float64(i)*step
		v := value
		if f.nodeCPU != nil && strings.Contains(expr, `resource="cpu"`) {
			v = f.nodeCPU(sec)
		}
		fmt.Fprintf(&b, `[%s,"%s"]`, strconv.FormatFloat(sec, 'f', -1, 64), v)
	}
	b.WriteString(`]}]}}`)
	fmt.Fprint(w, b.String())
}

func fakeOptions(url string, hours int) Options {
	opts := DefaultOptions()
	opts.MaxRejects = -1
	start := time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)
	opts.Prometheus = PrometheusOptions{URL: url, Start: start, End: start.Add(time.Duration(hours) * time.Hour), Step: time.Minute, backoff: time.Millisecond}
	return opts
}

// TestPrometheusFakeServer: 1 core of a 4-core node is 0.25, 2 GiB of 8
// GiB 0.25, at every minute of the range; the tenant is the namespace, or
// the Deployment through its ReplicaSet.
func TestPrometheusFakeServer(t *testing.T) {
	srv := httptest.NewServer(&fakeProm{maxPts: 11000})
	defer srv.Close()
	for _, key := range []string{"namespace", "workload"} {
		opts := fakeOptions(srv.URL, 3)
		opts.TenantKey = key
		res, ds, err := Into(context.Background(), filepath.Join(t.TempDir(), "ds"), promFormat, nil, opts)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := dataset.ReadAll(context.Background(), ds, dataset.UsageTable)
		if err != nil {
			t.Fatal(err)
		}
		// 3 hours of minutes, both ends, and the node's machine_events row.
		if len(rows) != 181 || res.Accepted != 181+1 || res.Rejected != 0 {
			t.Fatalf("%s: %d rows, %d accepted, %d rejected; want 181 usage rows and 1 node (3 hours of minutes, both ends)", key, len(rows), res.Accepted, res.Rejected)
		}
		// The node's allocatable, in cores and bytes, from the range's start.
		ev, err := dataset.ReadAll(context.Background(), ds, dataset.MachineEventsTable)
		if err != nil {
			t.Fatal(err)
		}
		wantEv := dataset.MachineEvent{Machine: "n1", TimeMs: opts.Prometheus.Start.UnixMilli(), Type: dataset.MachineAdd, CPUs: 4, Memory: 8 << 30, Source: promFormat}
		if len(ev) != 1 || ev[0] != wantEv {
			t.Errorf("%s: machine_events %+v, want %+v", key, ev, wantEv)
		}
		// A workload's tenant names its container.
		want := map[string]string{"namespace": "shop", "workload": "shop/Deployment/web/app"}[key]
		for _, r := range rows {
			if r.Tenant != want || r.Server != "n1" || r.CPU != 0.25 || r.Memory != 0.25 {
				t.Fatalf("%s: row %+v, want tenant %s on n1 at 0.25 and 0.25", key, r, want)
			}
		}
	}
}

// TestPrometheusSplitsLongRanges: a server that refuses more than 100
// points per series still answers a day at one minute, split.
func TestPrometheusSplitsLongRanges(t *testing.T) {
	f := &fakeProm{maxPts: 100}
	srv := httptest.NewServer(f)
	defer srv.Close()
	res, _, err := Into(context.Background(), filepath.Join(t.TempDir(), "ds"), promFormat, nil, fakeOptions(srv.URL, 24))
	if err != nil {
		t.Fatal(err)
	}
	if res.Accepted != 24*60+1+1 {
		t.Errorf("%d rows, want %d (and the node's)", res.Accepted, 24*60+1)
	}
	if f.calls < 2*15 {
		t.Errorf("%d calls: the 1,441 points should have taken at least 15 per series role", f.calls)
	}
}

// TestPrometheusRetriesAndRefusals: 503 and 429 are tried again; 400 and
// "status":"error" stop with what the server said; retries are bounded.
func TestPrometheusRetriesAndRefusals(t *testing.T) {
	for _, tc := range []struct {
		name   string
		refuse func(int) (int, string)
		want   string // "" for success
	}{
		{"503 then fine", func(c int) (int, string) {
			if c <= 2 {
				return 503, "Service Unavailable"
			}
			return 0, ""
		}, ""},
		{"429 then fine", func(c int) (int, string) {
			if c == 1 {
				return 429, `{"status":"error","errorType":"too_many_requests","error":"slow down"}`
			}
			return 0, ""
		}, ""},
		{"always 503", func(int) (int, string) { return 503, "down" }, "gave up after 6 tries"},
		{"bad query", func(int) (int, string) {
			return 400, `{"status":"error","errorType":"bad_data","error":"1:5: parse error: unexpected <EOF>"}`
		}, "HTTP 400: bad_data: 1:5: parse error"},
		{"error body", func(int) (int, string) {
			return 200, `{"status":"error","errorType":"execution","error":"query timed out in expression evaluation"}`
		}, "execution: query timed out"},
		{"not prometheus", func(int) (int, string) { return 200, `<html>login</html>` }, "not a Prometheus API response"},
	} {
		srv := httptest.NewServer(&fakeProm{maxPts: 11000, refuse: tc.refuse})
		res, _, err := Into(context.Background(), filepath.Join(t.TempDir(), "ds"), promFormat, nil, fakeOptions(srv.URL, 1))
		srv.Close()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want == "" && res.Accepted != 61+1:
			t.Errorf("%s: %d accepted, want 61 usage rows and 1 node", tc.name, res.Accepted)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}

// TestPrometheusRejectsNaN: a NaN working set is a reject of that point
// with its reason; the cpu still makes rows (memory null).
func TestPrometheusRejectsNaN(t *testing.T) {
	srv := httptest.NewServer(&fakeProm{maxPts: 11000, memValue: "NaN"})
	defer srv.Close()
	res, ds, err := Into(context.Background(), filepath.Join(t.TempDir(), "ds"), promFormat, nil, fakeOptions(srv.URL, 1))
	if err != nil {
		t.Fatal(err)
	}
	if res.Rejected != 61 || res.Accepted != 61+1 {
		t.Errorf("%d accepted, %d rejected; want 61 (and the node) and 61", res.Accepted, res.Rejected)
	}
	rej, err := dataset.ReadAll(context.Background(), ds, dataset.RejectsTable)
	if err != nil || len(rej) == 0 {
		t.Fatal(err, len(rej))
	}
	if !strings.Contains(rej[0].Reason, `value "NaN": not a finite number`) || !strings.Contains(rej[0].Record, `pod="web-1"`) || rej[0].Format != promFormat {
		t.Errorf("reject %+v", rej[0])
	}
}

// TestPrometheusQueryPlaceholders: the window of a presence query is the
// step less a millisecond, and a rate's at least a minute and two steps.
func TestPrometheusQueryPlaceholders(t *testing.T) {
	if got := promQuery(promDefaultQueries["memory"], time.Minute); !strings.HasSuffix(got, "[59999ms])") {
		t.Errorf("memory at 1m: %s", got)
	}
	if got := promQuery(promDefaultQueries["cpu"], 15*time.Second); !strings.HasSuffix(got, "[60s])") {
		t.Errorf("cpu at 15s: %s", got)
	}
	if got := promQuery(promDefaultQueries["cpu"], 5*time.Minute); !strings.HasSuffix(got, "[600s])") {
		t.Errorf("cpu at 5m: %s", got)
	}
}

// TestPrometheusUnmappedPodRejectedOnce: a container whose pod has no
// kube_pod_info has no server; its series is rejected once per role, not
// once per chunk, and its later chunks' points are counted in a note.
func TestPrometheusUnmappedPodRejectedOnce(t *testing.T) {
	srv := httptest.NewServer(&fakeProm{maxPts: 11000, noPod: true})
	defer srv.Close()
	opts := fakeOptions(srv.URL, 48) // 2,881 points: chunks of 60, 1,440, 1,381
	res, _, err := Into(context.Background(), filepath.Join(t.TempDir(), "ds"), promFormat, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Rejected != 2 || res.Accepted != 1 {
		t.Errorf("%d accepted, %d rejected; want 1 (the node's allocatable) and 2 (cpu and memory, once each)", res.Accepted, res.Rejected)
	}
	notes := strings.Join(res.Files[0].Notes, "\n")
	if !strings.Contains(notes, "points of rejected series in later chunks (the series is rejected once): 5642") {
		t.Errorf("notes:\n%s", notes)
	}
	if !strings.Contains(res.Samples[0].Err.Error(), "no kube_pod_info") {
		t.Errorf("reject: %v", res.Samples[0])
	}
}

// TestPrometheusURLPasswordNotRecorded: a password in --url is used but
// never written to the manifest, the saved file or an error.
func TestPrometheusURLPasswordNotRecorded(t *testing.T) {
	srv := httptest.NewServer(&fakeProm{maxPts: 11000})
	defer srv.Close()
	dir := t.TempDir()
	opts := fakeOptions(strings.Replace(srv.URL, "http://", "http://wlprof:s3cret@", 1), 1)
	opts.Prometheus.Save = filepath.Join(dir, "cap.jsonl")
	_, ds, err := Into(context.Background(), filepath.Join(dir, "ds"), promFormat, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{filepath.Join(dir, "ds", "manifest.json"), opts.Prometheus.Save} {
		b, err := os.ReadFile(f)
		if err != nil || strings.Contains(string(b), "s3cret") {
			t.Errorf("%s: %v, holds the password: %v", f, err, strings.Contains(string(b), "s3cret"))
		}
	}
	if p := ds.Manifest().Sources[0].Path; !strings.HasPrefix(p, "http://wlprof:xxxxx@127.0.0.1:") {
		t.Errorf("source path %q", p)
	}
	opts = fakeOptions("http://wlprof:s3cret@127.0.0.1:1", 1)
	opts.Prometheus.Retries = 1
	_, _, err = Into(context.Background(), filepath.Join(dir, "ds2"), promFormat, nil, opts)
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error %v: want one without the password", err)
	}
}

// TestPrometheusNodeLabelWins: a container series that names its node
// needs no kube_pod_info.
func TestPrometheusNodeLabelWins(t *testing.T) {
	srv := httptest.NewServer(&fakeProm{maxPts: 11000, noPod: true, nodeOn: true})
	defer srv.Close()
	res, ds, err := Into(context.Background(), filepath.Join(t.TempDir(), "ds"), promFormat, nil, fakeOptions(srv.URL, 1))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := dataset.ReadAll(context.Background(), ds, dataset.UsageTable)
	if err != nil || res.Rejected != 0 || len(rows) != 61 || rows[0].Server != "n1" || rows[0].Tenant != "shop" {
		t.Errorf("%v: %d rejected, %d rows, first %+v", err, res.Rejected, len(rows), rows)
	}
}

// TestPrometheusChunksFollowSeries: once a chunk shows how many series
// there are, the next ones hold about promMaxPoints points.
func TestPrometheusChunksFollowSeries(t *testing.T) {
	defer func(old int64) { promMaxPoints = old }(promMaxPoints)
	promMaxPoints = 100
	f := &fakeProm{maxPts: 11000}
	srv := httptest.NewServer(f)
	defer srv.Close()
	res, _, err := Into(context.Background(), filepath.Join(t.TempDir(), "ds"), promFormat, nil, fakeOptions(srv.URL, 48))
	if err != nil {
		t.Fatal(err)
	}
	// 2,881 points: a first chunk of 60, then 29 of at most 100 (one
	// series); cpu and memory each; 7 label queries.
	if res.Accepted != 2881+1 || f.calls != 7+2*30 {
		t.Errorf("%d rows in %d calls, want 2881 and the node's in %d", res.Accepted, f.calls, 7+2*30)
	}
}

// TestPrometheusNodesAcrossIngests: later ingests of the next range, or
// of an earlier one, into the same dataset add no machine event for a
// node whose allocatable is unchanged: the history stays one ADD (a
// second ADD of a node already in would break the machine_events rules
// that the machine-history formats' ingest enforces).
func TestPrometheusNodesAcrossIngests(t *testing.T) {
	srv := httptest.NewServer(&fakeProm{maxPts: 11000})
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "ds")
	opts := fakeOptions(srv.URL, 3)
	if _, _, err := Into(context.Background(), dir, promFormat, nil, opts); err != nil {
		t.Fatal(err)
	}
	next := opts
	next.Prometheus.Start, next.Prometheus.End = opts.Prometheus.End.Add(time.Minute), opts.Prometheus.End.Add(3*time.Hour)
	if _, _, err := Into(context.Background(), dir, promFormat, nil, next); err != nil {
		t.Fatal(err)
	}
	earlier := opts
	earlier.Prometheus.Start, earlier.Prometheus.End = opts.Prometheus.Start.Add(-3*time.Hour), opts.Prometheus.Start.Add(-time.Minute)
	res, ds, err := Into(context.Background(), dir, promFormat, nil, earlier)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := dataset.ReadAll(context.Background(), ds, dataset.MachineEventsTable)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) != 1 || ev[0].Type != dataset.MachineAdd || ev[0].TimeMs != opts.Prometheus.Start.UnixMilli() {
		t.Errorf("machine_events %+v, want the one ADD of the first ingest", ev)
	}
	if notes := strings.Join(res.Files[0].Notes, "\n"); strings.Contains(notes, "machine_events") && !strings.Contains(notes, "nodes' allocatable = machine_events") {
		t.Errorf("notes of the earlier range say machine events were written:\n%s", notes)
	}
}

// TestPrometheusNodeUpdate: a node whose allocatable CPU changes (4 cores,
// then 2 from the third hour's label point on) gets an ADD and an UPDATE
// at the first minute of the label window the change is seen in, and the
// utilisation there on is over the new allocatable (1 core of 2: 0.5).
func TestPrometheusNodeUpdate(t *testing.T) {
	opts := fakeOptions("", 4)
	change := opts.Prometheus.Start.Add(3 * time.Hour)
	srv := httptest.NewServer(&fakeProm{maxPts: 11000, nodeCPU: func(sec float64) string {
		if sec >= float64(change.Unix()) {
			return "2"
		}
		return "4"
	}})
	defer srv.Close()
	opts.Prometheus.URL = srv.URL
	_, ds, err := Into(context.Background(), filepath.Join(t.TempDir(), "ds"), promFormat, nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := dataset.ReadAll(context.Background(), ds, dataset.MachineEventsTable)
	if err != nil {
		t.Fatal(err)
	}
	from := change.Add(-time.Hour + time.Minute) // the window (2 h, 3 h], its first minute
	want := []dataset.MachineEvent{
		{Machine: "n1", TimeMs: opts.Prometheus.Start.UnixMilli(), Type: dataset.MachineAdd, CPUs: 4, Memory: 8 << 30, Source: promFormat},
		{Machine: "n1", TimeMs: from.UnixMilli(), Type: dataset.MachineUpdate, CPUs: 2, Memory: 8 << 30, Source: promFormat},
	}
	if len(ev) != 2 || ev[0] != want[0] || ev[1] != want[1] {
		t.Errorf("machine_events %+v, want %+v", ev, want)
	}
	rows, err := dataset.ReadAll(context.Background(), ds, dataset.UsageTable)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		w := 0.25
		if r.TimeMs >= from.UnixMilli() {
			w = 0.5
		}
		if r.CPU != w {
			t.Fatalf("row %+v: cpu %g, want %g", r, r.CPU, w)
		}
	}
}
