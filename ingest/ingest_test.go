package ingest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/datasettest"
)

// snapshot returns every file (with its bytes) and folder below dir.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if d.IsDir() {
			out[rel+"/"] = "<dir>"
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out[rel] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func keys(m map[string]string) []string {
	var k []string
	for n := range m {
		k = append(k, n)
	}
	sort.Strings(k)
	return k
}

// sameTree fails unless the two snapshots hold the same names and bytes.
func sameTree(t testing.TB, what string, got, want map[string]string) {
	t.Helper()
	if fmt.Sprint(keys(got)) != fmt.Sprint(keys(want)) {
		t.Fatalf("%s: files differ:\n got %q\nwant %q", what, keys(got), keys(want))
	}
	for name, b := range want {
		if got[name] != b {
			t.Fatalf("%s: %s differs (%d bytes vs %d)", what, name, len(got[name]), len(b))
		}
	}
}

func openDataset(t testing.TB, dir string) *dataset.Dataset {
	t.Helper()
	ds, err := dataset.OpenOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// beginTx begins a transaction on the dataset at dir (created if need be).
func beginTx(t testing.TB, dir string) *dataset.Tx {
	t.Helper()
	_, tx := datasettest.Begin(t, dir)
	return tx
}

// ingest runs one transaction: Run, then Commit on success or Rollback.
func ingest(t testing.TB, ctx context.Context, dir, format string, paths []string, opts Options) (*Result, error) {
	t.Helper()
	tx := beginTx(t, dir)
	res, err := Run(ctx, tx, format, paths, opts)
	if err != nil {
		tx.Rollback()
		return res, err
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return res, nil
}

func mustIngest(t testing.TB, dir, format string, paths []string, opts Options) *Result {
	t.Helper()
	res, err := ingest(t, context.Background(), dir, format, paths, opts)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func fileSHA(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// usageBody is a small usage CSV: good rows, bad rows and blank lines at
// known lines.
const usageBody = "tenant,server,timestamp,cpu,memory\n" + // 1
	"t1,s1,2024-01-01T00:00:00Z,0.5,0.25\n" + // 2
	"t1,s2,2024-01-01T00:00:00Z,0.75,\n" + // 3
	"\n" + // 4
	"t2,s1,1704067200,oops,\n" + // 5 bad cpu, col 18
	"t2,s1,1704067260,0.125,0.5\n" + // 6
	",s1,1704067260,0.125,0.5\n" + // 7 empty tenant, col 1
	"\r\n" + // 8
	"t2,s1,1704067320000,1,1\n" + // 9
	"t2,s1,1704067320\n" // 10 three fields

var usageRejects = []dataset.Reject{
	{Line: 5, Col: 18, Reason: `cpu: "oops" is not a number`, Record: "t2,s1,1704067200,oops,"},
	{Line: 7, Col: 1, Reason: "empty tenant", Record: ",s1,1704067260,0.125,0.5"},
	{Line: 10, Col: 0, Reason: "3 fields, the header has 5", Record: "t2,s1,1704067320"},
}

var usageRecords = []dataset.Usage{
	{Tenant: "t1", Server: "s1", TimeMs: 1704067200000, CPU: 0.5, Memory: 0.25},
	{Tenant: "t1", Server: "s2", TimeMs: 1704067200000, CPU: 0.75, Memory: nan},
	{Tenant: "t2", Server: "s1", TimeMs: 1704067260000, CPU: 0.125, Memory: 0.5},
	{Tenant: "t2", Server: "s1", TimeMs: 1704067320000, CPU: 1, Memory: 1},
}

// nonBlankDataLines counts the lines after the header that are not empty.
func nonBlankDataLines(body string) int64 {
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	n := int64(0)
	for _, l := range lines[1:] {
		if strings.TrimSuffix(l, "\r") != "" {
			n++
		}
	}
	return n
}

func TestRunManifestAccounting(t *testing.T) {
	in := t.TempDir()
	plain := writeFile(t, in, "usage.csv", []byte(usageBody))
	gz := writeFile(t, in, "usage2.csv.gz", gzipBytes(t, []byte(usageBody)))
	dir := filepath.Join(t.TempDir(), "ds")

	var progress []FileResult
	opts := DefaultOptions()
	opts.Progress = func(fr FileResult) { progress = append(progress, fr) }
	res := mustIngest(t, dir, "csv", []string{plain}, opts)
	res2 := mustIngest(t, dir, "auto", []string{gz}, DefaultOptions())

	ds, err := dataset.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := ds.Manifest()
	if m.Ingests != 2 || res.Ingest != 1 || res2.Ingest != 2 {
		t.Fatalf("ingests: manifest %d, results %d %d", m.Ingests, res.Ingest, res2.Ingest)
	}
	lines := nonBlankDataLines(usageBody)
	if lines != 7 {
		t.Fatalf("test body has %d data lines", lines)
	}
	if len(m.Sources) != 2 {
		t.Fatalf("%d sources", len(m.Sources))
	}
	for i, c := range []struct {
		path, comp string
		res        *Result
	}{{plain, "", res}, {gz, "gzip", res2}} {
		s := m.Sources[i]
		st, _ := os.Stat(c.path)
		if s.Path != c.path || s.Format != "csv" || s.Ingest != i+1 || s.SizeBytes != st.Size() || s.SHA256 != fileSHA(t, c.path) {
			t.Errorf("source %d: %+v", i, s)
		}
		if s.Accepted+s.Rejected != lines || s.Accepted != int64(len(usageRecords)) || s.Rejected != int64(len(usageRejects)) {
			t.Errorf("source %d: accepted %d + rejected %d, want %d + %d", i, s.Accepted, s.Rejected, len(usageRecords), len(usageRejects))
		}
		wantNotes := []string{"cpu unit: fraction (detected: no value above 1; override with --cpu-unit)"}
		if c.comp != "" {
			wantNotes = append([]string{"compression: " + c.comp}, wantNotes...)
		}
		if fmt.Sprint(s.Notes) != fmt.Sprint(wantNotes) {
			t.Errorf("source %d notes %q, want %q", i, s.Notes, wantNotes)
		}
		r := c.res
		if r.Accepted != s.Accepted || r.Rejected != s.Rejected || len(r.Files) != 1 {
			t.Fatalf("result %+v does not match source %+v", r, s)
		}
		fr := r.Files[0]
		if fr.Path != c.path || fr.Format != "csv" || fr.Table != "usage" || fr.Accepted != s.Accepted || fr.Rejected != s.Rejected ||
			fmt.Sprint(fr.Notes) != fmt.Sprint(s.Notes) {
			t.Errorf("file result %+v", fr)
		}
		if len(r.Samples) != len(usageRejects) || r.Samples[0].Line != 5 || r.Samples[0].File != c.path {
			t.Errorf("samples %v", r.Samples)
		}
	}
	if len(progress) != 1 || progress[0].Path != plain || progress[0].Accepted != 4 {
		t.Errorf("progress %+v", progress)
	}

	if got := ds.Rows("usage"); got != 2*int64(len(usageRecords)) {
		t.Errorf("manifest: %d usage rows", got)
	}
	if got := ds.Rows("rejects"); got != 2*int64(len(usageRejects)) {
		t.Errorf("manifest: %d reject rows", got)
	}
	usage, err := dataset.ReadAll(context.Background(), ds, dataset.UsageTable)
	if err != nil {
		t.Fatal(err)
	}
	checkRecords(t, "usage table", usage, append(append([]dataset.Usage{}, usageRecords...), usageRecords...))

	rejects, err := dataset.ReadAll(context.Background(), ds, dataset.RejectsTable)
	if err != nil {
		t.Fatal(err)
	}
	if len(rejects) != 2*len(usageRejects) {
		t.Fatalf("%d rejects in the table", len(rejects))
	}
	for i, got := range rejects {
		want := usageRejects[i%len(usageRejects)]
		want.Ingest, want.File, want.Format = 1, plain, "csv"
		if i >= len(usageRejects) {
			want.Ingest, want.File = 2, gz
		}
		if got != want {
			t.Errorf("reject row %d:\n got %+v\nwant %+v", i, got, want)
		}
	}
}

// badBody has three bad lines.
const badBody = "tenant,server,timestamp,cpu\n" +
	"t,s,1704067200,0.5\n" +
	"t,s,1704067200,x\n" +
	"t,s,1704067200,y\n" +
	"t,s,1704067200,0.25\n" +
	"t,s,1704067200,z\n"

func TestRunMaxRejects(t *testing.T) {
	in := t.TempDir()
	good := writeFile(t, in, "good.csv", []byte(usageBody))
	bad := writeFile(t, in, "bad.csv", []byte(badBody))
	dir := filepath.Join(t.TempDir(), "ds")
	mustIngest(t, dir, "csv", []string{good}, DefaultOptions()) // something to compare
	before := snapshot(t, dir)
	if _, ok := before["manifest.json"]; !ok {
		t.Fatalf("no manifest after the first ingest: %q", keys(before))
	}

	for _, c := range []struct {
		max   int64
		paths []string
		fail  bool
	}{
		{2, []string{bad}, true},
		{0, []string{bad}, true},
		{5, []string{good, bad}, true}, // 3 + 3 rejects across files
		{3, []string{bad}, false},
		{-1, []string{good, bad, good}, false},
	} {
		opts := DefaultOptions()
		opts.MaxRejects = c.max
		ds := openDataset(t, dir)
		tx, err := ds.Begin()
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), tx, "csv", c.paths, opts)
		if !c.fail {
			if err != nil {
				t.Fatalf("max %d: %v", c.max, err)
			}
			tx.Rollback() // keep the dataset as it was for the next case
			continue
		}
		if !errors.Is(err, ErrTooManyRejects) {
			t.Fatalf("max %d: error %v, want ErrTooManyRejects", c.max, err)
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("more than %d", c.max)) || !strings.Contains(err.Error(), bad) {
			t.Errorf("max %d: error %q should give the limit and the last reject", c.max, err)
		}
		if res == nil || res.Rejected != c.max+1 {
			t.Errorf("max %d: stopped after %v rejects, want %d", c.max, res, c.max+1)
		}
		tx.Rollback()
		sameTree(t, fmt.Sprintf("after rollback (max %d)", c.max), snapshot(t, dir), before)
	}
	// The dataset still works: the lock is free and the data intact.
	mustIngest(t, dir, "csv", []string{good}, DefaultOptions())
	ds, err := dataset.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ds.Rows("usage") != 2*int64(len(usageRecords)) || ds.Manifest().Ingests != 2 {
		t.Errorf("after the failed ingests: %d usage rows, %d ingests", ds.Rows("usage"), ds.Manifest().Ingests)
	}
}

// TestRunInterrupted: an input that fails the ingest part way (more
// rejects than MaxRejects, after more than a Parquet batch of rows went to
// the staging files) rolls back: the dataset is byte-identical.
func TestRunInterrupted(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("tenant,server,timestamp,cpu\n")
	r := rand.New(rand.NewPCG(11, 12))
	rows := dataset.BatchRows + dataset.BatchRows/4
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&b, "t%d,s%d,%d,0.%d\n", r.IntN(50), r.IntN(3), 1704067200+i, r.IntN(100))
	}
	for i := 0; i < 20; i++ {
		b.WriteString("t,s,not-a-time,0.5\n")
	}
	in := t.TempDir()
	bad := writeFile(t, in, "bad.csv.gz", gzipBytes(t, b.Bytes()))
	good := writeFile(t, in, "good.csv", []byte(usageBody))
	dir := filepath.Join(t.TempDir(), "ds")
	mustIngest(t, dir, "csv", []string{good}, DefaultOptions())
	before := snapshot(t, dir)

	opts := DefaultOptions()
	opts.MaxRejects = 10
	res, err := ingest(t, context.Background(), dir, "auto", []string{good, bad}, opts)
	if !errors.Is(err, ErrTooManyRejects) || !strings.Contains(err.Error(), bad) {
		t.Fatalf("error %v: want too many rejects naming %s", err, bad)
	}
	if res == nil || res.Accepted <= int64(dataset.BatchRows) || len(res.Files) != 1 {
		t.Errorf("result %+v: the failure should come after a full batch", res)
	}
	sameTree(t, "after a failed ingest", snapshot(t, dir), before)
}

