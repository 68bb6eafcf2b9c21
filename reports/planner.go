package reports

// Planner is what the report's answers need beyond the sections' data:
// the cluster sizing searched for a target makespan, the cores a server
// has, the harvest replay's work and job times, and the commands that
// reproduce each answer. Package pipeline fills it; nil leaves the
// answers to what the sections hold.
type Planner struct {
	// CoresPerServer is what a server of the primary tenants has, and
	// CoresFrom where that number comes from ("wlprof harvest's default,
	// the testbed of Zhang et al., OSDI'16 §6", "--server-cores").
	CoresPerServer int
	CoresFrom      string
	// CapacityContainers is the cluster's capacity in containers (plan
	// --capacity containers=N); 0 when not given.
	CapacityContainers int64
	// ClassDays are, per class, its representative tenants' utilisation
	// folded by hour of day (UTC): 24 means, a fraction of a server; a
	// class without representatives is absent.
	ClassDays map[string][]float64
	// Sizing is the smallest cluster found for a target makespan; nil
	// when no target or no workload was given (SizingMissing says what to
	// pass).
	Sizing        *Sizing
	SizingMissing string
	// HarvestRuns are the harvest replay's outcomes in the planner's
	// words; nil when the replay did not run. HarvestWindow says which
	// part of the data it replayed.
	HarvestRuns   []HarvestOutcome
	HarvestWindow string
	// Eras, when set, warns that the inputs span far more than an
	// analysis window (years apart); shown once, above the answers.
	Eras string
	// Commands reproduce a section's answer: "plan", "simulate",
	// "harvest", "skyline", "elasticity" (a job's take --job ID after it),
	// and "kubernetes" (the patches, for data from Kubernetes).
	Commands map[string]string
	// Platform is PlatformKubernetes when the data came from a Kubernetes
	// ingest (kube.FromKubernetes): the answers speak of nodes, namespaces
	// or workloads, CronJobs and pods. "" otherwise.
	Platform string
	// NodeSpare, on Kubernetes data, is the nodes' spare cores counted
	// node by node (pipeline's nodeSpare); nil otherwise, and the answer
	// then sums the classes' headroom × servers × cores.
	NodeSpare *NodeSpare
}

// NodeSpare is the spare cores of servers the tenants share (Kubernetes
// nodes running several namespaces or workloads): per node, its cores
// less what all its tenants use together, with the headroom rule of
// Zhang et al., OSDI'16 §4.1 per job type (short: now; medium: Max(mean,
// now); long: Max(P99, now)) taken on the node's total, summed over the
// nodes. Summing each class's headroom × its servers instead counts a
// node once per tenant on it.
type NodeSpare struct {
	Cores JobTypeCores
	// ByHour are the spare cores by UTC hour of day from each node's
	// total folded by hour; nil unless every node has samples in every
	// hour.
	ByHour []float64
	// Nodes counted and their cores in all.
	Nodes    int
	AllCores float64
	// CoresFrom says where a node's cores came from.
	CoresFrom string
}

// Sizing is the smallest cluster of one node shape that runs a workload
// within a target makespan, per policy (Iorgulescu et al., ATC'17 §4:
// YARN-ME meets a makespan with less memory than stock YARN).
type Sizing struct {
	Workload        string
	TargetMakespanS float64
	// Shape describes the node ("nodes of 16 GiB and 16 cores") or, for a
	// cluster of several shapes, the unit that is scaled.
	Shape string
	// NodeMemoryBytes and NodeCores of one node (0: several shapes).
	NodeMemoryBytes int64
	NodeCores       int
	Sizes           []ClusterSize
	// Searched says how: "node counts 1, 2, 4 tried, then bisected".
	Searched string
	// Why, when set, says why no cluster of this shape can meet it.
	Why string
}

// ClusterSize is one policy's smallest cluster; Nodes nil when no
// searched cluster meets the target.
type ClusterSize struct {
	Policy      string   `json:"policy"`
	Nodes       *int     `json:"nodes"`
	MemoryBytes *int64   `json:"memory_bytes"`
	MakespanS   *float64 `json:"makespan_s"`
}

// HarvestOutcome is one harvest policy's replay: the work that completed
// and the work killed, and the jobs' execution times.
type HarvestOutcome struct {
	Policy string `json:"policy"`
	// Label names the policy for a reader ("by class history (Algorithm 1)").
	Label          string   `json:"label"`
	Containers     int64    `json:"containers"`
	Completed      int64    `json:"completed"`
	Killed         int64    `json:"killed"`
	CompletedCoreH float64  `json:"completed_core_h"`
	LostCoreH      float64  `json:"lost_core_h"`
	Jobs           int      `json:"jobs"`
	JobsFinished   int      `json:"jobs_finished"`
	MeanJobS       *float64 `json:"mean_job_s"`
	P95JobS        *float64 `json:"p95_job_s"`
}
