package ingest

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

// container_meta and container_usage, written from the cluster-trace-v2018
// schema (testdata/traces/SOURCES.md): auto reads container_meta first
// whatever the order of the arguments, so each usage row gets its
// container's app_du as the tenant.
func TestAlibabaContainers(t *testing.T) {
	meta, usage := traceFile("alibaba2018", "container_meta_sample.csv"), traceFile("alibaba2018", "container_usage_sample.csv")
	dir := filepath.Join(t.TempDir(), "ds")
	got, err := runInto(t, dir, "auto", []string{usage, meta}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(got.res.Files) != 2 {
		t.Fatalf("files %+v", got.res.Files)
	}
	fm, fu := got.res.Files[0], got.res.Files[1]
	if fm.Format != alibabaContainerMetaFormat || fm.Accepted != 5 || fm.Rejected != 3 {
		t.Errorf("container_meta: %+v", fm)
	}
	if fu.Format != alibabaContainerUsageFormat || fu.Accepted != 4 || fu.Rejected != 3 {
		t.Errorf("container_usage: %+v", fu)
	}
	for _, r := range []struct {
		file string
		line int64
		why  string
	}{
		{meta, 6, "container c_2 is in app_du app_1 on an earlier row, not app_9"},
		{meta, 7, `time_stamp "abc"`},
		{meta, 8, "5 fields, want 8"},
		{usage, 5, "unknown container in join"},
		{usage, 6, "duplicate time_stamp"},
		{usage, 7, "cpu_util_percent 120 is above 100%"},
	} {
		found := false
		for _, rj := range got.rejects {
			found = found || rj.File == r.file && rj.Line == r.line && strings.Contains(rj.Reason, r.why)
		}
		if !found {
			t.Errorf("no reject %s:%d %q in %+v", r.file, r.line, r.why, got.rejects)
		}
	}
	var rows []string
	for _, u := range got.usage {
		mem := "null"
		if !math.IsNaN(u.Memory) {
			mem = strconv.FormatFloat(u.Memory, 'g', -1, 64)
		}
		rows = append(rows, fmt.Sprintf("%s/%s@%d=%g,%s", u.Tenant, u.Server, u.TimeMs/1000, u.CPU, mem))
	}
	want := "app_1/c_1@386640=0.13,0.57 app_1/c_1@386650=0.15,0.57 app_1/c_2@386640=0.22,0.6 app_2/c_3@386660=0.4,null"
	if s := strings.Join(rows, " "); s != want {
		t.Errorf("usage %s\nwant  %s", s, want)
	}
	if len(got.vms) != 4 || got.vms[0].VMID != "c_1" || got.vms[0].Deployment != "app_1" || got.vms[2].Cores != "8" || got.vms[3].Category != "allocated" {
		t.Errorf("vms %+v", got.vms)
	}
	// Without container_meta, each container is its own tenant.
	alone := mustRun(t, alibabaContainerUsageFormat, []string{usage}, DefaultOptions())
	if alone.res.Accepted != 5 || alone.usage[0].Tenant != "c_1" {
		t.Errorf("without container_meta: accepted %d, first %+v", alone.res.Accepted, alone.usage[0])
	}
}

func TestAlibabaContainerDetection(t *testing.T) {
	for file, want := range map[string]string{
		"container_meta_sample.csv":  alibabaContainerMetaFormat,
		"container_usage_sample.csv": alibabaContainerUsageFormat,
		"machine_usage_sample.csv":   alibabaMachineName,
		"machine_meta_sample.csv":    alibabaMetaFormat,
	} {
		wantFormat(t, traceFile("alibaba2018", file), want)
	}
	for cols, want := range map[string]string{
		strings.Join(alibabaContainerMetaCols, ","):  alibabaContainerMetaFormat,
		strings.Join(alibabaContainerUsageCols, ","): alibabaContainerUsageFormat,
	} {
		wantFormat(t, writeFile(t, t.TempDir(), "export.csv", []byte(cols+"\n")), want)
	}
}

// FuzzAlibabaContainerUsage: never a panic; every line is a usage row or a
// reject; an accepted row written back as a container_usage line reads the
// same.
func FuzzAlibabaContainerUsage(f *testing.F) {
	f.Add(traceBytes(f, "alibaba2018", "container_usage_sample.csv"))
	f.Add([]byte("c_1,m_1,1.5,1e1,,,,,,,\n\"c,2\",m_2,0,100,0,1,2,3,4,5,6\n"))
	fuzzBodies(f, 4096, func(t *testing.T, body []byte) {
		p := &alibabaContainerUsage{csvRow: csvRow{file: "container_usage.csv"}, servers: strtab.New()}
		for i, line := range bytes.Split(body, []byte("\n")) {
			var rec dataset.Usage
			if perr := p.parse(line, int64(i+1), &rec); perr != nil {
				continue
			}
			if rec.Server == "" || rec.Tenant != rec.Server || !(rec.CPU >= 0 && rec.CPU <= 1) || !(math.IsNaN(rec.Memory) || rec.Memory >= 0 && rec.Memory <= 1) {
				t.Fatalf("line %d: accepted %+v", i+1, rec)
			}
			mem := ""
			if !math.IsNaN(rec.Memory) {
				mem = strconv.FormatFloat(rec.Memory*100, 'g', -1, 64)
			}
			back := fmt.Sprintf("%s,m,%s,%s,%s,,,,,,", csvQuote(rec.Server), strconv.FormatFloat(float64(rec.TimeMs)/1000, 'g', -1, 64),
				strconv.FormatFloat(rec.CPU*100, 'g', -1, 64), mem)
			q := &alibabaContainerUsage{csvRow: csvRow{file: "back.csv"}, servers: strtab.New()}
			var again dataset.Usage
			if perr := q.parse([]byte(back), 1, &again); perr != nil {
				t.Fatalf("line %d: %+v written back as %q: %v", i+1, rec, back, perr)
			}
			if again.Server != rec.Server || again.TimeMs != rec.TimeMs || math.Abs(again.CPU-rec.CPU) > 1e-12 {
				t.Fatalf("line %d: %+v read back as %+v", i+1, rec, again)
			}
		}
	})
}

// FuzzAlibabaContainerMeta: never a panic; an accepted first row of a
// container is a vms row of a named container and app_du.
func FuzzAlibabaContainerMeta(f *testing.F) {
	f.Add(traceBytes(f, "alibaba2018", "container_meta_sample.csv"))
	fuzzBodies(f, 4096, func(t *testing.T, body []byte) {
		p := &alibabaContainerMeta{csvRow: csvRow{file: "container_meta.csv"}, ix: newVMIndex(), strs: strtab.New(), apps: map[string]string{}}
		for i, line := range bytes.Split(body, []byte("\n")) {
			var rec dataset.VM
			if perr := p.parse(line, int64(i+1), &rec); perr != nil || p.repeat {
				continue
			}
			if rec.VMID == "" || rec.Deployment == "" || rec.Subscription != rec.Deployment || p.apps[rec.VMID] != rec.Deployment {
				t.Fatalf("line %d: accepted %+v", i+1, rec)
			}
			if o, ok := p.ix.lookup([]byte(rec.VMID)); !ok || o.deployment != rec.Deployment {
				t.Fatalf("line %d: %+v not in the join index", i+1, rec)
			}
		}
	})
}
