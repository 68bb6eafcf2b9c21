package profile

import (
	"go/build"
	"strings"
	"testing"
)

// A scheduler imports this package alone: it must stay on the standard
// library (and wlprof's stdlib-only atomic writer).
func TestImportsOnlyStandardLibrary(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		first, _, _ := strings.Cut(imp, "/")
		if strings.Contains(first, ".") && imp != "github.com/wlprof/wlprof/internal/atomicfile" {
			t.Errorf("profile imports %s", imp)
		}
	}
}
