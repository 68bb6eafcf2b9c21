package table

import (
	"strconv"
	"strings"
	"testing"
)

func TestCSV(t *testing.T) {
	var b strings.Builder
	err := CSV(&b, []string{"a", "b"}, func(row func(...string)) {
		row("1", "x,y")
		row("", `q"`)
	})
	if want := "a,b\n1,\"x,y\"\n,\"q\"\"\"\n"; err != nil || b.String() != want {
		t.Errorf("got %q (%v), want %q", b.String(), err, want)
	}
}

func TestEmptyCells(t *testing.T) {
	f := func(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }
	v := 2.5
	if got := OrDash(&v, "-", f); got != "2.5" {
		t.Errorf("OrDash(2.5) = %q", got)
	}
	if got := OrDash(nil, "-", f); got != "-" {
		t.Errorf("OrDash(nil) = %q", got)
	}
	if Dash("") != "-" || Dash("x") != "x" {
		t.Errorf("Dash: %q, %q", Dash(""), Dash("x"))
	}
}
