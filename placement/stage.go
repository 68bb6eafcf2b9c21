package placement

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/wlprof/wlprof/classify"
	"github.com/wlprof/wlprof/dataset"
)

// ErrNoEvents: the dataset has no machine history.
var ErrNoEvents = errors.New("placement: no machine events (ingest google2019-machine-events or alibaba2018-machine-meta first)")

// ErrNoUsage: the dataset has no usage, so machines have no tenants.
var ErrNoUsage = errors.New("placement: no usage to map machines to tenants and give tenants a peak (ingest utilisation first)")

// ErrNoServers: no machine with events is a server of the usage table
// (Run's error says how many machines there are; errors.Is matches it).
var ErrNoServers = errors.New("placement: no machine with events is a server of the usage table")

// noServersError is ErrNoServers with the number of machines.
type noServersError int

func (n noServersError) Error() string {
	return fmt.Sprintf("placement: none of the %d machines with events is a server of the usage table (machine ids must match the usage's server names; e.g. google2019-usage with machine_id, alibaba2018-machine with machine_id)", int(n))
}

func (noServersError) Is(target error) bool { return target == ErrNoServers }

// Input is what Run clusters: the machines' events, the usage table's
// servers with their primary tenants, and each tenant's peak.
type Input struct {
	Events []dataset.MachineEvent
	// ServerTenant is each usage server's primary tenant: of the tenants
	// the usage table names on it, the one with the largest summed CPU
	// (ties: the first name). SharedServers counts servers with several.
	ServerTenant  map[string]string
	SharedServers int
	Tenants       []TenantUsage
	// The usage table's first and last sample (dataset.NoTime: none).
	UsageStartMs, UsageEndMs int64
	// Series are the tenants' average servers (the classify stage's),
	// whose busy periods the replay reads; none: no tenant is ever busy.
	Series []dataset.Series
}

// TenantUsage is a tenant as the classify stage sees it.
type TenantUsage struct {
	Tenant string
	// Peak is the 99th percentile (nearest rank) of the tenant's average
	// server (classify.Tenant.Peak), a fraction of a server; NaN when unknown.
	Peak float64
}

// Load reads the machine events, maps the usage table's servers to their
// primary tenants, and takes each tenant's peak from the classify stage
// (classify.Load, whose series step builds and stores the series table
// when it is missing or stale, and classify.Run), and, for the replay, the
// tenants' series from the same classify input.
func Load(ctx context.Context, ds *dataset.Dataset, opts Options) (Input, error) {
	if err := opts.Validate(); err != nil {
		return Input{}, err
	}
	in := Input{UsageStartMs: dataset.NoTime, UsageEndMs: dataset.NoTime}
	if ds.Rows(dataset.MachineEventsTable.Name) == 0 {
		return in, ErrNoEvents
	}
	var err error
	if in.Events, err = dataset.ReadAll(ctx, ds, dataset.MachineEventsTable); err != nil {
		return in, err
	}
	if ds.Rows(dataset.UsageTable.Name) == 0 {
		return in, ErrNoUsage
	}
	sums := map[string]map[string]float64{}
	err = dataset.ScanUsageBatches(ctx, ds, func(b *dataset.UsageBatch) error {
		for i := 0; i < b.Len; i++ {
			srv := b.Servers[b.ServerIdx[i]]
			m := sums[srv]
			if m == nil {
				m = map[string]float64{}
				sums[strings.Clone(srv)] = m
			}
			ten := b.Tenants[b.TenantIdx[i]]
			if _, ok := m[ten]; !ok {
				ten = strings.Clone(ten)
			}
			if c := b.CPU[i]; !math.IsNaN(c) {
				m[ten] += c
			} else {
				m[ten] += 0
			}
			if t := b.TimeMs[i]; t != dataset.NoTime {
				if in.UsageStartMs == dataset.NoTime || t < in.UsageStartMs {
					in.UsageStartMs = t
				}
				if in.UsageEndMs == dataset.NoTime || t > in.UsageEndMs {
					in.UsageEndMs = t
				}
			}
		}
		return nil
	})
	if err != nil {
		return in, err
	}
	in.ServerTenant = make(map[string]string, len(sums))
	for srv, m := range sums {
		best, bestSum := "", math.Inf(-1)
		for t, s := range m {
			if s > bestSum || s == bestSum && t < best {
				best, bestSum = t, s
			}
		}
		in.ServerTenant[srv] = best
		if len(m) > 1 {
			in.SharedServers++
		}
	}
	copts := opts.Classify
	copts.AtMs = 0
	cin, err := classify.Load(ctx, ds, copts)
	if err != nil {
		return in, err
	}
	res, err := classify.Run(ctx, cin, copts)
	if errors.Is(err, classify.ErrNoSeries) {
		return in, ErrNoUsage
	}
	if err != nil {
		return in, err
	}
	if opts.Blocks > 0 {
		// The replay reads the tenants' busy periods from their series.
		if in.Series, err = cin.AllSeries(ctx); err != nil {
			return in, err
		}
	}
	for _, t := range res.Tenants {
		p := t.Peak
		if t.Reason == "no samples" {
			p = math.NaN()
		}
		in.Tenants = append(in.Tenants, TenantUsage{Tenant: t.Tenant, Peak: p})
	}
	return in, nil
}

