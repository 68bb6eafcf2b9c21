package ingest

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// memInput is an Input over bytes, as Open would map them (whatever
// they hold: compressed bytes are not decompressed).
func memInput(name string, b []byte) *Input {
	in := &Input{Path: name, Size: int64(len(b)), data: b, inMemory: true}
	in.raw = &countingHash{h: sha256.New(), read: &in.read}
	return in
}

// readJobs drains a job reader into memory.
func readJobs(r Reader[jobRecord]) (runs []dataset.Run, sky []dataset.SkylineSample, rejects []*ParseError, err error) {
	for r.Scan() {
		rec, perr := r.Record()
		if perr != nil {
			rejects = append(rejects, perr)
			continue
		}
		if rec.Run != nil {
			runs = append(runs, *rec.Run)
		}
		sky = append(sky, rec.Samples...)
	}
	return runs, sky, rejects, r.Err()
}

// checkSkylines holds for every format: per run, offsets strictly
// increase from 0 or more, amounts are finite and not negative.
func checkSkylines(t *testing.T, sky []dataset.SkylineSample) {
	t.Helper()
	last := map[[2]string]float64{}
	for _, s := range sky {
		k := [2]string{s.Job, s.Run}
		if prev, ok := last[k]; ok && s.OffsetS <= prev {
			t.Fatalf("offsets do not increase: %+v after %v", s, prev)
		}
		last[k] = s.OffsetS
		if s.OffsetS < 0 || math.IsNaN(s.OffsetS) || math.IsInf(s.OffsetS, 0) || s.Containers < 0 || math.IsNaN(s.Containers) ||
			math.IsInf(s.Containers, 0) || s.MemoryBytes < 0 || s.VCores < 0 || math.IsNaN(s.VCores) {
			t.Fatalf("bad sample %+v", s)
		}
	}
}

func checkRejectLines(t *testing.T, rejects []*ParseError, body []byte) {
	t.Helper()
	n := int64(bytes.Count(body, []byte("\n")) + 1)
	for _, p := range rejects {
		if p.Line < 0 || p.Line > n || p.Err == nil || p.Err.Error() == "" {
			t.Fatalf("reject %+v outside 1..%d", p, n)
		}
	}
}

