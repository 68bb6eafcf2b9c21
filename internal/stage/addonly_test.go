package stage

import (
	"testing"

	"github.com/spf13/pflag"
)

type opts struct {
	A, B int
}

func (o *opts) add(fs *pflag.FlagSet) {
	fs.IntVar(&o.A, "a", o.A, "the a")
	fs.IntVar(&o.B, "b", o.B, "the b")
}

// AddOnly shows the named flags alone, with the stage's default and help,
// and setting one sets the options it was declared on.
func TestAddOnly(t *testing.T) {
	o := opts{A: 3, B: 4}
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	AddOnly(fs, o.add, "b")
	if fs.Lookup("a") != nil {
		t.Error("--a registered, not asked for")
	}
	f := fs.Lookup("b")
	if f == nil || f.DefValue != "4" || f.Usage != "the b" {
		t.Fatalf("--b: %+v", f)
	}
	if err := fs.Parse([]string{"--b", "9"}); err != nil || o.B != 9 || o.A != 3 {
		t.Errorf("--b 9: %v, options %+v", err, o)
	}
	defer func() {
		if recover() == nil {
			t.Error("an unknown name did not panic")
		}
	}()
	AddOnly(pflag.NewFlagSet("t", pflag.ContinueOnError), o.add, "c")
}