// Result is the 3 × 3 clustering of the tenants with a machine history.
type Result struct {
	Version int `json:"version"`
	// The observation window (epoch ms UTC): from the earliest to the
	// latest instant of the machine events and the usage together.
	StartMs int64   `json:"start_ms"`
	EndMs   int64   `json:"end_ms"`
	Months  float64 `json:"months"` // (end − start) / 30 days
	// Machines: with events; joined to a usage server (so to a tenant);
	// not joined (left out).
	Machines         int `json:"machines"`
	JoinedMachines   int `json:"joined_machines"`
	UnjoinedMachines int `json:"unjoined_machines"`
	// Disruptions: REMOVE events of joined machines (the reimage proxy).
	Disruptions int `json:"disruptions"`
	// Storage: per server (an assumption, --server-storage), in all
	// (S), and the target of each class (S/9).
	ServerStorageBytes float64   `json:"server_storage_bytes"`
	TotalStorageBytes  float64   `json:"total_storage_bytes"`
	ClassTargetBytes   float64   `json:"class_target_bytes"`
	PeakPercentile     float64   `json:"peak_percentile"`
	Classes            []Class   `json:"classes"`
	Tenants            []Tenant  `json:"tenants"`
	Excluded           []Exclude `json:"excluded"`
	Stability          Stability `json:"stability"`
	// Replay is the durability and availability replay (null with
	// --blocks 0).
	Replay      *Replay  `json:"replay"`
	Assumptions []string `json:"assumptions"`
	Warnings    []string `json:"warnings"`
}

// Class is one of the nine classes: its tenants (by name), servers and
// storage, and the range of its members' rates and peaks.
type Class struct {
	Class        string   `json:"class"`
	ReimageGroup string   `json:"reimage_group"`
	PeakGroup    string   `json:"peak_group"`
	Tenants      []string `json:"tenants"`
	Servers      int      `json:"servers"`
	StorageBytes float64  `json:"storage_bytes"`
	// Share of S: 1/9 when balanced.
	StorageShare float64 `json:"storage_share"`
	// Ranges of the members' values; null for an empty class.
	MinRate *float64 `json:"min_reimages_per_server_month"`
	MaxRate *float64 `json:"max_reimages_per_server_month"`
	MinPeak *float64 `json:"min_peak"`
	MaxPeak *float64 `json:"max_peak"`
}

// Tenant is a primary tenant with a machine history.
type Tenant struct {
	Tenant string `json:"tenant"`
	// Servers: its usage servers with machine events (the ones whose
	// history is known; they carry its storage). UsageServers: all its
	// usage servers.
	Servers      int `json:"servers"`
	UsageServers int `json:"usage_servers"`
	Disruptions  int `json:"disruptions"`
	// ExposureMonths: Σ over its servers of the time from the server's
	// first event (or the window's start, if earlier) to the window's end,
	// in months; Rate = Disruptions / ExposureMonths.
	ExposureMonths float64 `json:"exposure_months"`
	Rate           float64 `json:"reimages_per_server_month"`
	Peak           float64 `json:"peak"`
	StorageBytes   float64 `json:"storage_bytes"`
	ReimageGroup   string  `json:"reimage_group"`
	PeakGroup      string  `json:"peak_group"`
	Class          string  `json:"class"`
}

// Exclude is a tenant left out of the classes, and why.
type Exclude struct {
	Tenant string `json:"tenant"`
	Reason string `json:"reason"`
}

