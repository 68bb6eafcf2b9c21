package profile

import (
	"bytes"
	"errors"
	"flag"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files and the published schemas")

func goldenFile(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (cd profile && go test . -update writes it: profile is a module of its own)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from what the code produces (cd profile && go test . -update rewrites it; check the diff):\n%s", path, got)
	}
}

func TestSchemaFilesMatchTypes(t *testing.T) {
	goldenFile(t, "schema/job.schema.json", schemaJSON(genSchema(Job{},
		JobSchemaID, "wlprof job profile (profiles/<job>.json)")))
	goldenFile(t, "schema/tenants.schema.json", schemaJSON(genSchema(Tenants{},
		TenantsSchemaID, "wlprof tenant classes (tenants.json)")))
}

func TestGoldenProfiles(t *testing.T) {
	j, err := sampleJob().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	goldenFile(t, "testdata/job.json", j)
	ts, err := sampleTenants().Marshal()
	if err != nil {
		t.Fatal(err)
	}
	goldenFile(t, "testdata/tenants.json", ts)
}

func TestDecodeRefusesOtherVersions(t *testing.T) {
	good, _ := sampleJob().Marshal()
	for _, c := range []struct {
		doc  string
		want error
		msg  string
	}{
		{strings.Replace(string(good), `"version": 1`, `"version": 2`, 1), ErrVersion, "the file is version 2, this reader knows version 1"},
		{strings.Replace(string(good), `"version": 1,`, ``, 1), ErrVersion, `no "version" field`},
		{strings.Replace(string(good), `"kind": "job"`, `"kind": "tenants"`, 1), ErrKind, `"tenants", want "job"`},
	} {
		_, err := DecodeJob(strings.NewReader(c.doc))
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("error %v, want %v with %q", err, c.want, c.msg)
		}
	}
	if _, err := DecodeTenants(bytes.NewReader(good)); !errors.Is(err, ErrKind) {
		t.Errorf("a job profile read as tenants: %v", err)
	}
}

// A reader of version 1 ignores fields added later within version 1.
func TestDecodeIgnoresAddedFields(t *testing.T) {
	good, _ := sampleJob().Marshal()
	doc := strings.Replace(string(good), `"kind": "job",`, `"kind": "job", "added_in_1_5": {"x": 1},`, 1)
	j, err := DecodeJob(strings.NewReader(doc))
	if err != nil || j.Job != "etl/daily_orders" {
		t.Fatalf("%v %v", j, err)
	}
}

func TestRoundTrip(t *testing.T) {
	for _, v := range []interface{ Marshal() ([]byte, error) }{sampleJob(), sampleTenants()} {
		b, err := v.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		var back interface{ Marshal() ([]byte, error) }
		switch v.(type) {
		case *Job:
			back, err = DecodeJob(bytes.NewReader(b))
		default:
			back, err = DecodeTenants(bytes.NewReader(b))
		}
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(v, back) {
			t.Errorf("round trip changed the document:\n%+v\n%+v", v, back)
		}
	}
}

// Validate reports every problem at once, each with its path.
func TestValidateReportsEveryProblem(t *testing.T) {
	j := sampleJob()
	j.Skyline.Reservation[1] = 3 // below the skyline's 10
	j.Skyline.Alpha = math.NaN()
	j.SLO.Actionable, j.SLO.Reason = false, ""
	j.Elasticity[0].Curve[2].MemoryBytes = 1
	j.Phases[0].CPUShare = 1.5
	_, err := j.Marshal()
	want := []string{"skyline.reservation[1]: 3 is below the skyline 10", "skyline.alpha: NaN is not a finite number",
		"slo.reason: empty", "elasticity[0].curve[2].memory_bytes", "phases[0].cpu_share: 1.5"}
	for _, w := range want {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v lacks %q", err, w)
		}
	}
	ts := sampleTenants()
	ts.Tenants[0].Class = "constant-0"
	ts.Classes[1].Mean = 0.9
	_, err = ts.Marshal()
	for _, w := range []string{`tenants[0].class: "constant-0" is a constant class, the tenant is periodic`,
		"classes[1]: mean 0.9 above peak 0.8", `classes[0].tenants: 1, but 2 tenants name class "constant-0"`} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v lacks %q", err, w)
		}
	}
}

// A profile with no stage results is valid: sections are null or empty,
// never left out.
func TestMinimalProfile(t *testing.T) {
	j := &Job{Job: "j"}
	b, err := j.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	goldenFile(t, "testdata/minimal-job.json", b)
	for _, w := range []string{`"slo": null`, `"skyline": null`, `"elasticity": []`, `"names": []`} {
		if !strings.Contains(string(b), w) {
			t.Errorf("minimal profile lacks %s:\n%s", w, b)
		}
	}
}

func TestWriteFileIsAtomicAndLoads(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName("etl/daily_orders"))
	if err := sampleJob().WriteFile(path); err != nil {
		t.Fatal(err)
	}
	bad := sampleJob()
	bad.Skyline.StepS = -1
	if err := bad.WriteFile(path); err == nil {
		t.Fatal("an invalid profile was written")
	}
	j, err := LoadJob(path)
	if err != nil || j.Skyline.StepS != 60 {
		t.Fatalf("the earlier file did not survive a refused write: %v %v", j, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d entries in the directory, want only the profile", len(entries))
	}
	if err := sampleTenants().WriteFile(filepath.Join(dir, "tenants.json")); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTenants(filepath.Join(dir, "tenants.json")); err != nil {
		t.Fatal(err)
	}
}

// FileName is safe (one path element, no leading dot, short enough) and
// injective, on random ids full of separators and non-ASCII bytes.
func TestFileNameSafeAndInjective(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	alphabet := []byte("ab/.%~\\<>:*?\"| \x00\xff-_Z9")
	seen := map[string]string{}
	ids := []string{"", ".", "..", "../etc/passwd", "<script>alert(1)</script>", strings.Repeat("x", 400), strings.Repeat("x", 401)}
	for i := 0; i < 5000; i++ {
		b := make([]byte, 1+r.Intn(12))
		for k := range b {
			b[k] = alphabet[r.Intn(len(alphabet))]
		}
		ids = append(ids, string(b))
	}
	for _, id := range ids {
		n := FileName(id)
		if strings.ContainsAny(n, "/\\\x00") || strings.HasPrefix(n, ".") || len(n) > 255 || !strings.HasSuffix(n, ".json") {
			t.Fatalf("FileName(%q) = %q is not a safe file name", id, n)
		}
		if prev, ok := seen[n]; ok && prev != id {
			t.Fatalf("FileName(%q) = FileName(%q) = %q", id, prev, n)
		}
		seen[n] = id
	}
	if got := FileName("tpch_q12"); got != "tpch_q12.json" {
		t.Errorf("FileName(tpch_q12) = %q", got)
	}
}
