package profile

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"
)

// The phase shares have one meaning, Polo's (PhD thesis, UPC 2014) (Table 4.2: "the
// percentage of each TaskTracker's capacity that is used by a single
// execution of the sub-phase"; §4.2.6: a node at 100% CPU with 4 maps
// running gives each 25%), and the Go doc and FORMAT.md both say so: a
// share of the node, not of the phase's wall time (issue 16).
func TestPhaseSharesDocumentedAsNodeShares(t *testing.T) {
	docs := phaseFieldDocs(t)
	for _, f := range []string{"CPUShare", "IOShare"} {
		d := docs[f]
		if strings.Contains(d, "wall time spent") || !strings.Contains(d, "node") {
			t.Errorf("Phase.%s doc %q: want a share of the node, not of the phase's wall time", f, d)
		}
	}
	if !strings.Contains(docs["CPUShare"], "25%") {
		t.Errorf("Phase.CPUShare doc %q lacks Polo's (PhD thesis, UPC 2014) example (4 tasks on a busy node: 25%% each)", docs["CPUShare"])
	}
	for _, f := range []string{"IOCapacityBytesPerS", "IOCapacitySource", "NodeCPUs"} {
		if docs[f] == "" {
			t.Errorf("Phase.%s is missing or undocumented", f)
		}
	}
	b, err := os.ReadFile("FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	format := string(b)
	// Every phase field has its definition in the phases section.
	_, sec, ok := strings.Cut(format, "### Phases")
	if !ok {
		t.Fatal("FORMAT.md has no \"### Phases\" section defining the phase fields")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	for _, f := range []string{"phase", "tasks", "task_runtime_s", "cpu_share", "io_share", "io_capacity_bytes_per_s",
		"io_capacity_source", "memory_bytes", "slots", "node_cpus"} {
		if !strings.Contains(sec, "- `"+f+"`") {
			t.Errorf("FORMAT.md's phases section does not define `%s`", f)
		}
	}
	if strings.Contains(format, "wall time spent") {
		t.Error("FORMAT.md still calls a share a fraction of the phase's wall time")
	}
}

// phaseFieldDocs reads the doc comments of Phase's fields from job.go.
func phaseFieldDocs(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "job.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "Phase" {
			return true
		}
		// A comment above a group of fields documents each of them.
		for _, fld := range ts.Type.(*ast.StructType).Fields.List {
			for _, name := range fld.Names {
				out[name.Name] = fld.Doc.Text() + fld.Comment.Text()
			}
		}
		return false
	})
	return out
}
