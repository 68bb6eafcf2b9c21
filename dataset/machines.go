package dataset

// Machine event types: the Google ClusterData2019 MachineEvent types, which
// the other machine-history formats are mapped onto.
const (
	MachineAdd    = "ADD"    // the machine joins the cluster (or returns to it)
	MachineRemove = "REMOVE" // the machine leaves it (failure, repair, reimage...)
	MachineUpdate = "UPDATE" // capacity or attributes change while in service
	// MachineOut is a status record of a machine that is not in the cluster
	// and stays out: Alibaba's machine_meta rows of a machine not yet in
	// service (IMPORT_INSTALLING). It changes no membership.
	MachineOut = "OUT"
)

// MachineEvent is one change in a machine's membership of the cluster: what
// the placement stage counts disruptions (REMOVE→ADD cycles) from.
type MachineEvent struct {
	Machine string // machine id as the usage table's server names it
	TimeMs  int64  // UTC instant
	Type    string // MachineAdd, MachineRemove or MachineUpdate
	// Rack is the failure domain closest to a rack: Google's switch_id (the
	// top-of-rack switch), Alibaba's failure_domain_1. "" when unknown.
	Rack string
	// CPUs and Memory are the capacity as the source writes it, NaN when
	// absent: Google in NCU and normalised memory (fractions of the largest
	// machine), Alibaba cpu_num in cores and mem_size / 100, Kubernetes
	// (prometheus, prometheus-json) the node's allocatable cores and bytes.
	CPUs, Memory float64
	Platform     string // Google platform_id; "" when the source has none
	Source       string // input format the row came from
}

// MachineEventsTable holds machine histories (formats
// google2019-machine-events, alibaba2018-machine-meta), one row per event.
var MachineEventsTable = newTable("machine_events",
	stringCol("machine", true, func(r *MachineEvent) *string { return &r.Machine }),
	timeCol("time", func(r *MachineEvent) *int64 { return &r.TimeMs }),
	stringCol("type", true, func(r *MachineEvent) *string { return &r.Type }),
	stringCol("rack", true, func(r *MachineEvent) *string { return &r.Rack }),
	float64Col("cpus", true, func(r *MachineEvent) *float64 { return &r.CPUs }),
	float64Col("memory", true, func(r *MachineEvent) *float64 { return &r.Memory }),
	stringCol("platform", true, func(r *MachineEvent) *string { return &r.Platform }),
	stringCol("source", true, func(r *MachineEvent) *string { return &r.Source }),
)

// MachineEvents is the transaction's writer for the machine_events table.
func (tx *Tx) MachineEvents() *Writer[MachineEvent] { return WriterFor(tx, MachineEventsTable) }