// Run counts each tenant's disruptions, clusters the tenants into the 3 ×
// 3 classes and measures the reimage groups' stability.
func Run(ctx context.Context, in Input, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if len(in.Events) == 0 {
		return nil, ErrNoEvents
	}
	if len(in.ServerTenant) == 0 {
		return nil, ErrNoUsage
	}
	// Rows another writer put in the table without a time or with another
	// type are left out (ingest never writes them) and counted.
	// OUT rows (a machine not yet in service) are states that change no
	// membership: neither events nor odd.
	ev := make([]dataset.MachineEvent, 0, len(in.Events))
	odd, out := 0, 0
	for _, e := range in.Events {
		switch {
		case e.TimeMs == dataset.NoTime:
			odd++
		case e.Type == dataset.MachineAdd, e.Type == dataset.MachineRemove, e.Type == dataset.MachineUpdate:
			ev = append(ev, e)
		case e.Type == dataset.MachineOut:
			out++
		default:
			odd++
		}
	}
	if len(ev) == 0 {
		return nil, ErrNoEvents
	}
	sort.SliceStable(ev, func(a, b int) bool { return ev[a].TimeMs < ev[b].TimeMs })
	res := &Result{Version: 1, ServerStorageBytes: opts.ServerStorageBytes, PeakPercentile: 99,
		Classes: []Class{}, Tenants: []Tenant{}, Excluded: []Exclude{}, Warnings: []string{}}
	res.StartMs, res.EndMs = ev[0].TimeMs, ev[len(ev)-1].TimeMs
	if in.UsageStartMs != dataset.NoTime {
		res.StartMs = min(res.StartMs, in.UsageStartMs)
		res.EndMs = max(res.EndMs, in.UsageEndMs)
	}
	monthMs := float64(Month.Milliseconds())
	res.Months = float64(res.EndMs-res.StartMs) / monthMs
	if res.EndMs <= res.StartMs {
		return nil, errors.New("placement: the machine events and usage span no time: no rate can be measured")
	}

	// Machines: first event, disruptions (REMOVE times).
	hist := map[string]*machine{}
	var names []string
	for i := range ev {
		e := &ev[i]
		m := hist[e.Machine]
		if m == nil {
			m = &machine{name: e.Machine, firstMs: e.TimeMs}
			hist[e.Machine] = m
			names = append(names, e.Machine)
		}
		if e.Rack != "" {
			m.rack = e.Rack
		}
		switch e.Type {
		case dataset.MachineRemove:
			m.removes = append(m.removes, e.TimeMs)
		case dataset.MachineAdd:
			m.adds = append(m.adds, e.TimeMs)
		}
	}
	sort.Strings(names)
	res.Machines = len(names)
	usageServers := map[string]int{}
	for _, t := range in.ServerTenant {
		usageServers[t]++
	}
	type acc struct {
		servers, disruptions int
		exposure             float64
		machines             []*machine
	}
	per := map[string]*acc{}
	for _, n := range names {
		m := hist[n]
		t, ok := in.ServerTenant[n]
		if !ok {
			res.UnjoinedMachines++
			continue
		}
		res.JoinedMachines++
		a := per[t]
		if a == nil {
			a = &acc{}
			per[t] = a
		}
		a.servers++
		a.disruptions += len(m.removes)
		a.exposure += float64(res.EndMs-max(m.firstMs, res.StartMs)) / monthMs
		a.machines = append(a.machines, m)
		res.Disruptions += len(m.removes)
	}
	if res.JoinedMachines == 0 {
		return nil, noServersError(res.Machines)
	}

	// Tenants: with a history and a peak, or excluded with the reason.
	var members []Member
	var tenants []Tenant
	for _, tu := range sortedTenants(in.Tenants) {
		a := per[tu.Tenant]
		switch {
		case a == nil && usageServers[tu.Tenant] == 0:
			res.Excluded = append(res.Excluded, Exclude{tu.Tenant, "primary tenant of no server (every server it uses has a busier tenant)"})
			continue
		case a == nil:
			n := usageServers[tu.Tenant]
			why := fmt.Sprintf("none of its %d servers has machine events", n)
			if n == 1 {
				why = "its server has no machine events"
			}
			res.Excluded = append(res.Excluded, Exclude{tu.Tenant, why})
			continue
		case math.IsNaN(tu.Peak):
			res.Excluded = append(res.Excluded, Exclude{tu.Tenant, "no utilisation samples, so no peak"})
			continue
		case !(a.exposure > 0):
			res.Excluded = append(res.Excluded, Exclude{tu.Tenant, "its servers' events are all at the window's end: no time observed"})
			continue
		}
		t := Tenant{Tenant: tu.Tenant, Servers: a.servers, UsageServers: usageServers[tu.Tenant], Disruptions: a.disruptions,
			ExposureMonths: a.exposure, Rate: float64(a.disruptions) / a.exposure, Peak: tu.Peak,
			StorageBytes: float64(a.servers) * opts.ServerStorageBytes}
		tenants = append(tenants, t)
		members = append(members, Member{Name: t.Tenant, Rate: t.Rate, Peak: t.Peak, StorageBytes: t.StorageBytes})
		res.TotalStorageBytes += t.StorageBytes
	}
	for t := range per {
		if !hasTenant(in.Tenants, t) {
			res.Excluded = append(res.Excluded, Exclude{t, "not in the classify stage's tenants (no series)"})
		}
	}
	sort.Slice(res.Excluded, func(a, b int) bool { return res.Excluded[a].Tenant < res.Excluded[b].Tenant })
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var err error
	Cluster(members)
	res.ClassTargetBytes = res.TotalStorageBytes / 9
	for i := range tenants {
		t := &tenants[i]
		t.ReimageGroup, t.PeakGroup = ReimageGroups[members[i].Row], PeakGroups[members[i].Col]
		t.Class = ClassName(members[i].Row, members[i].Col)
	}
	res.Tenants = tenants
	res.Classes = classes(tenants, res.TotalStorageBytes)
	tm := make([][]*machine, len(tenants))
	for i := range tenants {
		tm[i] = per[tenants[i].Tenant].machines
	}
	res.Stability = stability(tm, res.StartMs, res.EndMs, opts.StabilityWindow)
	if opts.Blocks > 0 {
		if res.Replay, err = runReplay(ctx, res, members, tm, in.Series, &opts); err != nil {
			return nil, err
		}
	}
	res.Assumptions = assumptions(res, &opts)
	res.Warnings = append(res.Warnings, warnings(res, in)...)
	if odd > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d machine_events rows without a time or with a type other than ADD, REMOVE, UPDATE were left out", odd))
	}
	if out > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d machine_events rows are machines out of service (OUT: not yet installed), which never join the cluster", out))
	}

	return res, nil
}

