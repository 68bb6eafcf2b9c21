package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wlprof/wlprof/internal/k8sworld"
	"github.com/wlprof/wlprof/reports"
)

// TestKubernetesSpareCores: a generated cluster of 4 nodes of 8 cores
// (internal/k8sworld's Small: three namespaces, each a workload of 3
// replicas on 3 of the 4 nodes, and an hourly CronJob's namespace), served
// by a real Prometheus on 127.0.0.1 and ingested by namespace. The
// report's spare cores are counted node by node, so they cannot exceed
// the cluster's cores, and by the generator's truth a node's mean use is
// at least its pods' levels (a periodic tenant's sine averages its level
// over whole periods, a constant one is its level, an unpredictable one's
// walk and bursts lie above it on average; 1% scrape noise aside), so
// medium jobs' spare cores (each node's 1 − Max(mean, now), Zhang et al.,
// OSDI'16 §4.1) are at most the allocatable less every replica's level.
// The classes' headroom × nodes × cores counts a node once per namespace
// on it and exceeds both.
func TestKubernetesSpareCores(t *testing.T) {
	cfg := k8sworld.Small()
	w := k8sworld.New(cfg)
	dir := t.TempDir()
	srv := k8sworld.Serve(t, w)
	ds := filepath.Join(dir, "ds")
	mustRun(t, "ingest", "prometheus", "-d", ds, "--url", srv.URL, "--start", cfg.Start.Format(time.RFC3339),
		"--end", cfg.Start.Add(cfg.Duration).Format(time.RFC3339), "--step", "5m")
	rep := filepath.Join(dir, "report")
	if _, errs, code := wlprof(t, "report", "-d", ds, "--out", rep); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errs)
	}
	b, err := os.ReadFile(filepath.Join(rep, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	var idx reports.Index
	if err := json.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	h := idx.Summary.Decisions.Harvest
	all := float64(cfg.Nodes) * cfg.NodeCores
	levels := 0.0
	for _, tn := range w.Tenants() {
		levels += float64(cfg.Replicas) * tn.Cores
	}
	bound := all - 0.99*levels
	if h.SpareCores == nil || h.ClassSpareCores == nil {
		t.Fatalf("no spare cores counted by node: %q", h.Answer)
	}
	s, c := *h.SpareCores, *h.ClassSpareCores
	if s.Short > all || s.Medium > bound || s.Long > s.Medium || s.Medium > s.Short {
		t.Errorf("spare cores %+v: want short at most the %g cores, medium at most %.2f (less the replicas' levels %.2f), long ≤ medium ≤ short", s, all, bound, levels)
	}
	if c.Short <= all {
		t.Errorf("the classes' sum %+v is within the cluster's %g cores: the namespaces do not share nodes here?", c, all)
	}
	// wlprof harvest's servers are the nodes, of their allocatable cores.
	out, errs, code := wlprof(t, "harvest", "-d", ds, "--workload", "poisson", "-o", "json")
	if code != 0 {
		t.Fatalf("harvest: exit %d: %s", code, errs)
	}
	var hr struct {
		Cores       int      `json:"cores"`
		Assumptions []string `json:"assumptions"`
	}
	if err := json.Unmarshal([]byte(out), &hr); err != nil {
		t.Fatal(err)
	}
	if hr.Cores != int(cfg.NodeCores) {
		t.Errorf("harvest: servers of %d cores, want the nodes' %g (assumptions %q)", hr.Cores, cfg.NodeCores, hr.Assumptions)
	}
	t.Logf("nodes' spare cores %+v, the classes' sum %+v (cluster %g cores, replicas' levels %.2f); %s", s, c, all, levels, h.SpareAnswer)
}