// TestDamagedCompressionIsOneReject (issue 22 #12): a compressed input
// damaged part way gives, in every format, the records of its whole lines
// before the damage and one reject for the rest, on the line after them:
// a gzip cut short, a gzip with a broken checksum, a zstd cut short.
func TestDamagedCompressionIsOneReject(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("tenant,server,timestamp,cpu\n")
	r := rand.New(rand.NewPCG(7, 8))
	const rows = 200_000
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&b, "t%d,s%d,%d,%.4f\n", r.IntN(100), r.IntN(4), 1700000000+i, r.Float64())
	}
	gz := gzipBytes(t, b.Bytes())
	badSum := bytes.Clone(gz)
	badSum[len(badSum)-6] ^= 0xff // the CRC-32 in the trailer
	zs := zstdBytes(t, b.Bytes())
	spark, err := os.ReadFile(sparkDir + "sparklens_local-1532512550423.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sparkGz := gzipBytes(t, spark)
	in := t.TempDir()
	for _, c := range []struct {
		format, name string
		data         []byte
		all          bool // every record is before the damage
	}{
		{"csv", "cut.csv.gz", gz[:len(gz)/2], false},
		{"csv", "crc.csv.gz", badSum, true},
		{"csv", "cut.csv.zst", zs[:len(zs)/2], false},
		{"spark-eventlog", "cut.jsonl.gz", sparkGz[:len(sparkGz)*3/4], false},
	} {
		path := writeFile(t, in, c.name, c.data)
		out := mustRun(t, c.format, []string{path}, DefaultOptions())
		var damaged []dataset.Reject
		for _, rj := range out.rejects {
			if strings.Contains(rj.Reason, "stream is damaged") {
				damaged = append(damaged, rj)
			}
		}
		if len(damaged) != 1 || len(out.rejects) != 1 || out.res.Accepted == 0 {
			t.Errorf("%s: %d accepted, rejects %+v: want records and the damage as the one reject", c.name, out.res.Accepted, out.rejects)
			continue
		}
		if c.format != "csv" {
			continue
		}
		// The records are exactly the whole lines before the damage,
		// and the reject is on the line after them.
		n := int64(len(out.usage))
		if c.all && n != rows || !c.all && (n == 0 || n >= rows) || damaged[0].Line != n+2 {
			t.Errorf("%s: %d records, damage reported on line %d", c.name, n, damaged[0].Line)
		}
		want := bytes.Split(b.Bytes(), []byte("\n"))[n]
		if got := fmt.Sprintf("t%s", strings.TrimPrefix(out.usage[n-1].Tenant, "t")); !bytes.HasPrefix(want, []byte(got+",")) {
			t.Errorf("%s: last record %+v, line %d of the input is %q", c.name, out.usage[n-1], n+1, want)
		}
	}
}

