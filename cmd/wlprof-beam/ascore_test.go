package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/ingest"
	"github.com/wlprof/wlprof/internal/stage"
)

// The helpers every command's tests share: wlprof's answer on an input
// (coreDoc), wlprof-beam's (beamDoc), and the checks that they agree.

// solveS is the one field of a skyline document that is a time.
var solveS = regexp.MustCompile(`"solve_s": [0-9.e+-]+`)

func maskSolveS(b []byte) []byte { return solveS.ReplaceAll(b, []byte(`"solve_s": 0`)) }

// testdata is the absolute path of a file the repository bundles under
// testdata/ (the commands are given absolute paths, as a runner's workers
// need them).
func testdata(t testing.TB, rel string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("../../testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// coreDataset is wlprof ingest FORMAT PATHS into a new dataset.
func coreDataset(t testing.TB, format string, paths []string) *dataset.Dataset {
	t.Helper()
	_, ds, err := ingest.Fresh(context.Background(), filepath.Join(t.TempDir(), "ds"), format, paths, ingest.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// coreDoc is wlprof ingest FORMAT PATHS + wlprof STAGE -o json with the
// stage's options (solve_s masked), and the rejects.
func coreDoc[O, I, R any, D stage.Document](t testing.TB, st stage.Stage[O, I, R, D], format string, paths []string, opts O) ([]byte, []dataset.Reject) {
	t.Helper()
	ctx := context.Background()
	ds := coreDataset(t, format, paths)
	res, err := st.Execute(ctx, ds, opts)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, st.Document(res)); err != nil {
		t.Fatal(err)
	}
	rejects, err := dataset.ReadRejects(ctx, ds, "")
	if err != nil {
		t.Fatal(err)
	}
	return maskSolveS(buf.Bytes()), rejects
}

// docOf decodes a JSON document.
func docOf[D any](t testing.TB, b []byte) D {
	t.Helper()
	var doc D
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// beamDoc runs wlprof-beam CMD -o json -q --format FORMAT --out DIR ARGS
// and returns its exit code, stdout and DIR/file (solve_s masked in both),
// and DIR.
func beamDoc(t testing.TB, cmd, file, format string, args ...string) (int, []byte, []byte, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runBeam(append([]string{cmd, "-o", "json", "-q", "--format", format, "--out", out}, args...)...)
	if code != exitOK && code != exitRejected {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc, err := os.ReadFile(filepath.Join(out, file))
	if err != nil {
		t.Fatal(err)
	}
	return code, maskSolveS([]byte(stdout)), maskSolveS(doc), out
}

// checkAsCore fails t unless wlprof-beam CMD exited 0 and wrote want,
// wlprof CMD's document, to DIR/file and to stdout, byte for byte.
func checkAsCore(t testing.TB, cmd, file string, code int, stdout, got, want []byte) {
	t.Helper()
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s differs from wlprof %s -o json:\n%s", file, cmd, firstDiff(got, want))
	}
	if !bytes.Equal(stdout, want) {
		t.Fatalf("stdout differs from %s", file)
	}
}

// sharding is one way of splitting an input into files: shard's n and
// salt.
type sharding struct {
	n    int
	salt string
}

// checkShardings runs wlprof-beam STAGE on path split each way, one
// subtest each, and checks that it gives wlprof STAGE's document
// (checkAsCore): want, wlprof's on path, or, on shards split "by-row" (a
// key's rows spread over them), wlprof's on those shards, which ingest
// reads in the order of their names as wlprof-beam does.
func checkShardings[O, I, R any, D stage.Document](t *testing.T, st stage.Stage[O, I, R, D], file, format, path string, opts O, want []byte, shardings ...sharding) {
	t.Helper()
	for _, c := range shardings {
		t.Run(fmt.Sprintf("%d-shards-%s", c.n, c.salt), func(t *testing.T) {
			glob := shard(t, path, c.n, c.salt)
			want := want
			if c.salt == "by-row" {
				shards, _ := filepath.Glob(glob)
				want, _ = coreDoc(t, st, format, shards, opts)
			}
			start := time.Now()
			code, stdout, got, _ := beamDoc(t, st.Name, file, format, "--input", glob)
			t.Logf("%d shards: %v", c.n, time.Since(start))
			checkAsCore(t, st.Name, file, code, stdout, got, want)
		})
	}
}

// checkRejectsCSV checks DIR/rejects.csv against the rejects of wlprof's
// dataset.
func checkRejectsCSV(t *testing.T, out string, want []dataset.Reject) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, rejectsCSV))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("file,line,col,format,reason,record\n")
	for _, r := range want {
		fmt.Fprintf(&b, "%s,%d,%d,%s,%s,%s\n", r.File, r.Line, r.Col, r.Format, csvField(r.Reason), csvField(r.Record))
	}
	if string(data) != b.String() {
		t.Fatalf("rejects.csv:\n%s\nwant:\n%s", data, b.String())
	}
}

// csvField quotes s as encoding/csv does.
func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\r\n") || strings.HasPrefix(s, " ") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

// firstDiff shows the first differing line of two documents.
func firstDiff(got, want []byte) string {
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < min(len(g), len(w)); i++ {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(g), len(w))
}

// checkUsage runs wlprof-beam ARGS and fails t unless it is a usage error
// (exit 2) whose message names each of names: every problem at once.
func checkUsage(t *testing.T, args []string, names ...string) {
	t.Helper()
	code, _, stderr := runBeam(args...)
	if code != exitUsage {
		t.Fatalf("exit %d, want %d: %s", code, exitUsage, stderr)
	}
	for _, want := range names {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr %q does not name %s", stderr, want)
		}
	}
}
