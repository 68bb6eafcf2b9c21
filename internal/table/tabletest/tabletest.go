// Package tabletest checks the text and CSV tables a result writes of
// itself (WriteText, WriteCSV) in the tests of the stage that owns it.
package tabletest

import (
	"io"
	"testing"

	"github.com/wlprof/wlprof/internal/table"
)

// Equal fails t unless text writes wantText and csv writes wantCSV, each
// without an error; a mismatch shows what was written and what was wanted.
func Equal(t testing.TB, text, csv func(io.Writer) error, wantText, wantCSV string) {
	t.Helper()
	for _, c := range []struct {
		kind  string
		write func(io.Writer) error
		want  string
	}{{"text", text, wantText}, {"csv", csv, wantCSV}} {
		if got, err := table.String(c.write); err != nil || got != c.want {
			t.Errorf("%s (error %v):\n%s\nwant:\n%s", c.kind, err, got, c.want)
		}
	}
}