// countdownCtx reports cancellation once Err was asked more than n times.
type countdownCtx struct {
	context.Context
	n atomic.Int64
}

func (c *countdownCtx) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func TestRunCancelled(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("tenant,server,timestamp,cpu\n")
	const rows = 200000
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&b, "t%d,s,%d,0.5\n", i%10, 1704067200+i)
	}
	in := t.TempDir()
	big := writeFile(t, in, "big.csv", b.Bytes())
	good := writeFile(t, in, "good.csv", []byte(usageBody))
	dir := filepath.Join(t.TempDir(), "ds")
	mustIngest(t, dir, "csv", []string{good}, DefaultOptions())
	before := snapshot(t, dir)

	// Cancelled before it starts.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := ingest(t, ctx, dir, "csv", []string{good}, DefaultOptions())
	if !errors.Is(err, context.Canceled) || res.Accepted != 0 {
		t.Errorf("cancelled context: %v, %+v", err, res)
	}
	sameTree(t, "cancelled before the start", snapshot(t, dir), before)

	// Cancelled between two inputs.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	opts := DefaultOptions()
	opts.Progress = func(FileResult) { cancel() }
	res, err = ingest(t, ctx, dir, "csv", []string{good, big}, opts)
	if !errors.Is(err, context.Canceled) || len(res.Files) != 1 || res.Accepted != int64(len(usageRecords)) {
		t.Errorf("cancelled between inputs: %v, %+v", err, res)
	}
	sameTree(t, "cancelled between inputs", snapshot(t, dir), before)

	// Cancelled in the middle of an input: the first check (before the
	// file) passes, a later one fails.
	cc := &countdownCtx{Context: context.Background()}
	cc.n.Store(1)
	res, err = ingest(t, cc, dir, "csv", []string{big}, DefaultOptions())
	if !errors.Is(err, context.Canceled) || res.Accepted == 0 || res.Accepted >= rows {
		t.Errorf("cancelled mid-input: %v, accepted %d of %d", err, res.Accepted, rows)
	}
	sameTree(t, "cancelled mid-input", snapshot(t, dir), before)
}

