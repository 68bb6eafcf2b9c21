package ingest

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// Real vmids and subscriptions of the opendc vmtable sample (rows 1 and 4
// of testdata/traces/azure/v1_vmtable_opendc_sample.csv).
const (
	azVM1  = "x/XsOfHO4ocsV99i4NluqKDuxctW2MMVmwqOPAlg4wp8mqbBOe3wxBlQo0+Qx+uf"
	azSub1 = "VDU4C8cqdr+ORcqquwMRcsBA2l0SC6lCPys0wdghKROuxPYysA2XYii9Y5ZkaYaq"
	azDep1 = "Pc2VLB8aDxK2DCC96itq4vW/zVDp4wioAUiB3HoGSFYQ0o6/ZCegTpb9vEH4LeMTEWVObHTPRYEY81TYivZCMQ=="
	azVM4  = "1XiU+KpvIa3T1XP8kk3ZY71Of03+ogFL5Pag9Mc2jBuh0YqeW0Zcb9lepKLdPEDg"
	azSub4 = "8u+M3WcFp8pq183WoMB79PhK7xUzbaviOBv0qWN6Xn4mbuNVM1GYJlIjswgit+k1"
	// The first reading of the opendc readings sample (line 1).
	azReadVM = "+ZcrOp5/c/fJ6mVgP5qMZlOAGDwyjaaDNM0WoWOt2IDb47gT0UwK9lFwkPQv3C7Q"
)

// Readings without a vmtable: tenant = server = vmid; the real first line
// "0,+ZcrOp5...,2.052803,3.911587,2.86979" gives cpu 2.86979% at offset 0.
func TestAzureCPUWithoutVMTable(t *testing.T) {
	got := mustRun(t, "azure-cpu", []string{traceFile("azure", "v1_vm_cpu_readings-file-1-of-125_opendc_sample.csv")}, DefaultOptions())
	if len(got.usage) != 100 || got.res.Rejected != 0 {
		t.Fatalf("%d rows, %d rejected", len(got.usage), got.res.Rejected)
	}
	if u := got.usage[0]; u.Tenant != azReadVM || u.Server != azReadVM || u.TimeMs != 0 || !near(u.CPU, 0.0286979) {
		t.Errorf("first reading %+v", u)
	}
	if !noteContains(got.res.Files[0].Notes, "no vm table: tenant = server = vmid") {
		t.Errorf("notes %q", got.res.Files[0].Notes)
	}
}

// The opendc readings and vmtable samples do not join (fixtures SOURCES.md
// says so): with the table given, all 100 readings are unknown VMs.
func TestAzureCPUUnknownVMs(t *testing.T) {
	opts := DefaultOptions()
	opts.VMTables = []string{traceFile("azure", "v1_vmtable_opendc_sample.csv")}
	got := mustRun(t, "azure-cpu", []string{traceFile("azure", "v1_vm_cpu_readings-file-1-of-125_opendc_sample.csv")}, opts)
	if len(got.usage) != 0 || len(got.rejects) != 100 || len(got.vms) != 10 {
		t.Fatalf("%d rows, %d rejects, %d vms", len(got.usage), len(got.rejects), len(got.vms))
	}
	hasReject(t, got.rejects, 1, "unknown VM in join")
	if got.res.Files[0].Format != "azure-vmtable" || got.res.Files[1].Format != "azure-cpu" {
		t.Errorf("files %+v", got.res.Files)
	}
}

