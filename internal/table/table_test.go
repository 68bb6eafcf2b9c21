package table

import (
	"io"
	"strconv"
	"testing"
)

func TestCSV(t *testing.T) {
	got, err := String(func(w io.Writer) error {
		return CSV(w, []string{"a", "b"}, func(row func(...string)) {
			row("1", "x,y")
			row("", `q"`)
		})
	})
	if want := "a,b\n1,\"x,y\"\n,\"q\"\"\"\n"; err != nil || got != want {
		t.Errorf("got %q (%v), want %q", got, err, want)
	}
	if _, err := String(func(io.Writer) error { return io.ErrShortWrite }); err != io.ErrShortWrite {
		t.Errorf("String's error %v, want the writer's", err)
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
