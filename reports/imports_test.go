package reports

import (
	gobuild "go/build"
	"strings"
	"testing"
)

// Stages never import each other (DESIGN.md): the report takes profile
// types and plain data, and package pipeline builds them from the stages.
// Leaf helpers that import nothing of the module (internal/atomicfile,
// internal/quantile, internal/safetext, internal/table, internal/timeflag,
// internal/bytesize)
// are not stages.
func TestImportsNoStage(t *testing.T) {
	pkg, err := gobuild.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if rest, ok := strings.CutPrefix(imp, "github.com/wlprof/wlprof/"); ok && rest != "profile" && rest != "internal/atomicfile" && rest != "internal/quantile" &&
			rest != "internal/safetext" && rest != "internal/table" && rest != "internal/timeflag" && rest != "internal/bytesize" {
			t.Errorf("reports imports %s", imp)
		}
	}
}
