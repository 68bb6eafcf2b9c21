package ingest

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
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
		p := &azureVMTable{csvRow: csvRow{file: path}, start: traceStartMs(opts, unixEpoch)}
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
		p := &azureCPU{csvRow: csvRow{file: in.Path}, start: start, key: "vm", servers: strtab.New(), tenants: strtab.New()}
		r := newLineRecords(in, p.parse)
		r.header = azureCPUHeader
		return r, nil
	case "alibaba2018-machine":
		p := &alibabaMachine{csvRow: csvRow{file: in.Path}, start: start, servers: strtab.New()}
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
// fuzzBodies fuzzes check with bodies of at most max bytes: larger files
// are the unit tests', and would only slow the fuzzer down.
func fuzzBodies(f *testing.F, max int, check func(t *testing.T, body []byte)) {
	f.Fuzz(func(t *testing.T, body []byte) {
		if len(body) > max {
			return
		}
		check(t, body)
	})
}

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
		b := traceBytes(f, name)
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
	// The samples in windows of six lines: the whole 2.5 KB v1 sample,
	// read twice per execution, kept a 10-minute run near 560/s.
	for _, name := range []string{"azure/v1_vm_cpu_readings_joined_sample.csv", "azure_v2/vm_cpu_readings_v2_sample.csv"} {
		b := traceBytes(f, name)
		addLineWindows(f, b, 6)
	}
	f.Add([]byte("timestamp,vmid,min,max,avg\n0,a,1,2,3\n0,a,1,2,3\n1e13,b,,,\n\"q,\"\"x\",1,2,4,5\n-0,c,1,2,100\n"))
	fuzzBodies(f, 2048, func(t *testing.T, body []byte) {
		// Bodies up to 2 KB: each is read twice (and written back); the
		// whole files are the unit tests'.
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
		f.Add(traceBytes(f, name))
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
	f.Add(traceBytes(f, "alibaba2018", "machine_usage_sample.csv"))
	f.Add([]byte("m_1,1,1,,,,,,\nm_1,1,1,1,,,,,\n,1,1,1,1,1,1,1,1\nm,2,100,100,x,y,z,w,v\n"))
	fuzzBodies(f, 2048, func(t *testing.T, body []byte) {
		// Bodies up to 2 KB, as FuzzAzureCPU: a run whose corpus grew
		// without a bound managed 580/s.
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
		f.Add(traceBytes(f, "google2019", name))
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
// TestGoogleUsageParquetCorrupt flips bytes of a real shard (and cuts it
// short) at seeded random places: a corrupt shard is refused as a whole or
// its rows read as records in range, never a crash. Arrow's Parquet reader
// costs about a millisecond per shard opened, so this is a test over a
// few hundred corruptions, not a fuzz target (the bar is 1,000 executions
// a second); FuzzGoogleUsageParquet fuzzes wlprof's part of the reader,
// the column accessors and rows, on records built in memory.
func TestGoogleUsageParquetCorrupt(t *testing.T) {
	dir := t.TempDir()
	shard := filepath.Join(dir, "instance_usage.parquet")
	writeGoogleParquet(t, shard, googleJSONRows(t), 4)
	good, err := os.ReadFile(shard)
	if err != nil {
		t.Fatal(err)
	}
	read := func(body []byte) (got *ingested, err error) {
		defer func() {
			if e := recover(); e != nil {
				got, err = nil, fmt.Errorf("corrupt Parquet file (%v)", e)
			}
		}()
		return fuzzIngest(t, "google2019-usage", shard, body, DefaultOptions())
	}
	want, err := read(good)
	if err != nil || len(want.usage) == 0 || len(want.rejects) == 0 {
		t.Fatalf("the unchanged shard: %v, %+v", err, want)
	}
	rng := rand.New(rand.NewPCG(16, 22))
	refused, read1 := 0, 0
	for i := 0; i < 400; i++ {
		body := append([]byte{}, good...)
		if i%8 == 7 {
			body = body[:rng.IntN(len(body))]
		} else {
			body[rng.IntN(len(body))] ^= byte(1 + rng.IntN(255))
		}
		got, err := read(body)
		if err != nil {
			refused++
			continue
		}
		read1++
		for j, u := range got.usage {
			if !(u.CPU >= 0 && u.CPU <= 1) || !(math.IsNaN(u.Memory) || u.Memory >= 0 && u.Memory <= 1) || u.Tenant == "" || u.Server == "" {
				t.Fatalf("corruption %d: record %d out of range: %+v", i, j, u)
			}
		}
	}
	if refused == 0 || read1 == 0 {
		t.Fatalf("of 400 corruptions %d were refused and %d read: want some of each (the test would not see a reader that refuses or accepts everything)", refused, read1)
	}
}

// googleFuzzRow is 66 bytes of fuzz input: a 16-bit null mask and the
// values of start_time, end_time, collection_id, instance_index,
// machine_id, alloc_collection_id, average_usage.cpus and .memory.
const googleFuzzRow = 2 + 8*8

// FuzzGoogleUsageParquet reads rows of an instance_usage record batch,
// built in memory from the fuzz input with column types the input picks
// (each integer column INT64, UINT64, INT32 or decimal strings, the
// floats DOUBLE or FLOAT, nulls and a null average_usage struct), through
// googleParquet's accessors and rows, and checks every row against the
// same row written as a JSON line and read by the JSON reader (an
// independent path to the same googleRows.record): same record or same
// reason. A value JSON cannot carry (NaN, ±Inf) must be a reject.
func FuzzGoogleUsageParquet(f *testing.F) {
	row := func(mask uint16, v ...uint64) []byte {
		b := binary.LittleEndian.AppendUint16(nil, mask)
		for _, x := range v {
			b = binary.LittleEndian.AppendUint64(b, x)
		}
		return b
	}
	real := row(0, 1838400000000, 1838700000000, 330587238433, 111, 23624491139, 330587160469, math.Float64bits(0.008392333984375), math.Float64bits(0.0094757080078125))
	f.Add(uint16(0), byte(0), real)
	f.Add(uint16(0x5555), byte(1), append(append([]byte{}, real...), row(0x0040, 0, 1, 2, 3, 4, 5, math.Float64bits(math.NaN()), math.Float64bits(2))...))
	f.Add(uint16(0xaaaa|0x8000), byte(2), append(row(0x03ff, 0, 0, 0, 0, 0, 0, 0, 0), real...))
	f.Add(uint16(0xffff), byte(3), append(append(append([]byte{}, real...), real...), real...))
	f.Fuzz(func(t *testing.T, types uint16, split byte, data []byte) {
		// At most 8 rows: the 10-minute run's corpus grew to inputs of
		// up to 64 rows (each built as arrow arrays and as JSON lines) and
		// the rate fell from 1,500/s in its first minute to 327/s over ten;
		// with 16 rows it ran at 919/s. The readers keep no state from row
		// to row that 8 rows miss; batches (split) still cut them in up to
		// three.
		n := len(data) / googleFuzzRow
		if n == 0 || n > 8 {
			return
		}
		key := "collection"
		if types&0x8000 != 0 {
			key = "machine"
		}
		names := []string{"start_time", "end_time", "collection_id", "instance_index", "machine_id", "alloc_collection_id"}
		var fields []arrow.Field
		var ints []func(i int, v uint64, null bool) (json string)
		var cols []arrow.Array
		mask := make([]uint16, n)
		vals := make([][8]uint64, n)
		for i := range n {
			b := data[i*googleFuzzRow:]
			mask[i] = binary.LittleEndian.Uint16(b)
			for j := range 8 {
				vals[i][j] = binary.LittleEndian.Uint64(b[2+8*j:])
			}
		}
		mem := memory.DefaultAllocator
		for c, name := range names {
			var bld array.Builder
			var dt arrow.DataType
			kind := types >> (2 * c) & 3
			switch kind {
			case 0:
				dt = arrow.PrimitiveTypes.Int64
			case 1:
				dt = arrow.PrimitiveTypes.Uint64
			case 2:
				dt = arrow.PrimitiveTypes.Int32
			default:
				dt = arrow.BinaryTypes.String
			}
			bld = array.NewBuilder(mem, dt)
			for i := range n {
				v, null := vals[i][c], mask[i]&(1<<c) != 0
				switch {
				case null:
					bld.AppendNull()
				case kind == 0:
					bld.(*array.Int64Builder).Append(int64(v))
				case kind == 1:
					bld.(*array.Uint64Builder).Append(v)
				case kind == 2:
					bld.(*array.Int32Builder).Append(int32(v))
				case v%7 == 0: // not a number: read as null
					bld.(*array.StringBuilder).Append("x" + strconv.FormatInt(int64(v), 10))
				default:
					bld.(*array.StringBuilder).Append(strconv.FormatInt(int64(v), 10))
				}
			}
			fields = append(fields, arrow.Field{Name: name, Type: dt, Nullable: true})
			cols = append(cols, bld.NewArray())
			bld.Release()
			ints = append(ints, func(i int, v uint64, null bool) string {
				switch {
				case null, kind == 1 && v > math.MaxInt64, kind == 3 && v%7 == 0:
					return "null"
				case kind == 2:
					return strconv.FormatInt(int64(int32(v)), 10)
				}
				return strconv.FormatInt(int64(v), 10)
			})
		}
		ft := arrow.PrimitiveTypes.Float64
		if types&0x1000 != 0 {
			ft = arrow.PrimitiveTypes.Float32
		}
		st := arrow.StructOf(arrow.Field{Name: "cpus", Type: ft, Nullable: true}, arrow.Field{Name: "memory", Type: ft, Nullable: true})
		sb := array.NewStructBuilder(mem, st)
		float := func(v uint64) float64 {
			x := math.Float64frombits(v)
			if ft == arrow.PrimitiveTypes.Float32 {
				x = float64(float32(x))
			}
			return x
		}
		for i := range n {
			if mask[i]&(1<<8) != 0 {
				sb.AppendNull()
				continue
			}
			sb.Append(true)
			for k := range 2 {
				fb := sb.FieldBuilder(k)
				switch {
				case mask[i]&(1<<(9+k)) != 0:
					fb.AppendNull()
				case ft == arrow.PrimitiveTypes.Float32:
					fb.(*array.Float32Builder).Append(float32(float(vals[i][6+k])))
				default:
					fb.(*array.Float64Builder).Append(float(vals[i][6+k]))
				}
			}
		}
		fields = append(fields, arrow.Field{Name: "average_usage", Type: st, Nullable: true})
		cols = append(cols, sb.NewArray())
		sb.Release()
		schema := arrow.NewSchema(fields, nil)
		// One to three batches, as row groups come.
		var recs []arrow.Record
		cuts := []int{0, int(split) % (n + 1), n}
		if split&0x80 != 0 {
			cuts = []int{0, n}
		}
		slices.Sort(cuts)
		for k := 0; k+1 < len(cuts); k++ {
			if cuts[k] == cuts[k+1] {
				continue
			}
			var sliced []arrow.Array
			for _, c := range cols {
				sliced = append(sliced, array.NewSlice(c, int64(cuts[k]), int64(cuts[k+1])))
			}
			recs = append(recs, array.NewRecord(schema, sliced, int64(cuts[k+1]-cuts[k])))
		}
		rr, err := array.NewRecordReader(schema, recs)
		if err != nil {
			t.Fatal(err)
		}
		newRows := func() *googleRows {
			return &googleRows{file: "u", key: key, start: traceStartMs(DefaultOptions(), googleTraceStart), tenants: strtab.New(), servers: strtab.New()}
		}
		pr := &googleParquet{parquetInput: &parquetInput{path: "u.parquet", rr: memRecordReader{rr}}, g: newRows(), file: "u.parquet"}
		defer pr.close()
		jg := newRows()
		for i := range n {
			if !pr.Scan() {
				t.Fatalf("row %d of %d: Scan ended (%v)", i+1, n, pr.Err())
			}
			if pr.Line() != int64(i+1) {
				t.Fatalf("row %d read as row %d", i+1, pr.Line())
			}
			got, perr := pr.Record()
			// The same row as a JSON line.
			var js strings.Builder
			js.WriteString("{")
			for c, name := range names {
				if c == 5 && key != "machine" {
					continue // alloc_collection_id is read only for --tenant-key machine
				}
				js.WriteString(`"` + name + `":`)
				js.WriteString(ints[c](i, vals[i][c], mask[i]&(1<<c) != 0))
				js.WriteString(",")
			}
			unjson := false
			jf := func(k int) string {
				if mask[i]&(1<<(9+k)) != 0 {
					return "null"
				}
				x := float(vals[i][6+k])
				if math.IsNaN(x) || math.IsInf(x, 0) {
					unjson = true
					return "0"
				}
				return strconv.FormatFloat(x, 'g', -1, 64)
			}
			if mask[i]&(1<<8) != 0 {
				js.WriteString(`"average_usage":null}`)
			} else {
				fmt.Fprintf(&js, `"average_usage":{"cpus":%s,"memory":%s}}`, jf(0), jf(1))
			}
			if unjson {
				// Not read as JSON: a JSON row with 0 in its place would be
				// accepted and take a tenant id the Parquet side never gave.
				if perr == nil {
					t.Fatalf("row %d: a NaN or infinite usage was accepted: %+v", i+1, got)
				}
				continue
			}
			var want googleSample
			werr := jg.parseJSON([]byte(js.String()), int64(i+1), &want)
			switch {
			case (perr == nil) != (werr == nil):
				t.Fatalf("row %d: Parquet %v, JSON %v (%s)", i+1, perr, werr, js.String())
			case perr != nil:
				if perr.Err.Error() != werr.Err.Error() || perr.Line != int64(i+1) {
					t.Fatalf("row %d: Parquet rejects with %q at %d, JSON with %q (%s)", i+1, perr.Err, perr.Line, werr.Err, js.String())
				}
			case fmt.Sprintf("%+v", *got) != fmt.Sprintf("%+v", want):
				t.Fatalf("row %d: Parquet read %+v, JSON %+v (%s)", i+1, *got, want, js.String())
			case !got.viaAlloc && (!(got.CPU >= 0 && got.CPU <= 1) || got.Tenant == "" || got.Server == ""):
				t.Fatalf("row %d out of range: %+v", i+1, got)
			}
		}
		if pr.Scan() || pr.Err() != nil {
			t.Fatalf("after %d rows: Scan true or error %v", n, pr.Err())
		}
	})
}

// memRecordReader is an in-memory record reader where a Parquet file's
// reader goes (pqarrow.RecordReader).
type memRecordReader struct{ array.RecordReader }

func (m memRecordReader) Read() (arrow.Record, error) {
	if m.Next() {
		return m.Record(), nil
	}
	return nil, io.EOF
}

func (memRecordReader) SeekToRow(int64) error { return errors.New("not supported") }

func FuzzGoogleCollectionEvents(f *testing.F) {
	for _, name := range []string{"collection_events-000000000000.json", "collection_events_derived_rows.json"} {
		b := traceBytes(f, "google2019", name)
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

// addLineWindows adds b to the corpus in pieces of n lines.
func addLineWindows(f *testing.F, b []byte, n int) {
	lines := bytes.SplitAfter(b, []byte("\n"))
	for i := 0; i < len(lines); i += n {
		if w := bytes.Join(lines[i:min(len(lines), i+n)], nil); len(w) > 0 {
			f.Add(w)
		}
	}
}
