package stage_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestEveryStageHasTheSurface finds every package of the module that
// declares both a Load and a Run function — a stage, whether or not its
// author knew of the contract — and checks that it declares the whole
// surface and checks its contract in its tests, so that a new stage
// cannot drift from the others.
func TestEveryStageHasTheSurface(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Contract", "DefaultOptions", "Load", "Run",
		"Options.AddFlags", "Options.Validate", "Result.Document", "Document.WriteText", "Document.WriteCSV"}
	// Exports read the dataset and published profiles as a stage does but
	// print files for another system, not a stage document: they keep the
	// options half of the contract.
	exports := map[string]bool{"kube": true}
	exportWant := []string{"DefaultOptions", "Load", "Run", "Options.AddFlags", "Options.Validate"}
	var stages []string
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || strings.HasPrefix(rel, "cmd")) {
			return filepath.SkipDir
		}
		decls, tests := declared(t, path)
		if !decls["Load"] || !decls["Run"] {
			return nil
		}
		if exports[rel] {
			for _, w := range exportWant {
				if !decls[w] {
					t.Errorf("%s: an export without %s", rel, w)
				}
			}
			return nil
		}
		stages = append(stages, rel)
		for _, w := range want {
			if !decls[w] {
				t.Errorf("%s: a stage (it has Load and Run) without %s", rel, w)
			}
		}
		if !tests["stagetest.Check"] {
			t.Errorf("%s: no test calls stagetest.Check on its Contract", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(stages)
	wantStages := []string{"classify", "constraints", "dag", "elasticity", "estimate", "harvest", "placement", "plan", "simulate", "skyline", "slo"}
	if strings.Join(stages, " ") != strings.Join(wantStages, " ") {
		t.Errorf("stages found: %v, want %v", stages, wantStages)
	}
}

// declared returns the package-level names dir's Go files declare
// (methods as Type.Method) and the selector calls its tests make.
func declared(t *testing.T, dir string) (decls, tests map[string]bool) {
	decls, tests = map[string]bool{}, map[string]bool{}
	fset := token.NewFileSet()
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f.Name.Name, "_test") {
			continue
		}
		if strings.HasSuffix(name, "_test.go") {
			ast.Inspect(f, func(n ast.Node) bool {
				if s, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := s.X.(*ast.Ident); ok {
						tests[x.Name+"."+s.Sel.Name] = true
					}
				}
				return true
			})
			continue
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					decls[d.Name.Name] = true
					continue
				}
				typ := d.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				if id, ok := typ.(*ast.Ident); ok {
					decls[id.Name+"."+d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							decls[n.Name] = true
						}
					case *ast.TypeSpec:
						decls[s.Name.Name] = true
					}
				}
			}
		}
	}
	return decls, tests
}
