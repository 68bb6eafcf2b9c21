package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

// traceBenchRows is the size of each generated trace benchmark input.
const traceBenchRows = 200_000

// benchTrace writes n lines made by line(i) once per benchmark.
func benchTrace(b *testing.B, name string, n int, line func(w *bufio.Writer, i int)) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := 0; i < n; i++ {
		line(w, i)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return path
}

// scanBench reads path in format b.N times and reports rows per second.
func scanBench(b *testing.B, format, path string, want int) {
	b.Helper()
	readerBench(b, path, want, func(in *Input) Reader[dataset.Usage] {
		r, err := usageReader(b, format, in, DefaultOptions())
		if err != nil {
			b.Fatal(err)
		}
		return r
	})
}

// readerBench reads path b.N times with the reader open returns and
// reports rows per second; a reject fails the benchmark.
func readerBench[T any](b *testing.B, path string, want int, open func(*Input) Reader[T]) {
	b.Helper()
	b.SetBytes(fileSize(b, path))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		r := open(in)
		if n := scanClean(b, r); r.Err() != nil || n != want {
			b.Fatalf("%d rows (%v), want %d", n, r.Err(), want)
		}
		if c, ok := r.(interface{ close() }); ok {
			c.close()
		}
		in.Close()
	}
	b.ReportMetric(float64(want)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
}

// scanClean reads r to its end and counts its records; a reject fails
// the benchmark.
func scanClean[T any](b *testing.B, r Reader[T]) int {
	n := 0
	for r.Scan() {
		if _, perr := r.Record(); perr != nil {
			b.Fatalf("reject: %v", perr)
		}
		n++
	}
	return n
}

// The NYC taxi series (10,320 rows, raw unit): a whole single-series file.
func BenchmarkSeriesCSV(b *testing.B) {
	scanBench(b, "series-csv", traceFile("timeseries", "nab_nyc_taxi.csv"), 10320)
}

// The real opendc vmids, 300-second steps, values from the fixture.
func BenchmarkAzureCPU(b *testing.B) {
	raw := traceBytes(b, "azure", "v1_vm_cpu_readings-file-1-of-125_opendc_sample.csv")
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	path := benchTrace(b, "vm_cpu_readings.csv", traceBenchRows, func(w *bufio.Writer, i int) {
		_, rest, _ := strings.Cut(lines[i%len(lines)], ",")
		fmt.Fprintf(w, "%d,%s\n", 300*(i/len(lines)), rest)
	})
	scanBench(b, "azure-cpu", path, traceBenchRows)
}

// 1,000 machines sampled every 10 s, in the shape of machine_usage.csv.
func BenchmarkAlibabaMachine(b *testing.B) {
	path := benchTrace(b, "machine_usage.csv", traceBenchRows, func(w *bufio.Writer, i int) {
		fmt.Fprintf(w, "m_%d,%d,%d,%d,,,%d.21,%d.78,%d\n", i%1000, 10*(i/1000), i%97, 50+i%43, i%61, i%59, i%7)
	})
	scanBench(b, "alibaba2018-machine", path, traceBenchRows)
}

// googleBenchRows turns the real row into n rows of 100 collections on
// 1,000 machines, 5-minute windows.
func googleBenchRows(b *testing.B, n int) [][]byte {
	raw := traceBytes(b, "google2019", "instance_usage-000000000000.json")
	row := string(bytes.TrimSpace(raw))
	out := make([][]byte, n)
	for i := range out {
		s := strings.Replace(row, `"start_time":"1838400000000"`, fmt.Sprintf(`"start_time":"%d"`, 1838400000000+int64(i/1000)*300_000_000), 1)
		s = strings.Replace(s, `"end_time":"1838700000000"`, fmt.Sprintf(`"end_time":"%d"`, 1838700000000+int64(i/1000)*300_000_000), 1)
		s = strings.Replace(s, `"machine_id":"23624491139"`, fmt.Sprintf(`"machine_id":"%d"`, 23624491139+int64(i%1000)), 1)
		s = strings.Replace(s, `"collection_id":"330587238433"`, fmt.Sprintf(`"collection_id":"%d"`, 330587238433+int64(i%100)), 1)
		out[i] = []byte(s)
	}
	return out
}

func BenchmarkGoogleUsageJSON(b *testing.B) {
	rows := googleBenchRows(b, traceBenchRows/4)
	path := benchTrace(b, "instance_usage.json", len(rows), func(w *bufio.Writer, i int) {
		w.Write(rows[i])
		w.WriteByte('\n')
	})
	scanBench(b, "google2019-usage", path, len(rows))
}

func BenchmarkGoogleUsageParquet(b *testing.B) {
	rows := googleBenchRows(b, traceBenchRows/4)
	path := filepath.Join(b.TempDir(), "instance_usage.parquet")
	writeGoogleParquet(b, path, rows, 16384)
	scanBench(b, "google2019-usage", path, len(rows))
}

// BenchmarkGoogleUsageJSONEncodingJSON is the baseline: the same lines
// decoded by encoding/json (the oracle of the scanner's test).
func BenchmarkGoogleUsageJSONEncodingJSON(b *testing.B) {
	rows := googleBenchRows(b, traceBenchRows/4)
	n := 0
	for _, r := range rows {
		n += len(r) + 1
	}
	b.SetBytes(int64(n))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, r := range rows {
			if _, ok := oracleGoogleJSON(r); !ok {
				b.Fatal("oracle refused a row")
			}
		}
	}
	b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
}

