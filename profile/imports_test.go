package profile

import (
	"go/build"
	"strings"
	"testing"
)

// A scheduler imports this package alone: it must stay on the standard
// library (scripts/profile-module.sh checks the same from outside, with
// an older go line).
func TestImportsOnlyStandardLibrary(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		first, _, _ := strings.Cut(imp, "/")
		if strings.Contains(first, ".") {
			t.Errorf("profile imports %s", imp)
		}
	}
}
