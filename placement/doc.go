// Package placement is the storage half of Harvest (Zhang et al.,
// "History-Based Harvesting of Spare Cycles and Storage in Large-Scale
// Datacenters", OSDI'16, §3, §4.2 Algorithm 2): the primary tenants'
// disruption (reimage) rates, their peak CPU utilisation, and the 3 × 3
// classes Algorithm 2 places replicas across. It reads the machine_events
// table (ingest formats google2019-machine-events, alibaba2018-machine-meta)
// and the usage table, and calls the classify stage's public surface
// (classify.Load and Run) for the tenants' peaks and series; no stage
// imports it. Its own surface is the stage contract (package
// internal/stage): Contract, DefaultOptions, Options.AddFlags and Validate,
// Load, Run, Result.Document, ErrNoEvents.
//
// # Disruptions (§3)
//
// The paper counts disk reimages per server per month. The public traces
// record none, so a machine's REMOVE event stands in for one: the start of
// a REMOVE→ADD cycle, or a removal the trace never closes (either way the
// data on the machine's disk is gone, which is what durability cares
// about). ADDs of machines present from the start and UPDATEs are not
// disruptions. The output says so (Result.Assumptions).
//
// # Tenants (the join)
//
// A machine of machine_events is the usage table's server of the same id
// (Google machine_id in decimal, Alibaba m_NNNN), which google2019-usage
// and alibaba2018-machine both write as the server. Its primary tenant is
// the tenant whose usage rows on it sum to the most CPU (ties: the first
// name): with google2019-usage keyed by collection a machine runs many
// tenants, and Harvest's (Zhang et al., OSDI'16) primary tenant owns its servers. Machines no
// usage row names are left out and counted (unjoined_machines); tenants
// none of whose servers has events, or without samples, are listed in
// excluded with the reason.
//
// A tenant's rate is its disruptions divided by its exposure: Σ over its
// servers with events of the time from the server's first event (or the
// window's start, when earlier) to the window's end, in months of 30
// days. The window runs from the earliest to the latest instant of the
// machine events and the usage together. Its peak is the classify stage's
// (classify.Tenant.Peak): the 99th percentile, nearest rank, of the tenant's
// average server over its observed slots, a fraction of a server.
//
// # The 3 × 3 classes (Algorithm 2 lines 4–5; Cluster)
//
// Storage: every server offers Options.ServerStorageBytes (--server-storage,
// default 4 TiB): no trace wlprof reads records disk capacity. A tenant's
// storage is that × its servers with events, S the sum over the classified
// tenants. The rule, one class per tenant ("we prevent this situation by
// selecting a single class for each tenant"):
//
//  1. sort the tenants by rate (ties: peak, then name) and lay their
//     storage end to end on [0, S); a tenant's row is the third of [0, S)
//     that holds the midpoint of its storage (infrequent, intermediate,
//     frequent);
//  2. within each row, sort by peak (ties: rate, then name) and cut the
//     row's own storage the same way into low, medium and high.
//
// Each cut falls inside at most one tenant, which goes to the side holding
// more of it, so a row holds S/3 within the largest tenant's storage s and
// a class its row's third within s, hence S/9 within 4/3·s (tested with
// seeded random tenants). Cutting each row at its own thirds, not at
// absolute multiples of S/9, keeps a row's imbalance from piling into its
// last class. Columns are per row, as the paper's figure of the split
// shows: a "high" peak among infrequent reimagers may be below a "low"
// one among frequent ones. Fewer than nine tenants leave classes empty,
// and a tenant larger than S/9 unbalances its class: both are warnings.
//
// # Stability (§3, Fig. 6)
//
// The window is cut into whole windows of --stability-window (default 30
// days; a shorter tail is left out). In each, the tenants are split into
// three reimage groups of equal counts by their disruptions per server in
// that window (as Fig. 6 does; tied tenants share the group of their tie's
// middle rank, so a crowd with no disruption is not split by name), and
// the result gives, for each pair of consecutive windows, the share of
// tenants that kept their group. With fewer than two windows (the Google
// 2019 trace is a month, Alibaba 2018 eight days) the result says the
// trace is too short.
//
// # The durability and availability replay (§6, Fig. 15/16; replay.go)
//
// Both placements replay the same world: the classified tenants' servers
// with their racks (the machines' last non-empty rack), their removals
// and returns, and each tenant's busy periods (its average-server CPU
// above --busy, default 0.66: every server of the tenant is taken to be
// busy together, since the series are per tenant). --blocks blocks
// (default 10,000; the paper used 4M) are written at instants uniform over
// the window, each by a server drawn uniformly among those in the cluster
// then, with the same writes and accesses for both policies (a random
// stream of their own), the placement choices from another. Writing every
// block at the start was tried first and is misleading: re-replication
// targets are uniform, so within a month the replicas drift away from the
// frequently removed servers (on the planted world they held 503 of 18,000
// replicas where a third was placed) and stock HDFS looks durable for
// reasons a file system that keeps writing does not share.
//
//   - hdfs-stock: the writer, another server of its rack, a server of
//     another rack (as the placement what-if's specification states it; HDFS's default puts the second
//     and third on one remote rack, which spans two racks all the same);
//   - algorithm-2 (lines 6–17): the writer; then a class, drawn uniformly
//     among those in a row and a column no replica's class uses (rows and
//     columns forgotten after every third replica) that has a tenant
//     holding no replica with a server in the cluster; a tenant of it,
//     uniformly; a server of that tenant, uniformly. With no such class:
//     one in an unused row, then any class, then any server.
//
// A REMOVE destroys every replica on the machine (it rejoins at its ADD
// with an empty disk). A lost replica is detected --detect later (default
// 10 minutes: HDFS declares a datanode dead after 10.5) and copied from the
// live replica whose copy slot frees first, each source copying
// --blocks-per-hour blocks an hour (§6: 30), one after another; a copy
// whose source leaves first starts again from another, and a block with no
// copy target waits for a server to rejoin. A block written while fewer
// servers are in the cluster than it has replicas is short from its write
// and gets the rest the same way when servers (re)join, as HDFS's
// NameNode re-replicates under-replicated blocks (Zhang et al., OSDI'16
// §6: the simulator "reconstructs lost replicas at the same rate as our
// real HDFS systems"); blocks still short at the window's end are
// counted (under_replicated_blocks). A block whose last replica
// goes is lost. --accesses accesses (default 100,000), uniform over the
// blocks and, for each, over the time from its write to the window's end,
// fail when no replica is on a server in the
// cluster whose tenant is not busy (or the block is lost). Each policy
// runs --seeds seeds from --seed (default five, as §6's five runs): blocks
// lost and failed accesses, counts and shares, mean, min and max. The runs
// are independent and run two at a time; results do not depend on
// GOMAXPROCS. Hand-checked in replay_test.go: a 3-replica block against
// spaced, bursty and racing removals (lost 0, 1, 1, 0), an access toy, the
// placement rules; on the planted world with three correlated waves over
// the frequent tenants' servers, stock HDFS lost 1 block of 6,000 on
// average (0–2 over three seeds) and Algorithm 2 none. A Google-cell-sized
// world (11,700 machines, 10,000 blocks, 100,000 accesses) replays in
// 0.35 s per seed and policy (BenchmarkRunScale). Storage never fills: the paper's trade-off between
// space and diversity (§4.2) is not modelled.
//
// # Output
//
// JSON (Result, "version": 1): the window, machine counts, storage (per
// server, S, S/9), "classes" (nine, row-major: class, reimage_group,
// peak_group, tenants, servers, storage_bytes, storage_share, the ranges
// of the members' rates and peaks, null when empty), "tenants" (each with
// servers, disruptions, exposure_months, reimages_per_server_month, peak,
// storage_bytes, its groups and class), "excluded", "stability",
// "replay" (null with --blocks 0: the parameters, and per policy
// lost_blocks, lost_share, failed_accesses, failed_share as {mean, min,
// max} and each seed's run), "assumptions", "warnings". CSV: one row per
// tenant (the replay is in the text and JSON). Text: the same as tables.
package placement
