package harvest

import (
	"context"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/datasettest"
)

// TestKillPerServer: Zhang et al., OSDI'16 §5: "If NM-H detects that
// there is no longer enough reserved resources, it replenishes the
// reserve back to the pre-defined amount by killing enough containers
// from youngest to oldest" — each server's NodeManager, for its own
// server. Tenant T has two servers of 12 cores (4 reserved), both at 30%
// (4 cores) for 5 minutes, so 4 + 4 cores take a job of 8. Then server 0
// drops to 10% (2 cores) and server 1 rises to 50% (6 cores: 2 left for
// containers): the average server stays at 30%, yet server 1 must kill 2
// of its 4 containers. The two tasks run again on server 0 (6 cores, 4
// held) from minute 5, so the 20-minute job takes 25. On the average
// server alone (the old world) nothing was killed, under both policies.
func TestKillPerServer(t *testing.T) {
	for _, pol := range []Policy{History, Blind} {
		s0 := make([]float32, 30)
		s1 := make([]float32, 30)
		for k := range s0 {
			s0[k], s1[k] = 0.3, 0.3
			if k >= 5 {
				s0[k], s1[k] = 0.1, 0.5
			}
		}
		w := &World{StepMs: min1, EndMs: 30 * min1,
			Tenants: []WorldTenant{{Name: "T", Servers: 2, Values: steps(30, 0.3, 0, 0), ServerValues: [][]float32{s0, s1}}},
			Epochs:  []Epoch{{FromMs: 0}},
			Jobs:    []Job{{ID: "j", Type: Medium, SubmitMs: 0, DurationMs: 20 * min1, Containers: 8}}}
		o := Replay(w, params, pol, true)
		if len(o.Kills) != 2 {
			t.Fatalf("%s: kills %+v, want 2 on server 1 at minute 5", pol, o.Kills)
		}
		for _, k := range o.Kills {
			if k.Server != 1 || k.AtMs != 5*min1 {
				t.Fatalf("%s: kill %+v, want server 1 at minute 5", pol, k)
			}
		}
		if o.Completed != 8 || o.Containers != 10 || o.JobTimes.MaxS != 25*60 {
			t.Fatalf("%s: %+v times %+v", pol, o.Tally, o.JobTimes)
		}
	}
}

// TestRequeueFinishesEveryJob: Zhang et al., OSDI'16 §6: "Because YARN-PT
// must kill (and re-run) tasks when the primary tenant's load bursts, it
// exhibits substantially higher execution times ... YARN-H/Tez-H lowers
// these times", and "As one would expect, YARN-Stock exhibits the lowest
// execution times". On the planted world every job finishes under every
// policy, so the completed work is the same for all three (Σ containers ×
// duration of the jobs replayed: a killed task is redone, not dropped),
// wasted work is what kills cost on top, and the mean job execution time
// orders stock ≤ history < blind.
func TestRequeueFinishesEveryJob(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		res := runPlanted(t, seed)
		h, b, s := res.Policies[0], res.Policies[1], res.Policies[2]
		if s.Policy != Stock || s.Killed != 0 || s.LostCoreH != 0 {
			t.Fatalf("stock: %+v", s)
		}
		var work float64
		for _, p := range res.Policies {
			if p.JobTimes.Finished != res.Jobs || p.JobTimes.Jobs != res.Jobs || p.Running != 0 {
				t.Fatalf("seed %d %s: %+v of %d jobs", seed, p.Policy, p.JobTimes, res.Jobs)
			}
			if work == 0 {
				work = p.CompletedCoreH
			}
			if math.Abs(p.CompletedCoreH-work) > 1e-6*work || math.Abs(p.HarvestedCoreH-p.CompletedCoreH-p.LostCoreH) > 1e-6*work {
				t.Fatalf("seed %d %s: completed %.3f core-h, first policy %.3f; %+v", seed, p.Policy, p.CompletedCoreH, work, p.Tally)
			}
			if p.Completed != int64(p.Containers)-p.Killed {
				t.Fatalf("seed %d %s: %+v", seed, p.Policy, p.Tally)
			}
		}
		t.Logf("seed %d: %d jobs; mean job time history %.0f s, blind %.0f s, stock %.0f s (reduction %.1f%%); wasted core-h %.0f / %.0f; stock contended %.0f core-h",
			seed, res.Jobs, h.JobTimes.MeanS, b.JobTimes.MeanS, s.JobTimes.MeanS, 100**res.MeanExecReduction, h.LostCoreH, b.LostCoreH, s.ContendedCoreH)
		if !(s.JobTimes.MeanS <= h.JobTimes.MeanS && h.JobTimes.MeanS < b.JobTimes.MeanS) {
			t.Errorf("seed %d: mean job time stock %.0f s, history %.0f s, blind %.0f s", seed, s.JobTimes.MeanS, h.JobTimes.MeanS, b.JobTimes.MeanS)
		}
		if !(h.LostCoreH < b.LostCoreH) || !(s.ContendedCoreH > 0) {
			t.Errorf("seed %d: wasted history %.1f, blind %.1f; stock contended %.1f", seed, h.LostCoreH, b.LostCoreH, s.ContendedCoreH)
		}
	}
}

// TestLoadServerKills: the same rule from the dataset (Load reads each
// server's own samples): tenant t's two servers take turns hour by hour
// at 10% and 50% from day 3 on, so its average server is flat at 30% (4
// cores, 4 free on each server) and the old replay killed nothing; each
// server that rises to 50% keeps 2 cores for containers and kills the
// rest. With --average-servers the old answer, none, comes back.
func TestLoadServerKills(t *testing.T) {
	ds, tx := datasettest.Begin(t, filepath.Join(t.TempDir(), "ds"))
	var rows []dataset.Usage
	start := time.Date(2025, 3, 3, 0, 0, 0, 0, time.UTC).UnixMilli()
	for k := int64(0); k < 6*720; k++ {
		a, b := 0.3, 0.3
		if k >= 3*720 {
			a, b = 0.1, 0.5
			if (k/30)%2 == 1 {
				a, b = b, a
			}
		}
		rows = append(rows,
			dataset.Usage{Tenant: "t", Server: "a", TimeMs: start + k*120_000, CPU: a, Memory: math.NaN()},
			dataset.Usage{Tenant: "t", Server: "b", TimeMs: start + k*120_000, CPU: b, Memory: math.NaN()})
	}
	datasettest.Append(t, tx.Usage(), rows)
	datasettest.Commit(t, tx)
	for _, avg := range []bool{false, true} {
		o := plantedOptions()
		o.MaxContainers = 8
		o.AverageServers = avg
		in, err := Load(context.Background(), ds, o)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), in, o)
		if err != nil {
			t.Fatal(err)
		}
		h, b := res.Policies[0], res.Policies[1]
		t.Logf("average servers %v: %d jobs, own usage on %d of %d servers; killed: history %d, blind %d", avg, res.Jobs, res.ServersWithOwnUsage, res.Servers, h.Killed, b.Killed)
		if res.Jobs < 100 {
			t.Fatalf("%d jobs", res.Jobs)
		}
		if avg {
			if h.Killed != 0 || b.Killed != 0 || res.ServersWithOwnUsage != 0 {
				t.Fatalf("average servers: killed %d and %d, own usage %d", h.Killed, b.Killed, res.ServersWithOwnUsage)
			}
			continue
		}
		if h.Killed == 0 || b.Killed == 0 || res.ServersWithOwnUsage != 2 {
			t.Fatalf("per server: killed %d and %d, own usage %d", h.Killed, b.Killed, res.ServersWithOwnUsage)
		}
	}
}
