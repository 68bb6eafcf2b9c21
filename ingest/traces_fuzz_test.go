package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

// fuzzIngest writes body to a file called name and reads it in format
// without a dataset (fuzzing wants thousands of runs a second): the
// format's parser is driven directly, as its ingest function does.
func fuzzIngest(t testing.TB, format, name string, body []byte, opts Options) (*ingested, error) {
	in := fuzzInput(t, name, body)
	path := in.Path
	defer in.Close()
	out := &ingested{res: &Result{}}
	collect := func(r Reader[dataset.Usage]) error {
		for r.Scan() {
			rec, perr := r.Record()
			if perr != nil {
				out.rejects = append(out.rejects, dataset.Reject{File: perr.File, Line: perr.Line, Col: int32(perr.Col), Reason: perr.Err.Error(), Record: perr.Record})
				continue
			}
			out.usage = append(out.usage, *rec)
		}
		return r.Err()
	}
	if format == "azure-vmtable" {
		p := &azureVMTable{file: path, start: traceStartMs(opts, unixEpoch)}
		r := newLineRecords(in, p.parse)
		r.header = azureVMTableHeader
		for r.Scan() {
			rec, perr := r.Record()
			if perr != nil {
				out.rejects = append(out.rejects, dataset.Reject{Line: perr.Line, Reason: perr.Err.Error(), Record: perr.Record})
				continue
			}
			out.vms = append(out.vms, *rec)
		}
		return out, r.Err()
	}
	r, err := usageReader(t, format, in, opts)
	if err != nil {
		return nil, err
	}
	return out, collect(r)
}

// usageReader builds the reader a format's ingest function builds, with
// its default keys and no join.
func usageReader(t testing.TB, format string, in *Input, opts Options) (Reader[dataset.Usage], error) {
	start := traceStartMs(opts, unixEpoch)
	switch format {
	case "series-csv":
		return newSeriesCSV(in, opts)
	case "azure-cpu":
		p := &azureCPU{file: in.Path, start: start, key: "vm", servers: strtab.New(), tenants: strtab.New()}
		r := newLineRecords(in, p.parse)
		r.header = azureCPUHeader
		return r, nil
	case "alibaba2018-machine":
		p := &alibabaMachine{file: in.Path, start: start, servers: strtab.New()}
		return newLineRecords(in, p.parse), nil
	case "google2019-usage":
		// The rows one by one, before googleSums adds up instances.
		g := &googleRows{file: in.Path, key: "collection", start: traceStartMs(opts, googleTraceStart), tenants: strtab.New(), servers: strtab.New()}
		if bytes.HasPrefix(in.Head(4), parquetMagic) {
			r, err := newGoogleParquet(context.Background(), in, g)
			if err != nil {
				return nil, err
			}
			return &googleUsageOf{r, r.close}, nil
		}
		return &googleUsageOf{newLineRecords(in, g.parseJSON), func() {}}, nil
	}
	t.Fatalf("no reader for %s", format)
	return nil, nil
}

// googleUsageOf reads the usage record of each googleSample.
type googleUsageOf struct {
	Reader[googleSample]
	done func()
}

func (r *googleUsageOf) close() { r.done() }

func (r *googleUsageOf) Record() (*dataset.Usage, *ParseError) {
	s, perr := r.Reader.Record()
	if perr != nil {
		return nil, perr
	}
	return &s.Usage, nil
}

// nonBlank counts the lines a line reader does not skip.
func nonBlank(body []byte) int {
	return len(dataLines(body))
}

// checkUsage asserts the invariants of every accepted record.
func checkUsage(t *testing.T, got *ingested, lines int, header bool) {
	t.Helper()
	n := len(got.usage) + len(got.rejects)
	if n != lines && !(header && n == lines-1) {
		t.Fatalf("%d records + %d rejects for %d non-blank lines", len(got.usage), len(got.rejects), lines)
	}
	for i, u := range got.usage {
		if !(u.CPU >= 0 && u.CPU <= 1) || !(math.IsNaN(u.Memory) || u.Memory >= 0 && u.Memory <= 1) || u.Tenant == "" || u.Server == "" {
			t.Fatalf("record %d out of range: %+v", i, u)
		}
	}
	for _, r := range got.rejects {
		if r.Line < 1 || r.Reason == "" || len(r.Record) > maxRecordText {
			t.Fatalf("malformed reject %+v", r)
		}
	}
}

func csvQuote(s string) string {
	if bytes.ContainsAny([]byte(s), ",\"\r\n") || s == "" {
		return quoteCSV(s)
	}
	return s
}