// The joined sample (hand-made readings of the real vmtable's VMs, see
// SOURCES.md): tenant = the VM's subscription, or deployment by key.
func TestAzureCPUJoined(t *testing.T) {
	table := traceFile("azure", "v1_vmtable_opendc_sample.csv")
	readings := traceFile("azure", "v1_vm_cpu_readings_joined_sample.csv")
	// auto on [readings, table]: the table is read first whatever the order.
	got := mustRun(t, "auto", []string{readings, table}, DefaultOptions())
	if len(got.usage) != 24 || len(got.rejects) != 1 {
		t.Fatalf("%d rows, %d rejects", len(got.usage), len(got.rejects))
	}
	hasReject(t, got.rejects, 25, "unknown VM in join")
	// Line 1: 2291400,<vm 1>,...,3.100000 → subscription of row 1.
	if u := got.usage[0]; u.Tenant != azSub1 || u.Server != azVM1 || u.TimeMs != 2291400_000 || !near(u.CPU, 0.031) {
		t.Errorf("first reading %+v", u)
	}
	if u := got.usage[2]; u.Tenant != azSub4 || u.Server != azVM4 {
		t.Errorf("third reading %+v", u)
	}
	subs := map[string]bool{}
	for _, u := range got.usage {
		subs[u.Tenant] = true
	}
	if len(subs) != 3 { // the 8 VMs belong to 3 subscriptions
		t.Errorf("%d subscriptions: %v", len(subs), subs)
	}

	opts := DefaultOptions()
	opts.TenantKey = "deployment"
	opts.VMTables = []string{table}
	got = mustRun(t, "azure-cpu", []string{readings}, opts)
	if u := got.usage[0]; u.Tenant != azDep1 {
		t.Errorf("deployment key: %+v", u)
	}
}