func TestRunFormats(t *testing.T) {
	in := t.TempDir()
	plain := writeFile(t, in, "usage.csv", []byte(usageBody))
	bomCRLF := writeFile(t, in, "bom.dat", []byte("\xef\xbb\xbf\r\n \r\nServer,TS,CPU_PCT,Tenant\r\ns,1704067200,50,t\r\n"))
	zst := writeFile(t, in, "usage.zst", zstdBytes(t, []byte(usageBody)))
	odd := writeFile(t, in, "notes.txt", []byte("hello world\nsecond line\n"))
	partial := writeFile(t, in, "partial.csv", []byte("tenant,server,time\nt,s,1\n"))
	dir := filepath.Join(t.TempDir(), "ds")

	res := mustIngest(t, dir, "auto", []string{plain, bomCRLF, zst}, DefaultOptions())
	for i, fr := range res.Files {
		if fr.Format != "csv" || fr.Table != "usage" {
			t.Errorf("file %d: %+v", i, fr)
		}
	}
	if res.Files[1].Accepted != 1 || !hasNote(res.Files[1].Notes, "cpu unit: percent (from the header name)") {
		t.Errorf("BOM/CRLF file: %+v", res.Files[1])
	}
	if res.Accepted != 2*int64(len(usageRecords))+1 {
		t.Errorf("accepted %d", res.Accepted)
	}

	before := snapshot(t, dir)
	for _, p := range []string{odd, partial} {
		_, err := ingest(t, context.Background(), dir, "auto", []string{plain, p}, DefaultOptions())
		if err == nil || !strings.Contains(err.Error(), "cannot detect the format") || !strings.Contains(err.Error(), p) ||
			!strings.Contains(err.Error(), "wlprof ingest FORMAT") {
			t.Errorf("%s: error %v", p, err)
		}
		sameTree(t, "after a detection failure", snapshot(t, dir), before)
	}
	_, err := ingest(t, context.Background(), dir, "auto", []string{odd}, DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), `"hello world"`) {
		t.Errorf("error %v should quote the first line", err)
	}
	// Naming the format skips detection: the odd file fails on its header.
	_, err = ingest(t, context.Background(), dir, "csv", []string{odd}, DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "lacks column(s)") {
		t.Errorf("csv on a non-CSV file: %v", err)
	}
	_, err = ingest(t, context.Background(), dir, "nope", []string{plain}, DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), `unknown format "nope"`) || !strings.Contains(err.Error(), "csv") {
		t.Errorf("unknown format: %v", err)
	}
	sameTree(t, "after failures", snapshot(t, dir), before)

	if f, err := Lookup("csv"); err != nil || f.Table != dataset.UsageTable.Name || f.Description == "" {
		t.Errorf("Lookup(csv) = %+v, %v", f, err)
	}
	names := FormatNames()
	if !sort.StringsAreSorted(names) || len(Formats()) != len(names) || !strings.Contains(strings.Join(names, ","), "csv") {
		t.Errorf("formats %q", names)
	}

	// Detect directly on a few first lines.
	for head, want := range map[string]bool{
		"tenant,server,timestamp,cpu\n":           true,
		"\n\n\"TENANT\", host ,time, cpu_pct\r\n": true,
		"\"TENANT\" ,host,time,cpu\n":             false, // junk after a quoted field
		"\xef\xbb\xbftenant,machine,ts,cpu":       true,
		"tenant,server,timestamp\n":               false,
		"# tenant,server,timestamp,cpu\n":         false,
		"":                                        false,
		"\"tenant,server,timestamp,cpu\n":         false,
	} {
		f, err := detectedAs(t, writeFile(t, in, "detect.bin", []byte(head)))
		if got := err == nil && f.Name == "csv"; got != want {
			t.Errorf("Detect(%q) = %v, %v; want csv %v", head, f, err, want)
		}
	}
}