func FuzzSeriesCSV(f *testing.F) {
	for _, name := range []string{"dst/nab_style_fall_back_new_york.csv", "dst/nab_style_spring_gap_new_york.csv"} {
		b, err := os.ReadFile(traceFile(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, true)
	}
	b, _ := os.ReadFile(traceFile("timeseries", "nab_nyc_taxi.csv"))
	f.Add(b[:2000], false)
	b, _ = os.ReadFile(traceFile("timeseries", "azure_v1_vm942980_avgcpu.csv"))
	f.Add(b[:2000], false)
	f.Add([]byte("timestamp,value\n2014-11-02 01:59:59.999,1\n2014-11-02 01:00:00,2\n2014-11-02 01:00:00,3\nx\n,\n\"a\",\"b\"\n1e400,5\n"), true)
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte, local bool) {
		opts := DefaultOptions()
		if local {
			opts.Location = ny
		}
		got, err := fuzzIngest(t, "series-csv", "series.csv", body, opts)
		if err != nil {
			t.Fatal(err)
		}
		checkUsage(t, got, nonBlank(body), true)
		seen := map[int64]bool{}
		for _, u := range got.usage {
			if seen[u.TimeMs] {
				t.Fatalf("duplicate instant %d accepted", u.TimeMs)
			}
			seen[u.TimeMs] = true
		}
		// Round trip: the accepted samples written as epoch ms and
		// fractions read back identical.
		var back bytes.Buffer
		back.WriteString("timestamp,value_frac\n")
		for _, u := range got.usage {
			fmt.Fprintf(&back, "%s,%s\n", epochText(u.TimeMs), strconv.FormatFloat(u.CPU, 'g', -1, 64))
		}
		again, err := fuzzIngest(t, "series-csv", "series.csv", back.Bytes(), DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if len(again.rejects) != 0 {
			t.Fatalf("round trip rejects %+v", again.rejects)
		}
		usageEqual(t, "round trip", again.usage, got.usage)
	})
}

