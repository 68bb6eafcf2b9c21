package placement

import (
	"context"
	"fmt"
	"math"
	"sort"
	"sync"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/timeflag"
)

// Replay is the durability and availability replay (§6, Fig. 15 and 16)
// of both placements over the same disruptions, busy periods, writers and
// accesses.
type Replay struct {
	Blocks        int      `json:"blocks"`
	Replicas      int      `json:"replicas"`
	BusyThreshold float64  `json:"busy_threshold"`
	BlocksPerHour float64  `json:"blocks_per_hour_per_server"`
	DetectS       float64  `json:"detect_s"`
	Accesses      int      `json:"accesses"`
	Seeds         []uint64 `json:"seeds"`
	Servers       int      `json:"servers"`
	Racks         int      `json:"racks"`
	// Policies: hdfs-stock, then algorithm-2.
	Policies    []ReplayPolicy `json:"policies"`
	Assumptions []string       `json:"assumptions"`
	Warnings    []string       `json:"warnings"`
}

// ReplayPolicy is one placement over every seed: blocks lost and failed
// accesses (counts and shares), mean, min and max over the seeds, and
// each seed's run.
type ReplayPolicy struct {
	Policy         string `json:"policy"`
	LostBlocks     Spread `json:"lost_blocks"`
	LostShare      Spread `json:"lost_share"`
	FailedAccesses Spread `json:"failed_accesses"`
	FailedShare    Spread `json:"failed_share"`
	// UnderReplicated: blocks alive at the window's end with fewer
	// replicas than asked (no server free to take the rest then).
	UnderReplicated Spread      `json:"under_replicated_blocks"`
	Runs            []ReplayRun `json:"runs"`
}

// ReplayRun is one seed's outcome.
type ReplayRun struct {
	Seed            uint64 `json:"seed"`
	LostBlocks      int    `json:"lost_blocks"`
	FailedAccesses  int    `json:"failed_accesses"`
	Accesses        int    `json:"accesses"`
	UnderReplicated int    `json:"under_replicated_blocks"`
}

