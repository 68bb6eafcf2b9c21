package kube

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/profile"
)

// The pods of a CronJob name their container in the instances' task (what
// wlprof ingest prometheus writes): the export sets that container with no
// --container. Pods of several containers cannot be split: they are
// skipped with the reason and the containers' usage tenants give the
// numbers. A Job of its own (NAMESPACE/Job/NAME) is skipped, its pods and
// its skyline alike.
func TestInstancesNameTheirContainer(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	w := world{nodes: map[string]NodeShape{"node-a": {CPU: 4, MemoryBytes: 16 * gi}, "node-b": {CPU: 8, MemoryBytes: 32 * gi}},
		formats: []string{"prometheus"}}
	pod := func(job, stage, task, name, node string) {
		start := int64(1_800_000_000_000)
		w.pods = append(w.pods, dataset.Instance{Job: job, Stage: stage, Task: task, Instance: name, StartMs: start, EndMs: start + 600_000,
			Machine: node, CPUAvg: 0.3, CPUMax: 0.4 + 0.1*rng.Float64(), MemAvg: 0.02, MemMax: 0.03, Source: "prometheus"})
	}
	for k := 0; k < 4; k++ {
		pod("batch/etl", "batch/etl-1", "etl", fmt.Sprintf("etl-1-%d", k), []string{"node-a", "node-b"}[k%2])
		pod("batch/mixed", "batch/mixed-1", "load,shipper", fmt.Sprintf("mixed-1-%d", k), "node-b")
		pod("batch/Job/backfill", "batch/backfill-7", "backfill", fmt.Sprintf("backfill-7-%d", k), "node-a")
	}
	w.samples(rng, "batch/CronJob/mixed/load", "node-b", 60, 0.05, 0.1, 0.02, 0.03)
	w.samples(rng, "batch/CronJob/mixed/shipper", "node-b", 60, 0.001, 0.002, 0.001, 0.002)
	jobs := profile.Jobs{}
	jobs.Get("batch/etl").Skyline = &profile.Skyline{Runs: 3, StepS: 60, Alpha: 0.1, Beta: 0.1, Model: "reduced", PeakReservation: 4}
	jobs.Get("batch/Job/backfill").Skyline = &profile.Skyline{Runs: 2, StepS: 60, Alpha: 0.1, Beta: 0.1, Model: "reduced", PeakReservation: 4}
	res, out := export(t, w, jobs, DefaultOptions())
	docs := decodeAll(t, out)
	got := map[string][]string{}
	for _, d := range docs {
		var names []string
		for _, c := range d.containers {
			names = append(names, c.Name)
		}
		got[d.kind+" "+d.meta.Namespace+"/"+d.meta.Name] = names
		if d.kind == Job {
			t.Errorf("a patch of Job %s: a finished Job cannot be patched", d.meta.Name)
		}
	}
	if c := got["CronJob batch/etl"]; len(c) != 1 || c[0] != "etl" {
		t.Errorf("CronJob batch/etl containers %v, want [etl] from the pods' task", c)
	}
	if c := got["CronJob batch/mixed"]; strings.Join(c, ",") != "load,shipper" {
		t.Errorf("CronJob batch/mixed containers %v, want [load shipper] from their usage tenants", c)
	}
	for _, d := range docs {
		if d.meta.Name == "etl" && (d.parallelism == nil || *d.parallelism != 4) {
			t.Errorf("CronJob batch/etl parallelism %v, want the skyline's 4", d.parallelism)
		}
		for _, e := range d.evidence(t) {
			if strings.Contains(e.Note, "taken to be named after") {
				t.Errorf("%s %s: evidence %q guesses the container's name", d.kind, d.meta.Name, e.Note)
			}
		}
	}
	why := map[string]string{}
	for _, s := range res.Skipped {
		why[s.ID] += s.Reason + "|"
	}
	if r := why["batch/mixed"]; !strings.Contains(r, "several containers (load,shipper)") {
		t.Errorf("batch/mixed skipped %q, want its pods of several containers", r)
	}
	if r := why["batch/Job/backfill"]; strings.Count(r, "a Job of its own") != 2 {
		t.Errorf("batch/Job/backfill skipped %q, want its pods and its skyline, each as a Job of its own", r)
	}
}