func FuzzAzureCPU(f *testing.F) {
	for _, name := range []string{"azure/v1_vm_cpu_readings_joined_sample.csv", "azure_v2/vm_cpu_readings_v2_sample.csv"} {
		b, err := os.ReadFile(traceFile(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("timestamp,vmid,min,max,avg\n0,a,1,2,3\n0,a,1,2,3\n1e13,b,,,\n\"q,\"\"x\",1,2,4,5\n-0,c,1,2,100\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := fuzzIngest(t, "azure-cpu", "readings.csv", body, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		checkUsage(t, got, nonBlank(body), true)
		var back bytes.Buffer
		for _, u := range got.usage {
			if u.Tenant != u.Server {
				t.Fatalf("no vmtable, yet tenant %q != vmid %q", u.Tenant, u.Server)
			}
			p := strconv.FormatFloat(u.CPU*100, 'g', -1, 64)
			fmt.Fprintf(&back, "%s,%s,%s,%s,%s\n", strconv.FormatFloat(float64(u.TimeMs)/1000, 'f', -1, 64), csvQuote(u.Server), p, p, p)
		}
		again, err := fuzzIngest(t, "azure-cpu", "readings.csv", back.Bytes(), DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if len(again.usage) != len(got.usage) {
			t.Fatalf("round trip: %d records, want %d (rejects %+v)", len(again.usage), len(got.usage), again.rejects)
		}
		for i := range got.usage {
			if a, g := again.usage[i], got.usage[i]; a.Server != g.Server || a.TimeMs != g.TimeMs || math.Abs(a.CPU-g.CPU) > 1e-15 {
				t.Fatalf("round trip record %d: %+v vs %+v", i, a, g)
			}
		}
	})
}

func FuzzAzureVMTable(f *testing.F) {
	for _, name := range []string{"azure/v1_vmtable_opendc_sample.csv", "azure_v2/vmtable_v2_buckets_sample.csv"} {
		b, err := os.ReadFile(traceFile(name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("vmid,subscriptionid,deploymentid,vmcreated,vmdeleted,maxcpu,avgcpu,p95maxcpu,vmcategory,vmcorecount,vmmemory\nv,s,d,5,1,1,1,1,,,\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := fuzzIngest(t, "azure-vmtable", "vmtable.csv", body, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		n := len(got.vms) + len(got.rejects)
		if lines := nonBlank(body); n != lines && n != lines-1 {
			t.Fatalf("%d vms + %d rejects for %d lines", len(got.vms), len(got.rejects), lines)
		}
		for _, v := range got.vms {
			if v.VMID == "" || v.Subscription == "" || v.DeletedMs < v.CreatedMs || !(v.MaxCPU >= 0 && v.MaxCPU <= 1) ||
				!(v.AvgCPU >= 0 && v.AvgCPU <= 1) || !(v.P95MaxCPU >= 0 && v.P95MaxCPU <= 1) {
				t.Fatalf("bad vm %+v", v)
			}
		}
	})
}

func FuzzAlibabaMachine(f *testing.F) {
	b, err := os.ReadFile(traceFile("alibaba2018", "machine_usage_sample.csv"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte("m_1,1,1,,,,,,\nm_1,1,1,1,,,,,\n,1,1,1,1,1,1,1,1\nm,2,100,100,x,y,z,w,v\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := fuzzIngest(t, "alibaba2018-machine", "machine_usage.csv", body, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		checkUsage(t, got, nonBlank(body), false)
		var back bytes.Buffer
		for _, u := range got.usage {
			mem := ""
			if !math.IsNaN(u.Memory) {
				mem = strconv.FormatFloat(u.Memory*100, 'g', -1, 64)
			}
			fmt.Fprintf(&back, "%s,%s,%s,%s,,,,,\n", csvQuote(u.Server), strconv.FormatFloat(float64(u.TimeMs)/1000, 'f', -1, 64),
				strconv.FormatFloat(u.CPU*100, 'g', -1, 64), mem)
		}
		again, err := fuzzIngest(t, "alibaba2018-machine", "machine_usage.csv", back.Bytes(), DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if len(again.usage) != len(got.usage) {
			t.Fatalf("round trip: %d records, want %d (rejects %+v)", len(again.usage), len(got.usage), again.rejects)
		}
		for i := range got.usage {
			a, g := again.usage[i], got.usage[i]
			if a.Server != g.Server || a.TimeMs != g.TimeMs || math.Abs(a.CPU-g.CPU) > 1e-15 ||
				!(math.IsNaN(a.Memory) && math.IsNaN(g.Memory) || math.Abs(a.Memory-g.Memory) <= 1e-15) {
				t.Fatalf("round trip record %d: %+v vs %+v", i, a, g)
			}
		}
	})
}

func FuzzGoogleUsageJSON(f *testing.F) {
	for _, name := range []string{"instance_usage-000000000000.json", "instance_usage_derived_rows.json"} {
		b, err := os.ReadFile(traceFile("google2019", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"start_time":9223372036854775807,"machine_id":"1","collection_id":null,"average_usage":{"cpus":"0.5"}}` + "\n[]\nnull\n{}\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := fuzzIngest(t, "google2019-usage", "instance_usage.json", body, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		checkUsage(t, got, nonBlank(body), false)
	})
}

// Corrupted Parquet shards: a file-level error or valid records, never a
// crash. The shard is read from memory by the parser alone, with the
// recovery ingestGoogleParquet puts around it (a full ingest per execution
// ran about 130 a second).
func FuzzGoogleUsageParquet(f *testing.F) {
	dir := f.TempDir()
	shard := filepath.Join(dir, "instance_usage.parquet")
	writeGoogleParquet(f, shard, googleJSONRows(f), 4)
	good, err := os.ReadFile(shard)
	if err != nil {
		f.Fatal(err)
	}
	read := func(t testing.TB, body []byte) (got *ingested, err error) {
		defer func() {
			if e := recover(); e != nil {
				got, err = nil, fmt.Errorf("corrupt Parquet file (%v)", e)
			}
		}()
		return fuzzIngest(t, "google2019-usage", shard, body, DefaultOptions())
	}
	want, err := read(f, good)
	if err != nil || len(want.usage) == 0 || len(want.rejects) == 0 {
		f.Fatalf("the unchanged shard: %v, %+v", err, want)
	}
	f.Add(uint(0), byte(0))
	f.Add(uint(len(good)/2), byte(0xff))
	f.Add(uint(len(good)-9), byte(1))
	f.Fuzz(func(t *testing.T, at uint, x byte) {
		body := append([]byte{}, good...)
		if x != 0 {
			body[int(at%uint(len(body)))] ^= x
		}
		got, err := read(t, body)
		if err != nil {
			return // a corrupt shard is refused as a whole
		}
		for i, u := range got.usage {
			if !(u.CPU >= 0 && u.CPU <= 1) || !(math.IsNaN(u.Memory) || u.Memory >= 0 && u.Memory <= 1) || u.Tenant == "" || u.Server == "" {
				t.Fatalf("record %d out of range: %+v", i, u)
			}
		}
		if x == 0 && (len(got.usage) != len(want.usage) || len(got.rejects) != len(want.rejects)) {
			t.Fatalf("unchanged shard: %d records, %d rejects; want %d, %d", len(got.usage), len(got.rejects), len(want.usage), len(want.rejects))
		}
	})
}

func FuzzGoogleCollectionEvents(f *testing.F) {
	for _, name := range []string{"collection_events-000000000000.json", "collection_events_derived_rows.json"} {
		b, err := os.ReadFile(traceFile("google2019", name))
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range splitLines(b) {
			f.Add(l)
		}
	}
	f.Add([]byte(`{"collection_id":"7","user":"a\/b\u0041","collection_logical_name":null}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		var e collectionEvent
		err := scanCollectionEvent(line, &e)
		if err == nil && !json.Valid(line) {
			t.Fatalf("accepted invalid JSON %q", line)
		}
		if err != nil {
			return
		}
		ix := &collIndex{users: map[int64]string{}, strs: strtab.New()}
		var rec dataset.Collection
		if err := ix.record(&e, &rec); err == nil {
			if rec.User == "" || rec.Collection != strconv.FormatInt(e.collection, 10) || ix.users[e.collection] != rec.User {
				t.Fatalf("event %+v gave %+v", e, rec)
			}
			// The user read equals what encoding/json decodes.
			var m map[string]any
			if json.Unmarshal(line, &m) == nil {
				if u, ok := m["user"].(string); ok && u != rec.User {
					t.Fatalf("user %q, encoding/json %q", rec.User, u)
				}
			}
		}
	})
}
