package dataset

// VM is one row of a cloud VM inventory (the Azure Public Dataset's
// vmtable): who owns the VM, when it lived and how busy it was. Utilisation
// readings of the VM go to usage; this table is what joins them to a tenant.
type VM struct {
	VMID         string
	Subscription string
	Deployment   string
	CreatedMs    int64   // UTC instant; NoTime when unknown
	DeletedMs    int64   // UTC instant; NoTime when unknown
	MaxCPU       float64 // fraction of the VM in [0,1]
	AvgCPU       float64 // fraction of the VM in [0,1]
	P95MaxCPU    float64 // fraction of the VM in [0,1]
	Category     string  // Delay-insensitive, Interactive, Unknown
	Cores        string  // core count as written: "8" (V1) or a bucket such as ">24" (V2)
	MemoryGB     string  // memory in GB as written: "1.75" (V1) or a bucket such as ">64" (V2)
	Source       string  // input format the row came from
}

// VMsTable holds VM inventories (format azure-vmtable).
var VMsTable = newTable("vms",
	stringCol("vmid", false, func(r *VM) *string { return &r.VMID }),
	stringCol("subscription", true, func(r *VM) *string { return &r.Subscription }),
	stringCol("deployment", true, func(r *VM) *string { return &r.Deployment }),
	timeCol("created", func(r *VM) *int64 { return &r.CreatedMs }),
	timeCol("deleted", func(r *VM) *int64 { return &r.DeletedMs }),
	float64Col("max_cpu", false, func(r *VM) *float64 { return &r.MaxCPU }),
	float64Col("avg_cpu", false, func(r *VM) *float64 { return &r.AvgCPU }),
	float64Col("p95_max_cpu", false, func(r *VM) *float64 { return &r.P95MaxCPU }),
	stringCol("category", true, func(r *VM) *string { return &r.Category }),
	stringCol("cores", true, func(r *VM) *string { return &r.Cores }),
	stringCol("memory_gb", true, func(r *VM) *string { return &r.MemoryGB }),
	stringCol("source", true, func(r *VM) *string { return &r.Source }),
)

// VMs is the transaction's writer for the vms table.
func (tx *Tx) VMs() *Writer[VM] { return WriterFor(tx, VMsTable) }

// Dataset is the dataset the transaction writes to, as committed before it
// began: formats that join with rows of earlier ingests read it.
func (tx *Tx) Dataset() *Dataset { return tx.ds }
