package simulate

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

const goodTrace = `# written for the tests
job,submit_s,task,tasks,runtime_s,memory_bytes,cores,after,model
wc,0,map,4,20,2G,1,,step:1.3
wc,0,reduce,2,60,4294967296,1,map,"curve:0.2=1.8;0.5=1.4@80M"
pr,10.5,reduce,3,100,3.5G,2,,none
`

func TestReadTrace(t *testing.T) {
	jobs, err := ReadTrace(strings.NewReader(goodTrace), "t.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || jobs[0].ID != "wc" || jobs[1].ID != "pr" || jobs[1].SubmitS != 10.5 {
		t.Fatalf("jobs %+v", jobs)
	}
	wc := jobs[0]
	if len(wc.Phases) != 2 || wc.Phases[1].After != "map" || wc.Phases[1].MemoryBytes != 4<<30 || wc.Phases[0].MemoryBytes != 2<<30 {
		t.Errorf("wc phases %+v", wc.Phases)
	}
	if m, ok := wc.Phases[1].Model.(CurveModel); !ok || m.DiskBytesPerS != 80<<20 || len(m.Points) != 2 || m.Points[0].Fraction != 0.2 {
		t.Errorf("curve model %+v", wc.Phases[1].Model)
	}
	if jobs[1].Phases[0].Model != nil || !jobs[1].Phases[0].modelSet || jobs[1].Phases[0].Cores != 2 || jobs[1].Phases[0].Line != 5 {
		t.Errorf("pr phase %+v", jobs[1].Phases[0])
	}
	var buf bytes.Buffer
	if err := WriteTrace(&buf, jobs); err != nil {
		t.Fatal(err)
	}
	again, err := ReadTrace(&buf, "again.csv")
	if err != nil {
		t.Fatal(err)
	}
	for i := range again {
		for k := range again[i].Phases {
			again[i].Phases[k].Line = jobs[i].Phases[k].Line
		}
	}
	if !reflect.DeepEqual(jobs, again) {
		t.Errorf("write → read changed the jobs:\n%+v\n%+v", jobs, again)
	}
}

// Bad input: every problem is reported, each with its file and line and
// a reason in the user's words.
func TestReadTraceErrors(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     []string
	}{
		{"empty", "", []string{"x.csv: empty trace"}},
		{"header only", "job,submit_s,task,tasks,runtime_s,memory_bytes\n", []string{"no jobs"}},
		{"missing column", "job,submit_s,task,tasks,memory_bytes\na,0,m,1,1G\n", []string{"x.csv:1: no runtime_s column"}},
		{"unknown column", "job,submit_s,task,tasks,runtime_s,memory_bytes,colour\n", []string{`x.csv:1: unknown column "colour"`}},
		{"values", `job,submit_s,task,tasks,runtime_s,memory_bytes,cores,model
a,0,m,1,0,1G,1,
b,0,m,1,-5,1G,1,
c,-1,m,0,1,0,0,
d,0,m,1,NaN,1G,1,
e,0,m,1,1,1G,1,magic:2
f,0,m,1,1,1G,1,step:0.5
g,0,m,1.5,1,1G,1,
`, []string{
			`x.csv:2: runtime_s "0": want a duration in seconds above 0`,
			`x.csv:3: runtime_s "-5"`,
			`x.csv:4: submit_s "-1"`, `x.csv:4: tasks "0"`, `x.csv:4: memory_bytes "0"`, `x.csv:4: cores "0"`,
			`x.csv:5: runtime_s "NaN"`,
			`x.csv:6: model "magic:2": unknown model "magic"`,
			`x.csv:7: model "step:0.5": slowdown "0.5" is not a number of at least 1`,
			`x.csv:8: tasks "1.5"`,
		}},
		{"structure", `job,submit_s,task,tasks,runtime_s,memory_bytes,after
a,0,m,1,1,1G,
a,5,r,1,1,1G,m
a,0,m,1,1,1G,
b,0,m,1,1,1G,x
c,0,m,1,1,1G,r
c,0,r,1,1,1G,m
d,0,m,1,1,1G,m
`, []string{
			"x.csv:3: job a: submit_s 5, but line 2 says 0",
			"x.csv:4: job a: task m given twice (first on line 2)",
			"x.csv:5: job b: task m waits for x, which is no task of the job",
			"x.csv:6: job c: task m waits for itself through after (a cycle)",
			"x.csv:8: job d: task m waits for itself",
		}},
		{"quotes", "job,submit_s,task,tasks,runtime_s,memory_bytes\na,0,\"m,1,1,1G\n", []string{"x.csv:2"}},
	} {
		_, err := ReadTrace(strings.NewReader(c.in), "x.csv")
		if err == nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q not in\n%v", c.name, w, err)
			}
		}
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: %v is no *ParseError", c.name, err)
		}
	}
}

