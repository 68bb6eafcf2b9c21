package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// On a terminal, ingest draws a progress line per input (bytes, share)
// and classify one per stage, each cleared before the summaries; with
// -q or -o json, or when stderr is not a terminal, nothing is drawn
// (issue 22).
func TestProgressOnTerminalOnly(t *testing.T) {
	dir := t.TempDir()
	in := "../../testdata/resourceestimator/tpch_q12.txt"
	for i, c := range []struct {
		argv []string
		term bool
		want string // "" = no progress line
	}{
		{[]string{"ingest", "re-native", in}, true, "\r  " + in + "  "},
		{[]string{"ingest", "re-native", in, "-q"}, true, ""},
		{[]string{"ingest", "re-native", in, "-o", "json"}, true, ""},
		{[]string{"ingest", "re-native", in}, false, ""},
		{[]string{"slo"}, true, "\rslo  0s"},
	} {
		ds := filepath.Join(dir, "ds", string(rune('a'+i)))
		if c.argv[0] == "slo" {
			wlprof(t, "ingest", "auto", "../../testdata/provenance/world", "-d", ds, "-q")
		}
		var out, errb, term bytes.Buffer
		s := &streams{In: strings.NewReader(""), Out: &out, Err: &errb}
		if c.term {
			s.Term = &term
		}
		code := run(context.Background(), append(c.argv, "-d", ds), s)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.argv, code, errb.String())
		}
		got := term.String()
		switch {
		case c.want == "" && got != "":
			t.Errorf("%v (terminal %v): drew %q", c.argv, c.term, got)
		case c.want != "" && (!strings.HasPrefix(got, c.want) || !strings.HasSuffix(got, "\r")):
			t.Errorf("%v: drew %q, want a line starting %q, cleared at the end", c.argv, got, c.want)
		}
		if strings.Contains(errb.String()+out.String(), "\r") {
			t.Errorf("%v: a progress line reached stdout or the summaries", c.argv)
		}
	}
}