func TestRunDirectories(t *testing.T) {
	in := t.TempDir()
	garbage := []byte("not, a, usage, file\n")
	a := writeFile(t, in, "d/a.csv", []byte(usageBody))
	bgz := writeFile(t, in, "d/b.csv.gz", gzipBytes(t, []byte(usageBody)))
	c := writeFile(t, in, "d/sub/c.csv", []byte(usageBody))
	writeFile(t, in, "d/.hidden.csv", garbage)
	writeFile(t, in, "d/.git/x.csv", garbage)
	writeFile(t, in, "d/sub/.h", garbage)
	if err := os.Mkdir(filepath.Join(in, "d", "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(in, "d", ".hidden.csv"), filepath.Join(in, "d", "link.csv")); err != nil {
		t.Fatal(err)
	}
	single := writeFile(t, in, ".explicit.csv", []byte(usageBody)) // named explicitly: read even if hidden
	dir := filepath.Join(t.TempDir(), "ds")

	res := mustIngest(t, dir, "auto", []string{single, filepath.Join(in, "d")}, DefaultOptions())
	var got []string
	for _, fr := range res.Files {
		got = append(got, fr.Path)
	}
	want := []string{single, a, bgz, c}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("files %q, want %q", got, want)
	}
	files, err := expand([]string{filepath.Join(in, "d") + "/"})
	if err != nil || len(files) != 3 {
		t.Errorf("trailing slash: %q, %v", files, err)
	}

	if _, err := Run(context.Background(), nil, "csv", nil, DefaultOptions()); err == nil || !strings.Contains(err.Error(), "no input paths") {
		t.Errorf("no paths: %v", err)
	}
	_, err = ingest(t, context.Background(), dir, "csv", []string{filepath.Join(in, "missing.csv")}, DefaultOptions())
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing input: %v", err)
	}
}

