package kube

import (
	gobuild "go/build"
	"strings"
	"testing"
)

// kube is an exporter (doc.go): it reads the dataset and the published
// profile types and imports no stage; pipeline hands it the profiles.
func TestImportsNoStage(t *testing.T) {
	pkg, err := gobuild.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if rest, ok := strings.CutPrefix(imp, "github.com/wlprof/wlprof/"); ok && rest != "dataset" && rest != "profile" && rest != "internal/quantile" && rest != "internal/bytesize" {
			t.Errorf("kube imports %s", imp)
		}
	}
}