// The real collection_events row for 100,000 collections.
func BenchmarkGoogleCollectionEventsJSON(b *testing.B) {
	raw := traceBytes(b, "google2019", "collection_events-000000000000.json")
	row := string(bytes.TrimSpace(raw))
	const n = traceBenchRows / 2
	path := benchTrace(b, "collection_events.json", n, func(w *bufio.Writer, i int) {
		w.WriteString(strings.Replace(row, `"collection_id": 394454435790`, fmt.Sprintf(`"collection_id": %d`, 394454435790+int64(i)), 1))
		w.WriteByte('\n')
	})
	lineBench(b, path, n, func(string) func([]byte, int64, *dataset.Collection) *ParseError {
		ix := &collIndex{users: map[int64]string{}, strs: strtab.New()}
		return func(line []byte, lineNo int64, rec *dataset.Collection) *ParseError {
			var e collectionEvent
			if err := scanCollectionEvent(line, &e); err != nil {
				return &ParseError{Line: lineNo, Err: err}
			}
			if err := ix.record(&e, rec); err != nil {
				return &ParseError{Line: lineNo, Err: err}
			}
			return nil
		}
	})
}

// azureBenchTable writes a vmtable of n VMs in the real sample's shape
// (base64 ids, 100 subscriptions) and returns it with the ids.
func azureBenchTable(b *testing.B, n int) (string, []string) {
	ids := make([]string, n)
	var raw [48]byte
	for i := range ids {
		copy(raw[:], fmt.Sprintf("vm%046d", i))
		ids[i] = base64.StdEncoding.EncodeToString(raw[:])
	}
	path := benchTrace(b, "vmtable.csv", n, func(w *bufio.Writer, i int) {
		fmt.Fprintf(w, "%s,sub%03d,dep%05d,0,2591700,99.369869,3.4240942342446719,10.194309,Delay-insensitive,1,1.75\n", ids[i], i%100, i%5000)
	})
	return path, ids
}

func BenchmarkAzureVMTable(b *testing.B) {
	path, _ := azureBenchTable(b, traceBenchRows)
	lineBench(b, path, traceBenchRows, func(file string) func([]byte, int64, *dataset.VM) *ParseError {
		p := &azureVMTable{csvRow: csvRow{file: file}}
		return p.parse
	})
}

// BenchmarkIngestAzureJoined is `wlprof ingest azure-cpu --vmtable`: 20,000
// VMs, 200,000 readings joined to subscriptions, Parquet written, committed.
func BenchmarkIngestAzureJoined(b *testing.B) {
	table, ids := azureBenchTable(b, 20_000)
	readings := benchTrace(b, "readings.csv", traceBenchRows, func(w *bufio.Writer, i int) {
		fmt.Fprintf(w, "%d,%s,1.5,9.25,%d.5\n", 300*(i/len(ids)), ids[i%len(ids)], i%99)
	})
	b.SetBytes(fileSize(b, readings))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		opts := DefaultOptions()
		opts.VMTables = []string{table}
		res, err := ingest(b, context.Background(), filepath.Join(b.TempDir(), "ds"), "azure-cpu", []string{readings}, opts)
		if err != nil || res.Rejected != 0 || res.Accepted != traceBenchRows+20_000 {
			b.Fatalf("%v %+v", err, res)
		}
	}
	b.ReportMetric(float64(traceBenchRows)*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
}

// googleSumBenchRows is n rows in the shape of googleBenchRows, but with
// two instances of each collection on each machine it uses per window
// (1,000 rows a window: collection i%100, machine i%250, instance i%1000),
// so half the rows are added to another.
func googleSumBenchRows(b *testing.B, n int) [][]byte {
	rows := googleBenchRows(b, n)
	for i, r := range rows {
		s := strings.Replace(string(r), `"machine_id":"`+strconv.FormatInt(23624491139+int64(i%1000), 10)+`"`,
			`"machine_id":"`+strconv.FormatInt(23624491139+int64(i%250), 10)+`"`, 1)
		rows[i] = []byte(strings.Replace(s, `"instance_index":"111"`, fmt.Sprintf(`"instance_index":"%d"`, i%1000), 1))
	}
	return rows
}

// BenchmarkGoogleUsageIngest is the whole ingest (parse, sum, write the
// usage table) of 50,000 rows; "spill" holds 4,096 rows at a time, so 12
// sorted runs go to disk and are merged.
func BenchmarkGoogleUsageIngest(b *testing.B) {
	rows := googleSumBenchRows(b, traceBenchRows/4)
	jsonPath := benchTrace(b, "instance_usage.json", len(rows), func(w *bufio.Writer, i int) {
		w.Write(rows[i])
		w.WriteByte('\n')
	})
	pqPath := filepath.Join(b.TempDir(), "instance_usage.parquet")
	writeGoogleParquet(b, pqPath, rows, 16384)
	spill := DefaultOptions()
	spill.sumRows = 4096
	for _, c := range []struct {
		name, path string
		opts       Options
	}{{"json", jsonPath, DefaultOptions()}, {"parquet", pqPath, DefaultOptions()}, {"parquet-spill", pqPath, spill}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(fileSize(b, c.path))
			for i := 0; i < b.N; i++ {
				res, err := ingest(b, context.Background(), filepath.Join(b.TempDir(), "ds"), "google2019-usage", []string{c.path}, c.opts)
				if err != nil || res.Accepted != int64(len(rows)) || res.Rejected != 0 {
					b.Fatalf("%v: %d accepted, %d rejected", err, res.Accepted, res.Rejected)
				}
			}
			b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mrows/s")
		})
	}
}