// TestRunDeterministic ingests the same inputs into two fresh datasets with
// the same relative layout; every file must be byte-identical. One input is
// big enough for the parallel parser.
func TestRunDeterministic(t *testing.T) {
	t.Chdir(t.TempDir())
	big, _, _ := bigCSV(parallelMinBytes + 1<<20)
	writeFile(t, ".", "in/usage.csv", []byte(usageBody))
	writeFile(t, ".", "in/more.csv.gz", gzipBytes(t, []byte(badBody)))
	writeFile(t, ".", "in/big.csv", big)
	opts := DefaultOptions()
	opts.CPUUnit = UnitFraction // straight to the parallel parser
	opts.MaxRejects = -1
	for _, ds := range []string{"ds1", "ds2"} {
		mustIngest(t, ds, "auto", []string{"in"}, opts)
		mustIngest(t, ds, "csv", []string{"in/usage.csv"}, opts)
	}
	a, b := snapshot(t, "ds1"), snapshot(t, "ds2")
	sameTree(t, "two ingests of the same inputs", a, b)
	for _, name := range []string{"manifest.json", "usage/part-000001.parquet", "rejects/part-000001.parquet",
		"usage/part-000002.parquet", "rejects/part-000002.parquet"} {
		if len(a[name]) == 0 {
			t.Errorf("%s missing or empty; have %q", name, keys(a))
		}
	}
	ds, err := dataset.Open("ds1")
	if err != nil {
		t.Fatal(err)
	}
	if n := ds.Rows("usage"); n < 100000 {
		t.Errorf("only %d usage rows", n)
	}
}

type fakeFault struct{}

func (fakeFault) Error() string { return "unexpected fault address 0x1" }
func (fakeFault) RuntimeError() {}
func (fakeFault) Addr() uintptr { return 1 }

// TestRecoveredPanics: a reader's bug is reported as wlprof's internal
// error with the code position, never as "the file changed while it was
// read", which only a memory fault on the mapped input means (issue 22
// #15).
func TestRecoveredPanics(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(path, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tx := beginTx(t, filepath.Join(dir, "ds"))
	defer tx.Rollback()
	for _, c := range []struct {
		panicking func()
		want      []string
		not       string
	}{
		{func() { var a []int; _ = a[len(path)] }, []string{"in.txt: internal error in wlprof's boom reader at ingest.TestRecoveredPanics", "ingest_test.go:", "index out of range", "a bug in wlprof"}, "changed"},
		{func() { panic(fakeFault{}) }, []string{"in.txt: the file changed while it was read (unexpected fault address 0x1)"}, "internal"},
	} {
		f := &Format{Name: "boom", ingest: func(context.Context, *Input, *sink) error { c.panicking(); return nil }}
		_, _, err := ingestFile(context.Background(), tx, f, path, DefaultOptions(), &Result{}, &runState{})
		if err == nil {
			t.Fatal("no error")
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v\nwant it to contain %q", err, w)
			}
		}
		if strings.Contains(err.Error(), c.not) {
			t.Errorf("%v\nmentions %q", err, c.not)
		}
	}
}