func TestParseModel(t *testing.T) {
	for spec, want := range map[string]string{
		"none": "none", "step:1.5": "step:1.5", "step:inf": "step:+Inf", " step:2@1K ": "step:2@1024",
		"curve:0.5=1.2;0.1=3": "curve:0.1=3;0.5=1.2", "curve:0.25=1@2M": "curve:0.25=1@2097152",
	} {
		m, err := ParseModel(spec)
		if err != nil {
			t.Errorf("%q: %v", spec, err)
			continue
		}
		if got := ModelSpec(m); got != want {
			t.Errorf("%q: spec %q, want %q", spec, got, want)
		}
		if again, err := ParseModel(ModelSpec(m)); err != nil || !reflect.DeepEqual(again, m) {
			t.Errorf("%q: does not read back: %v %v", spec, again, err)
		}
	}
	for _, spec := range []string{"", "step", "step:", "step:x", "step:0.9", "step:NaN", "curve:", "curve:1=2", "curve:0=2", "curve:0.5=2;0.5=3", "curve:0.5", "step:2@-1", "linear:2"} {
		if _, err := ParseModel(spec); err == nil {
			t.Errorf("%q: no error", spec)
		}
	}
	m := CurveModel{Points: []CurvePoint{{0.25, 3}, {0.5, 1.5}}}
	for _, c := range []struct {
		mem  int64
		want float64
	}{{10, math.Inf(1)}, {25, 3}, {49, 3}, {50, 1.5}, {99, 1.5}} {
		if s, _ := m.At(c.mem, 100); s != c.want {
			t.Errorf("curve at %d%%: %g, want %g", c.mem, s, c.want)
		}
	}
}

// Random traces written and read back are the same jobs.
func TestTraceRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 5))
	for i := 0; i < 200; i++ {
		jobs := genJobs(rng, 1+rng.IntN(10), 100, 20<<30)
		var buf bytes.Buffer
		if err := WriteTrace(&buf, jobs); err != nil {
			t.Fatal(err)
		}
		again, err := ReadTrace(bytes.NewReader(buf.Bytes()), "r.csv")
		if err != nil {
			t.Fatalf("%v\n%s", err, buf.String())
		}
		for j := range again {
			for k := range again[j].Phases {
				again[j].Phases[k].Line = 0
			}
		}
		if !reflect.DeepEqual(jobs, again) {
			t.Fatalf("trace %d changed:\n%s", i, buf.String())
		}
	}
}

// The reader never panics and what it accepts writes and reads back the
// same (go test -fuzz FuzzReadTrace ./simulate).
func FuzzReadTrace(f *testing.F) {
	f.Add(goodTrace)
	f.Add("job,submit_s,task,tasks,runtime_s,memory_bytes\na,0,m,1,1,1\n")
	f.Add("job,submit_s,task,tasks,runtime_s,memory_bytes,after\na,0,m,1,1,1,r\na,0,r,1,1,1,m\n")
	f.Fuzz(func(t *testing.T, in string) {
		jobs, err := ReadTrace(strings.NewReader(in), "f.csv")
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := WriteTrace(&buf, jobs); err != nil {
			t.Fatal(err)
		}
		again, err := ReadTrace(&buf, "g.csv")
		if err != nil {
			t.Fatalf("accepted, written, refused: %v\n%s", err, buf.String())
		}
		if len(again) != len(jobs) {
			t.Fatalf("%d jobs, then %d", len(jobs), len(again))
		}
	})
}