type machine struct {
	name    string
	rack    string
	firstMs int64
	removes []int64
	adds    []int64
}

func sortedTenants(ts []TenantUsage) []TenantUsage {
	out := append([]TenantUsage(nil), ts...)
	sort.Slice(out, func(a, b int) bool { return out[a].Tenant < out[b].Tenant })
	return out
}

func hasTenant(ts []TenantUsage, name string) bool {
	for _, t := range ts {
		if t.Tenant == name {
			return true
		}
	}
	return false
}

// classes gathers the tenants into the nine classes, in row-major order.
func classes(ts []Tenant, total float64) []Class {
	out := make([]Class, 0, 9)
	for r := 0; r < 3; r++ {
		for c := 0; c < 3; c++ {
			cl := Class{Class: ClassName(r, c), ReimageGroup: ReimageGroups[r], PeakGroup: PeakGroups[c], Tenants: []string{}}
			for i := range ts {
				t := &ts[i]
				if t.ReimageGroup != cl.ReimageGroup || t.PeakGroup != cl.PeakGroup {
					continue
				}
				cl.Tenants = append(cl.Tenants, t.Tenant)
				cl.Servers += t.Servers
				cl.StorageBytes += t.StorageBytes
				cl.MinRate, cl.MaxRate = minP(cl.MinRate, t.Rate), maxP(cl.MaxRate, t.Rate)
				cl.MinPeak, cl.MaxPeak = minP(cl.MinPeak, t.Peak), maxP(cl.MaxPeak, t.Peak)
			}
			if total > 0 {
				cl.StorageShare = cl.StorageBytes / total
			}
			out = append(out, cl)
		}
	}
	return out
}

func minP(p *float64, v float64) *float64 {
	if p == nil || v < *p {
		return &v
	}
	return p
}

func maxP(p *float64, v float64) *float64 {
	if p == nil || v > *p {
		return &v
	}
	return p
}