func seedFiles(f *testing.F, paths ...string) {
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// FuzzYarnRM: any input reads without panic; rejects point at lines;
// runs are at most the summary lines; skylines end at 0 (every interval
// the estimator keeps is closed).
func FuzzYarnRM(f *testing.F) {
	seedFiles(f, reDir+"rmLog.txt", reDir+"invalidLog1.txt", reDir+"invalidLog5.txt", reDir+"invalidLog9.txt")
	f.Add([]byte(plainRMLog))
	f.Fuzz(func(t *testing.T, body []byte) {
		runs, sky, rejects, err := readJobs(newYarnRM(memInput("rm.log", body), time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		checkRejectLines(t, rejects, body)
		checkSkylines(t, sky)
		if len(runs) > bytes.Count(body, []byte("ApplicationSummary")) {
			t.Fatalf("%d runs", len(runs))
		}
		ids := map[string]bool{}
		for _, r := range runs {
			if ids[r.Run] {
				t.Fatalf("run id %s twice", r.Run)
			}
			ids[r.Run] = true
		}
		end := map[string]float64{}
		for _, s := range sky {
			end[s.Run] = s.Containers
		}
		for run, c := range end {
			if c != 0 {
				t.Fatalf("skyline of %s ends at %v", run, c)
			}
		}
	})
}

// FuzzSparkEventLog: any input (plain or in a Spark codec) reads without
// panic; at most one run; skylines are well formed.
func FuzzSparkEventLog(f *testing.F) {
	// The fixtures in pieces: windows of six events, without the lines
	// over 2 KB (the 28 KB SparkListenerEnvironmentUpdate). Mutating the
	// whole 57 KB log kept the 10-minute run near 10 executions a second,
	// most of it minimizing each new input from 57 KB down; the whole
	// files are read by the Spark tests.
	for _, name := range []string{"drelephant_event_log_1.jsonl", "sparklens_local-1532512550423.jsonl"} {
		data, err := os.ReadFile(sparkDir + name)
		if err != nil {
			f.Fatal(err)
		}
		var lines [][]byte
		for _, l := range bytes.SplitAfter(data, []byte("\n")) {
			if len(l) > 0 && len(l) <= 2048 {
				lines = append(lines, l)
			}
		}
		for i := 0; i < len(lines); i += 6 {
			f.Add(bytes.Join(lines[i:min(len(lines), i+6)], nil))
		}
	}
	plain, _ := os.ReadFile(sparkDir + "sparklens_local-1532512550423.jsonl")
	f.Add(lz4JavaStream(f, plain[:3000], 512))
	f.Add(snappyJavaStream(plain[:3000], 512))
	f.Fuzz(func(t *testing.T, body []byte) {
		// Bodies up to 8 KB: longer logs are the unit tests' (the
		// fixtures whole, rolled logs, truncated and corrupt streams).
		if len(body) > 8<<10 {
			return
		}
		r := &sparkLog{file: "app", parts: []string{"app"}, first: memInput("app", body), exec: map[string]*sparkExec{}, unused: map[string]int64{}}
		runs, sky, rejects, err := readJobs(r)
		if err != nil {
			t.Fatal(err)
		}
		if sparkCodec(body) == "" {
			checkRejectLines(t, rejects, body)
		}
		checkSkylines(t, sky)
		if len(runs) > 1 || len(runs) == 0 && len(sky) > 0 {
			t.Fatalf("%d runs, %d samples", len(runs), len(sky))
		}
	})
}

// FuzzSkylineCSV: read → write → read gives the same runs and samples.
func FuzzSkylineCSV(f *testing.F) {
	seedFiles(f, skyDir+"offsets.csv", skyDir+"timestamps.csv")
	f.Fuzz(func(t *testing.T, body []byte) {
		runs, sky, rejects, err := readJobs(newSkylineCSV(memInput("s.csv", body), time.UTC))
		if err != nil {
			return // a bad header stops the file, as it should
		}
		checkRejectLines(t, rejects, body)
		checkSkylines(t, sky)
		var b bytes.Buffer
		b.WriteString("job,run,time,containers,memory_bytes,vcores\n")
		for _, s := range sky {
			fmt.Fprintf(&b, "%s,%s,%s,%s,%d,%s\n", quoteCSV(s.Job), quoteCSV(s.Run), strconv.FormatFloat(s.OffsetS, 'g', -1, 64),
				strconv.FormatFloat(s.Containers, 'g', -1, 64), s.MemoryBytes, strconv.FormatFloat(s.VCores, 'g', -1, 64))
		}
		_, sky2, rejects2, err := readJobs(newSkylineCSV(memInput("s2.csv", b.Bytes()), time.UTC))
		if err != nil || len(rejects2) != 0 {
			// Offsets of a second or more after a timestamp origin can
			// reach the timestamp range only beyond 1e9 s: not a round trip.
			for _, s := range sky {
				if s.OffsetS >= offsetLimit {
					return
				}
			}
			t.Fatalf("re-read: %v %v\n%s", err, rejects2, b.Bytes())
		}
		if len(sky) != len(sky2) || (len(sky) > 0 && !reflect.DeepEqual(sky, sky2)) {
			t.Fatalf("round trip:\n%+v\n%+v", sky, sky2)
		}
		if len(runs) > len(sky) {
			t.Fatalf("%d runs for %d samples", len(runs), len(sky))
		}
	})
}

// TestSparkSkylineOracle: seeded random executor lives, written as an
// event log; the skyline must equal an independent count of the executors
// alive at every sample offset and just before it.
func TestSparkSkylineOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := 0; trial < 50; trial++ {
		const start = int64(1_700_000_000_000)
		end := start + 1000*int64(60+rng.IntN(3600))
		type life struct{ add, rm int64 }
		var lives []life
		var b strings.Builder
		fmt.Fprintf(&b, `{"Event":"SparkListenerApplicationStart","App Name":"job-%d","App ID":"app-%d","Timestamp":%d}`+"\n", trial, trial, start)
		for i := 0; i < 1+rng.IntN(20); i++ {
			add := start + rng.Int64N(end-start)
			rm := int64(-1)
			fmt.Fprintf(&b, `{"Event":"SparkListenerExecutorAdded","Timestamp":%d,"Executor ID":"%d","Executor Info":{"Total Cores":2}}`+"\n", add, i)
			if rng.IntN(3) > 0 {
				rm = add + rng.Int64N(end-add+1)
				fmt.Fprintf(&b, `{"Event":"SparkListenerExecutorRemoved","Timestamp":%d,"Executor ID":"%d"}`+"\n", rm, i)
			}
			lives = append(lives, life{add, rm})
		}
		fmt.Fprintf(&b, `{"Event":"SparkListenerApplicationEnd","Timestamp":%d}`+"\n", end)
		r := &sparkLog{file: "x", parts: []string{"x"}, first: memInput("x", []byte(b.String())), exec: map[string]*sparkExec{}, unused: map[string]int64{}}
		runs, sky, rejects, err := readJobs(r)
		if err != nil || len(rejects) != 0 || len(runs) != 1 {
			t.Fatalf("trial %d: %v %v %v", trial, err, rejects, runs)
		}
		checkSkylines(t, sky)
		alive := func(ms int64) float64 {
			n := 0.0
			for _, l := range lives {
				rm := l.rm
				if rm < 0 {
					rm = end
				}
				if l.add <= ms && ms < rm {
					n++
				}
			}
			return n
		}
		for i, s := range sky {
			at := start + int64(math.Round(s.OffsetS*1000))
			if got, want := s.Containers, alive(at); got != want || s.VCores != 2*want || s.MemoryBytes != int64(want)<<30 {
				t.Fatalf("trial %d: sample %+v, %v executors alive", trial, s, want)
			}
			if i+1 < len(sky) { // constant until the next sample
				next := start + int64(math.Round(sky[i+1].OffsetS*1000))
				if alive(next-1) != s.Containers {
					t.Fatalf("trial %d: value changes inside [%v, %v)", trial, s.OffsetS, sky[i+1].OffsetS)
				}
			}
		}
		if last := sky[len(sky)-1]; last.Containers != 0 {
			t.Fatalf("trial %d: ends at %+v", trial, last)
		}
	}
}

// TestYarnRMSkylineOracle: seeded random container lives in a plain RM
// log; the skyline at every whole second must equal the count of
// containers over [⌊(start−submit)/1 s⌋, ⌊(end−submit)/1 s⌋), the
// estimator's ReservationInterval arithmetic, computed independently.
func TestYarnRMSkylineOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	base := time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC)
	stamp := func(ms int64) string {
		return base.Add(time.Duration(ms) * time.Millisecond).Format("2006-01-02 15:04:05,000")
	}
	for trial := 0; trial < 50; trial++ {
		var b strings.Builder
		submit := rng.Int64N(1000)
		fmt.Fprintf(&b, "%s INFO RMAuditLogger: USER=u\tOPERATION=Submit Application Request\tAPPID=application_1_%04d\n", stamp(submit), trial)
		type life struct{ s, e int64 }
		var lives []life
		type ev struct {
			ms   int64
			line string
		}
		var evs []ev
		for i := 0; i < 1+rng.IntN(15); i++ {
			s := submit + rng.Int64N(600_000)
			e := s + rng.Int64N(600_000)
			c := fmt.Sprintf("container_e01_1_%04d_01_%06d", trial, i)
			evs = append(evs, ev{s, fmt.Sprintf("%s INFO RMAuditLogger: USER=u\tOPERATION=AM Allocated Container\tAPPID=application_1_%04d\tCONTAINERID=%s\n", stamp(s), trial, c)})
			evs = append(evs, ev{e, fmt.Sprintf("%s INFO RMAuditLogger: USER=u\tOPERATION=AM Released Container\tAPPID=application_1_%04d\tCONTAINERID=%s\n", stamp(e), trial, c)})
			lives = append(lives, life{(s - submit) / 1000, (e - submit) / 1000})
		}
		sort.SliceStable(evs, func(i, j int) bool { return evs[i].ms < evs[j].ms }) // a log is in time order
		for _, e := range evs {
			b.WriteString(e.line)
		}
		fmt.Fprintf(&b, "%s INFO RMAppManager$ApplicationSummary: appId=application_1_%04d,name=job-%d,startTime=1,finishTime=2\n", stamp(1_300_000), trial, trial)
		_, sky, rejects, err := readJobs(newYarnRM(memInput("rm.log", []byte(b.String())), time.UTC))
		if err != nil || len(rejects) != 0 {
			t.Fatalf("trial %d: %v %v", trial, err, rejects)
		}
		checkSkylines(t, sky)
		at := func(sec float64) float64 { // the skyline's value at sec
			v := 0.0
			for _, s := range sky {
				if s.OffsetS <= sec {
					v = s.Containers
				}
			}
			return v
		}
		for sec := int64(0); sec <= 1300; sec++ {
			want := 0.0
			for _, l := range lives {
				if l.s <= sec && sec < l.e {
					want++
				}
			}
			if got := at(float64(sec)); got != want {
				t.Fatalf("trial %d: %v containers at %d s, want %v", trial, got, sec, want)
			}
		}
	}
}
