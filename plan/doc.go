// Package plan is the reservation-planning what-if of Morpheus (Jyothi et
// al., OSDI'16): how big the cluster must be for the recurring
// jobs' reservations, and how often their SLOs would be missed. It has the
// stage surface (Load, Run, Result.Profile) and sits above the analysis
// stages: it fits skylines with package skyline on each job's training
// runs and takes windows from package slo.
//
// # Input (Load)
//
// Every job with skylines and a window: an actionable SLO (period,
// arrival, deadline, and the period anchor, which places its periods in
// the LCM frame), else an override with period_s, arrival_s and
// deadline_s; the others are listed in not_planned with the reason. Runs
// are ordered by their start in the runs table (by id without one). Under
// a capacity Load also reads each run's samples with their memory_bytes
// and vcores, for the container sizes (below).
//
// # Packing (Pack, §6)
//
//   - The storage unit is the LCM of the periods on the skyline's step,
//     capped (one day by default). A job whose period does not divide the
//     cap gets one non-periodic reservation per instance arriving inside
//     the cap, placed alone; the LCM is then the cap itself, and windows
//     wrap around it.
//   - Cost c(t) is the load in containers; under a capacity (--capacity,
//     below) the largest share of a resource it names.
//   - Jobs are placed one at a time in the arrival order of their first
//     instance in the LCM; ties by job id.
//   - A job's skyline is trimmed of leading and trailing zero steps; each
//     remaining step is a stage (a zero step in between is a gap with
//     nothing to place). Stages are placed in reverse order: stage k in an
//     interval that ends right before stage k+1's allocation and is as
//     long as s_k / Σ_{k'≤k} s_k' of the window left (at least one step,
//     and one step left for each earlier stage). Its s_k containers are
//     gangs of one (the paper's minimum parallelism), each put on the
//     cheapest eligible step: the steps already holding the stage or the
//     one left of them (so the whole allocation stays contiguous), the
//     first one right before the next stage; ties go to the latest step.
//     fill does this in batches, exactly as one at a time would.
//   - The cost a job sees at an offset is the highest load over all its
//     instances at that offset plus what it already put there; every
//     instance gets the same offset.
//   - End points (where the last stage ends) are tried, up to EndPoints of
//     them evenly spaced from the earliest feasible to the deadline; the
//     one whose allocation meets the lowest highest cost wins (ties: the
//     lower Σ allocation × cost, then the earliest end, which leaves slack
//     for DRA before the deadline).
//   - Footprint is the peak of the packed load over the LCM; naive places
//     every skyline unchanged at its arrival; the lower bound is
//     max(⌈total area / LCM⌉, max over jobs ⌈area of one instance / window⌉).
//     While the packed peak exceeds naive's, the last-placed job with an
//     allocation at a peak step goes back to its naive placement (listed
//     in fallback_to_naive), so the plan is never worse than doing nothing.
//
// LowCost's quality (TestPackAgainstBruteForce, 60 small worlds of 3–4
// jobs over a 12-step LCM): its footprint is mean 1.115 (worst 1.750) of
// the offline optimum, optimal in 36 of 60 worlds; mean 0.916 (worst
// 1.250) of the best rigid placement. The offline optimum is §6's
// competitive-ratio yardstick, the least peak of any placement LowCost may
// make (every stage stretched over consecutive steps with gangs of one,
// the allocation contiguous, one offset for all instances), found by
// exhaustive search; LowCost can only match or exceed it. The best rigid
// placement keeps every skyline as fitted and only chooses its offset: it
// is not the optimum, and LowCost beats it (a ratio below 1) where
// stretching a stage pays. The 0.916 was once quoted as "of a brute-force
// optimum"; it is of the best rigid placement.
//
// # Capacity (--capacity, §6)
//
// "c(t) = max(load(MEM,t)/capacity(MEM,t), load(cores,t)/capacity(cores,t))":
// with a Capacity naming any of containers, memory (bytes) and cores
// (vcores, to a thousandth), c(t) is the max over the resources it names
// of load(r, t) / capacity(r), and every rule above reads c where it read
// the load: the cost a job sees at an offset (per resource the highest
// load over its instances there, plus what it put there already), the
// end point's score (its highest c, then Σ containers × c), the fallback
// (while the packed plan's max_t c(t) exceeds naive's, the last-placed job
// with an allocation at a step of that cost goes naive).
//
//   - Sizes. Each step of a job's fitted skyline has a container size:
//     the largest memory_bytes / containers and vcores / containers of the
//     training runs' samples (skylines table) in force during the step (the
//     samples skyline.Quantise takes the maximum of), rounded up to a byte
//     and a thousandth of a vcore; the job's largest where no sample of
//     the step says; 0 where none of its samples does (a warning). The
//     largest, not the mean: the reservation must hold the biggest
//     containers the step asked for. A step's memory load is its
//     containers × that size; when LowCost stretches a stage, its
//     containers keep the stage's size, so each resource's area is kept.
//   - Placement. A container goes to the eligible step (as above) whose
//     cost with it is the lowest, ties to the latest: a container of
//     stage k adds its size to each resource. The batched water-filling
//     assumes every step rises by the same amount, which sizes break; a
//     heap of the stage's steps by cost places one container at a time.
//   - Exactness. Loads are whole numbers (containers, bytes, thousandths
//     of a vcore); a share is float64(load) / float64(capacity), so equal
//     shares compare equal; the end point's Σ is rounded term by term.
//     scripts/lowcost.py does the same divisions and agrees exactly.
//   - Containers alone. load / N orders steps and end points as the load
//     does: the packing is the default one, with the shares added.
//
// The result adds (absent without a capacity; no field is renamed):
// capacity {containers, memory_bytes, vcores} (the resources named);
// footprint_share and naive_footprint_share, max_t c(t) of the packed and
// naive plans; lower_bound_share, max over the resources named of the
// resource's lower bound / its capacity, the bound being max(⌈total area
// / LCM⌉, max over jobs ⌈area of one instance / window⌉) in that resource
// (bytes, thousandths of a vcore) — every plan's share is at least this,
// as each resource's peak is at least its bound; for memory and cores
// when named, footprint_memory_bytes, naive_footprint_memory_bytes,
// lower_bound_memory_bytes and footprint_vcores, naive_footprint_vcores,
// lower_bound_vcores, each plan's peak of that resource over the LCM (at
// its own step, not necessarily the peak cost's) and its bound; and per
// placement memory_bytes and vcores, the allocation in that resource per
// step. footprint_containers and the other container fields stay the
// packed plan's containers: under a capacity the packed plan may hold
// more containers than naive at its peak (the fallback compares shares).
//
// # Held-out replay (Replay, §9) and DRA (§7)
//
// Each job's runs are split in time order: the latest Holdout share (30%,
// as §9's 70/30) is held out, the rest fitted; a job with too few runs to
// keep min-runs for the fit is fitted on all and nothing is replayed.
// A held-out run starts at the reservation's offset (it arrives with its
// data and waits for its reservation) and is served by the reservation
// alone — no opportunistic capacity, §9's worst case. Its debt grows by
// usage − allocation each step and never goes below zero (§5); it misses
// its SLO when work is left at the deadline (the debt plus any usage it
// has not reached yet). Usage is the run quantised as the fit sees it (the
// maximum within each step).
//
// DRA offline: there is no pending ask in a trace, so a run's demand is
// its usage plus its debt; when that exceeds the allocation, DRA grants
// the shortfall, capped at ρ × the largest allocation of the last
// R_recent (defaults T = 1 min, R_recent = 2 min, ρ = 2), re-evaluated at
// every step (T rounds to the step), only before the deadline. DRA
// "stretches" the skyline (§7) up to the deadline: a run still behind
// after the reservation's last step (its usage went on, or work is left
// when both have ended) keeps getting DRA until the deadline, capped by
// the reservation's last R_recent, as if its last allocation went on
// (§7's TPC-H Query1: "extending the 1000 containers allocation at the
// end of Red1 by an extra minute"). The replay stopped at the later of
// the run's and the reservation's last step, and the cap fell to zero
// R_recent after the reservation's end, so such runs missed with DRA
// where they need not. DRA adds containers and never removes any, so it
// never adds a miss.
//
// The α trade-off refits every job at each α of AlphaSweep on its
// training runs and replays the held-out runs against that skyline at the
// job's arrival (not repacked), without DRA.
//
// Not yet: the report's planning section, the alignment penalty of §7;
// the report plans with the default cost (no capacity).
package plan
