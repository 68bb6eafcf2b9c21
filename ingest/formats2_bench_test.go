package ingest

import (
	"bufio"
	"fmt"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

// lineBench reads path b.N times with parse, one record per line, and
// reports rows per second; a reject fails the benchmark.
func lineBench[T any](b *testing.B, path string, want int, parser func(file string) func([]byte, int64, *T) *ParseError) {
	b.Helper()
	readerBench(b, path, want, func(in *Input) Reader[T] { return newLineRecords(in, parser(path)) })
}

// 2,000 containers sampled every 10 s, in the shape of container_usage.csv
// (each container its own tenant: the join is a map lookup more).
func BenchmarkAlibabaContainerUsage(b *testing.B) {
	path := benchTrace(b, "container_usage.csv", traceBenchRows, func(w *bufio.Writer, i int) {
		fmt.Fprintf(w, "c_%d,m_%d,%d,%d,%d,,,,%d.21,%d.78,%d\n", i%2000, i%500, 10*(i/2000), i%97, 50+i%43, i%61, i%59, i%7)
	})
	lineBench(b, path, traceBenchRows, func(file string) func([]byte, int64, *dataset.Usage) *ParseError {
		p := &alibabaContainerUsage{csvRow: csvRow{file: file}, servers: strtab.New()}
		return p.parse
	})
}

// 200,000 instances of 1,000 jobs, in the shape of batch_instance.csv.
func BenchmarkAlibabaBatchInstance(b *testing.B) {
	path := benchTrace(b, "batch_instance.csv", traceBenchRows, func(w *bufio.Writer, i int) {
		fmt.Fprintf(w, "ins_%d,M%d_1,j_%d,1,Terminated,%d,%d,m_%d,1,1,%d,%d,0.%02d,0.%02d\n",
			i, 2+i%5, i%1000, 100+i, 160+i, i%4000, 50+i%50, 100+i%50, i%90, 10+i%89)
	})
	lineBench(b, path, traceBenchRows, func(file string) func([]byte, int64, *dataset.Instance) *ParseError {
		p := &alibabaBatchInstance{csvRow: csvRow{file: file}, strs: strtab.New()}
		return p.parse
	})
}

// 100 jobs of 10 tasks on 1,000 machines, 5-minute windows, in the shape of
// the 2011 task_usage rows (the rows one by one, before they are summed).
func BenchmarkGoogle2011TaskUsage(b *testing.B) {
	path := benchTrace(b, "task_usage.csv", traceBenchRows, func(w *bufio.Writer, i int) {
		fmt.Fprintf(w, "%d,%d,%d,%d,%d,0.%04d,0.%04d,0.07568,0.001156,0.001503,0.06787,2.861e-06,0.0001869,0.03967,0.0003567,2.445,0.007243,0,1,0\n",
			600000000+300000000*int64(i/1000), 900000000+300000000*int64(i/1000), 3418309+i%100, (i/100)%10, 4155527081+int64(i%1000), i%9999, i%7777)
	})
	lineBench(b, path, traceBenchRows, func(file string) func([]byte, int64, *googleSample) *ParseError {
		g := &googleRows{file: file, key: "collection", start: traceStartMs(DefaultOptions(), google2011TraceStart), tenants: strtab.New(), servers: strtab.New()}
		p := &g2011Usage{csvRow: csvRow{file: file}, g: g}
		return p.parse
	})
}
