package profilecheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wlprof/wlprof/profile"
)

// python is Debian's interpreter, which scripts/deps.sh provides; the
// reader needs only its standard library.
const python = "/usr/bin/python3"

// formatReader is the Python reader FORMAT.md publishes: its one
// ```python block.
func formatReader(t *testing.T) string {
	b, err := os.ReadFile(root + "/profile/FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n```python\n")
	code, _, ok2 := strings.Cut(rest, "\n```\n")
	if !ok || !ok2 {
		t.Fatal("FORMAT.md has no ```python block")
	}
	path := filepath.Join(t.TempDir(), "read_profiles.py")
	if err := os.WriteFile(path, []byte(code+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// reportDir lays out a report as wlprof writes one (profiles/, schema/,
// tenants.json) from the given job profiles.
func reportDir(t *testing.T, jobs map[string][]byte, tenants []byte) string {
	dir := t.TempDir()
	for _, d := range []string{"profiles", "schema"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string][]byte{"schema/job.schema.json": profile.JobSchema, "schema/tenants.schema.json": profile.TenantsSchema}
	if tenants != nil {
		files["tenants.json"] = tenants
	}
	for name, b := range jobs {
		files["profiles/"+name] = b
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// FORMAT.md's Python reader reads every profile this repository keeps
// (the CLI's report goldens, written from the bundled tpch_q12 fixture as
// the demo's are, and the package's samples), and refuses a file that
// breaks the rule: one that leaves out a section not computed.
func TestFormatPythonReader(t *testing.T) {
	reader := formatReader(t)
	found := goldenProfiles(t)
	jobs := map[string][]byte{}
	for _, f := range found["job"] {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		jobs[strings.ReplaceAll(strings.TrimPrefix(f, root+"/"), "/", "_")] = b
	}
	tenants, err := os.ReadFile(root + "/profile/testdata/tenants.json")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(python, reader, reportDir(t, jobs, tenants)).CombinedOutput()
	if err != nil {
		t.Fatalf("the reader fails on the repository's profiles: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) < len(jobs)+1 || !strings.Contains(string(out), "tpch_q12: 13 runs;") {
		t.Errorf("the reader printed %d lines for %d profiles and a tenants file:\n%s", len(lines), len(jobs), out)
	}

	broken := strings.Replace(string(jobs["profile_testdata_minimal-job.json"]), "  \"estimate\": null,\n", "", 1)
	if broken == string(jobs["profile_testdata_minimal-job.json"]) {
		t.Fatal("the minimal profile has no \"estimate\": null line to remove")
	}
	out, err = exec.Command(python, reader, reportDir(t, map[string][]byte{"j.json": []byte(broken)}, nil)).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "no field 'estimate'") {
		t.Errorf("the reader accepts a profile without \"estimate\": %v\n%s", err, out)
	}
}