// A vmtable ingested earlier is joined from the dataset's vms table.
func TestAzureCPUJoinFromDataset(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	if _, err := runInto(t, dir, "azure-vmtable", []string{traceFile("azure", "v1_vmtable_opendc_sample.csv")}, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	got, err := runInto(t, dir, "azure-cpu", []string{traceFile("azure", "v1_vm_cpu_readings_joined_sample.csv")}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(got.usage) != 24 || got.usage[0].Tenant != azSub1 || got.res.Rejected != 1 {
		t.Fatalf("%d rows, first %+v, %d rejected", len(got.usage), got.usage[0], got.res.Rejected)
	}
	if !noteContains(got.res.Files[0].Notes, "10 rows of the dataset's vms table") {
		t.Errorf("notes %q", got.res.Files[0].Notes)
	}
	// --tenant-key vm skips the join.
	opts := DefaultOptions()
	opts.TenantKey = "vm"
	got, _ = runInto(t, dir, "azure-cpu", []string{traceFile("azure", "v1_vm_cpu_readings_joined_sample.csv")}, opts)
	if got.res.Rejected != 0 || got.res.Accepted != 25 {
		t.Errorf("vm key: %+v", got.res)
	}
}

// vmtable rows: V1 numbers (row 1 of the real sample) and V2 buckets
// (hand-written sample); cpu statistics are fractions, times offsets.
func TestAzureVMTable(t *testing.T) {
	opts := DefaultOptions()
	opts.TraceStart = time.Date(2016, 11, 16, 0, 0, 0, 0, time.UTC)
	got := mustRun(t, "azure-vmtable", []string{traceFile("azure", "v1_vmtable_opendc_sample.csv"), traceFile("azure_v2", "vmtable_v2_buckets_sample.csv")}, opts)
	if len(got.vms) != 13 || got.res.Rejected != 0 {
		t.Fatalf("%d vms, %d rejected", len(got.vms), got.res.Rejected)
	}
	start := opts.TraceStart.UnixMilli()
	// x/Xs...,VDU4...,Pc2V...,0,2591700,99.369869,3.4240942342446719,10.194309,Delay-insensitive,1,1.75
	want := dataset.VM{VMID: azVM1, Subscription: azSub1, Deployment: azDep1, CreatedMs: start, DeletedMs: start + 2591700_000,
		MaxCPU: 0.99369869, AvgCPU: 0.034240942342446719, P95MaxCPU: 0.10194309, Category: "Delay-insensitive", Cores: "1", MemoryGB: "1.75", Source: "azure-vmtable"}
	if v := got.vms[0]; v.VMID != want.VMID || v.Subscription != want.Subscription || v.Deployment != want.Deployment ||
		v.CreatedMs != want.CreatedMs || v.DeletedMs != want.DeletedMs || !near(v.MaxCPU, want.MaxCPU) || !near(v.AvgCPU, want.AvgCPU) ||
		!near(v.P95MaxCPU, want.P95MaxCPU) || v.Category != want.Category || v.Cores != want.Cores || v.MemoryGB != want.MemoryGB || v.Source != want.Source {
		t.Errorf("row 1: %+v\nwant %+v", v, want)
	}
	// Row 7 of the real sample spells the category "Unkown": kept as written.
	if got.vms[6].Category != "Unkown" {
		t.Errorf("row 7 category %q", got.vms[6].Category)
	}
	if v := got.vms[11]; v.Cores != ">24" || v.MemoryGB != ">64" {
		t.Errorf("V2 buckets: %+v", v)
	}
	// V2 readings join with the V2 table.
	opts = DefaultOptions()
	opts.VMTables = []string{traceFile("azure_v2", "vmtable_v2_buckets_sample.csv")}
	got = mustRun(t, "azure-cpu", []string{traceFile("azure_v2", "vm_cpu_readings_v2_sample.csv")}, opts)
	if len(got.usage) != 6 || got.usage[1].Tenant != "v2sub-1" || got.usage[2].Tenant != "v2sub-2" || !near(got.usage[1].CPU, 0.40) {
		t.Errorf("V2 readings: %+v", got.usage)
	}
}

func TestAzureBadInput(t *testing.T) {
	dir := t.TempDir()
	readings := writeFile(t, dir, "readings.csv", []byte(""+
		"timestamp,vmid,min,max,avg\n"+ // 1 header: skipped
		"0,vmA,1,2,1.5\n"+ // 2 ok
		"0,vmA,1,2,1.5\n"+ // 3 duplicate
		"300,vmA,1,2\n"+ // 4 four fields
		"300,vmA,1,2,NaN\n"+ // 5
		"300,vmA,1,2,-1\n"+ // 6
		"300,vmA,1,2,100.5\n"+ // 7
		"soon,vmA,1,2,3\n"+ // 8
		"-300,vmA,1,2,3\n"+ // 9
		"300,,1,2,3\n"+ // 10
		"600,vmA,1,2,100\n"+ // 11 ok
		"300,vmA,1,2,50\n")) // 12 ok: out of order
	got := mustRun(t, "azure-cpu", []string{readings}, DefaultOptions())
	if len(got.usage) != 3 || len(got.rejects) != 8 {
		t.Fatalf("%d rows, %d rejects: %+v", len(got.usage), len(got.rejects), got.rejects)
	}
	hasRejects(t, got.rejects, []lineReject{
		{3, "duplicate timestamp for this VM"}, {4, "4 fields, want 5"}, {5, "avg cpu is NaN"}, {6, "avg cpu -1 is negative"},
		{7, "avg cpu 100.5 is above 100%"}, {8, `timestamp "soon" is not seconds`}, {9, `timestamp "-300" is not seconds`}, {10, "empty vmid"},
	})
	table := writeFile(t, dir, "vmtable.csv", []byte(""+
		"vm1,s1,d1,0,300,50,20,40,Interactive,2,4\n"+ // 1 ok
		"vm2,s1,d1,600,300,50,20,40,Interactive,2,4\n"+ // 2 deleted before created
		"vm3,s1,d1,0,300,150,20,40,Interactive,2,4\n"+ // 3 maxcpu above 100
		"vm4,,d1,0,300,50,20,40,Interactive,2,4\n"+ // 4 no subscription
		"vm5,s1,d1,x,300,50,20,40,Interactive,2,4\n"+ // 5
		"vm6,s1,d1,0,300,50,20,40,Interactive,2\n")) // 6 ten fields
	got = mustRun(t, "azure-vmtable", []string{table}, DefaultOptions())
	if len(got.vms) != 1 || len(got.rejects) != 5 {
		t.Fatalf("%d vms, %d rejects: %+v", len(got.vms), len(got.rejects), got.rejects)
	}
	hasRejects(t, got.rejects, []lineReject{
		{2, "vmdeleted is before vmcreated"}, {3, "maxcpu 150 is above 100%"}, {4, "empty subscriptionid"},
		{5, `vmcreated "x" is not seconds`}, {6, "10 fields, want 11"},
	})
	if !strings.HasPrefix(got.rejects[0].Record, "vm2,") {
		t.Errorf("record %q", got.rejects[0].Record)
	}
}