// runReplay builds the replay's world from the clustered tenants (tm:
// their machines, in res.Tenants order) and replays both policies for
// every seed, in parallel; results do not depend on the scheduling.
func runReplay(ctx context.Context, res *Result, members []Member, tm [][]*machine, series []dataset.Series, o *Options) (*Replay, error) {
	w := &rWorld{startMs: res.StartMs, endMs: res.EndMs}
	rackIdx := map[string]int{}
	byName := map[string]*dataset.Series{}
	for i := range series {
		byName[series[i].Tenant] = &series[i]
	}
	noSeries := 0
	for ti, t := range res.Tenants {
		rt := rTenant{}
		if s := byName[t.Tenant]; s != nil && s.StepS > 0 {
			rt.cpu, rt.busyStartMs, rt.stepMs = s.Values, s.StartMs, int64(math.Round(s.StepS*1000))
		} else {
			noSeries++
		}
		ms := append([]*machine(nil), tm[ti]...)
		sort.Slice(ms, func(a, b int) bool { return ms[a].name < ms[b].name })
		for _, m := range ms {
			rk, ok := rackIdx[m.rack]
			if !ok {
				rk = len(rackIdx)
				rackIdx[m.rack] = rk
				w.byRack = append(w.byRack, nil)
			}
			id := len(w.servers)
			w.servers = append(w.servers, rServer{tenant: ti, rack: rk, row: members[ti].Row, col: members[ti].Col, downs: m.removes, ups: m.adds})
			w.byRack[rk] = append(w.byRack[rk], id)
			w.all = append(w.all, id)
			rt.servers = append(rt.servers, id)
		}
		w.tenants = append(w.tenants, rt)
		w.classes[members[ti].Row][members[ti].Col] = append(w.classes[members[ti].Row][members[ti].Col], ti)
	}
	p := &replayParams{replicas: o.Replicas, busy: o.BusyThreshold, copyMs: int64(math.Round(3600e3 / o.BlocksPerHour)),
		detectMs: o.Detect.Milliseconds(), accesses: o.Accesses, blocks: o.Blocks}
	rp := &Replay{Blocks: o.Blocks, Replicas: o.Replicas, BusyThreshold: o.BusyThreshold, BlocksPerHour: o.BlocksPerHour,
		DetectS: o.Detect.Seconds(), Accesses: o.Accesses, Servers: len(w.servers), Racks: len(rackIdx), Warnings: []string{}}
	for k := 0; k < o.Seeds; k++ {
		rp.Seeds = append(rp.Seeds, o.Seed+uint64(k))
	}
	policies := []string{PolicyStock, PolicyAlg2}
	outs := make([][]outcome, len(policies))
	for i := range outs {
		outs[i] = make([]outcome, len(rp.Seeds))
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, pol := range policies {
		for k, seed := range rp.Seeds {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				if ctx.Err() == nil {
					outs[i][k] = replay(w, p, pol, seed)
				}
			}()
		}
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for i, pol := range policies {
		rpp := ReplayPolicy{Policy: pol}
		var lost, lostS, failed, failedS, under []float64
		for k, out := range outs[i] {
			rpp.Runs = append(rpp.Runs, ReplayRun{Seed: rp.Seeds[k], LostBlocks: out.lost, FailedAccesses: out.failed, Accesses: out.accesses, UnderReplicated: out.underReplicated})
			under = append(under, float64(out.underReplicated))
			lost = append(lost, float64(out.lost))
			lostS = append(lostS, float64(out.lost)/float64(max(o.Blocks-out.unwritten, 1)))
			failed = append(failed, float64(out.failed))
			if out.accesses > 0 {
				failedS = append(failedS, float64(out.failed)/float64(out.accesses))
			}
		}
		rpp.LostBlocks, rpp.LostShare, rpp.FailedAccesses, rpp.FailedShare = spreadOf(lost), spreadOf(lostS), spreadOf(failed), spreadOf(failedS)
		rpp.UnderReplicated = spreadOf(under)
		rp.Policies = append(rp.Policies, rpp)
	}
	rp.Assumptions = []string{
		fmt.Sprintf("%d blocks of %d replicas written at instants uniform over the window, each by a server drawn uniformly among those in the cluster then; storage never fills", o.Blocks, o.Replicas),
		"hdfs-stock: one replica on the writer, one on another server of its rack, one on another rack (a simplification of HDFS's default, which puts the second and third on one remote rack: also two racks); re-replication: another rack while all replicas share one, else any server",
		"algorithm-2: the writer, then classes in rows and columns no replica's class uses (forgotten after every third replica), a tenant holding no replica, a random server of it; when no such class has a server in the cluster: an unused row, then any class",
		"a REMOVE destroys every replica on the machine; it rejoins at its ADD with an empty disk",
		fmt.Sprintf("a lost replica is detected %s later and copied from the live replica whose copy slot frees first, at %g blocks per hour per source server; a copy whose source leaves first is started again; a block written, or left, with fewer replicas than asked while too few servers were in the cluster gets the rest when a server joins (HDFS's NameNode re-replicates under-replicated blocks); a block with no replica left is lost", fmtDur(o.Detect), o.BlocksPerHour),
		fmt.Sprintf("a replica is unavailable while its server is out or its tenant's average-server CPU is above %g (every server of a tenant at its average: the series are per tenant); a gap is not busy", o.BusyThreshold),
		fmt.Sprintf("%d accesses uniform over the blocks and, for each, over the time from its write to the window's end; one fails when no replica is available (or the block is lost); the same writes and accesses for both policies", o.Accesses),
		fmt.Sprintf("seeds %d to %d; spread: mean, min and max over them", rp.Seeds[0], rp.Seeds[len(rp.Seeds)-1]),
	}
	if n := outs[0][0].unwritten; n > 0 {
		rp.Warnings = append(rp.Warnings, fmt.Sprintf("%d blocks fell at instants with no machine in the cluster and were not written (seed %d; they are left out of the shares)", n, rp.Seeds[0]))
	}
	if noSeries > 0 {
		rp.Warnings = append(rp.Warnings, fmt.Sprintf("%s no series: never busy in the replay", count(noSeries, "tenant has", "tenants have")))
	}
	if len(rackIdx) < 2 {
		rp.Warnings = append(rp.Warnings, "the machines name fewer than two racks: hdfs-stock cannot put a replica on a remote rack and places it on any server")
	}
	if len(res.Tenants) < 3 {
		rp.Warnings = append(rp.Warnings, "fewer than three tenants: algorithm-2 cannot put three replicas in three tenants")
	}
	return rp, nil
}

func fmtDur(d time.Duration) string { return timeflag.FormatDuration(d) }
