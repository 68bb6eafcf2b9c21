// Package stagetest checks, in a stage's own tests, the parts of the stage
// contract (package stage) that types cannot state.
package stagetest

import (
	"io"
	"reflect"
	"testing"

	"github.com/spf13/pflag"
	"github.com/wlprof/wlprof/internal/stage"
)

// Check fails t unless st's defaults validate, its flags each have help,
// parsing no flag leaves the options equal to the defaults, and setting
// every flag to its own default text leaves them so too (the default is
// written once, in the options, and the flag's text reads back to it).
// With jobs, Options must have a Job string field and a --job flag.
func Check[O, I, R any, D stage.Document](t *testing.T, st stage.Stage[O, I, R, D], jobs bool) {
	t.Helper()
	def := st.Defaults()
	o := st.Defaults()
	if err := st.Validate(&o); err != nil {
		t.Errorf("%s: the defaults do not validate: %v", st.Name, err)
	}
	fs := pflag.NewFlagSet(st.Name, pflag.ContinueOnError)
	st.AddFlags(&o, fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(o, def) {
		t.Errorf("%s: registering the flags changed the options:\n got %+v\nwant %+v", st.Name, o, def)
	}
	n := 0
	fs.VisitAll(func(f *pflag.Flag) {
		n++
		if f.Usage == "" {
			t.Errorf("%s: --%s has no help", st.Name, f.Name)
		}
		if _, list := f.Value.(pflag.SliceValue); list {
			return // a list's default text is its notation, not an element
		}
		if err := fs.Set(f.Name, f.DefValue); err != nil {
			t.Errorf("%s: --%s does not parse its own default %q: %v", st.Name, f.Name, f.DefValue, err)
		}
	})
	if n == 0 {
		t.Errorf("%s: no flags", st.Name)
	}
	if !reflect.DeepEqual(o, def) {
		t.Errorf("%s: setting every flag to its default text changed the options:\n got %+v\nwant %+v", st.Name, o, def)
	}
	if st.Empty == nil {
		t.Errorf("%s: no \"nothing to work on\" error", st.Name)
	}
	if jobs {
		f, ok := reflect.TypeOf(def).FieldByName("Job")
		if !ok || f.Type.Kind() != reflect.String {
			t.Errorf("%s: Options has no Job string field", st.Name)
		}
		if fs.Lookup("job") == nil {
			t.Errorf("%s: no --job flag", st.Name)
		}
	}
}

// Parse sets st's flags from args on its defaults, as a command does, and
// returns the options and the parse error (the flag parser's message).
func Parse[O, I, R any, D stage.Document](st stage.Stage[O, I, R, D], args ...string) (O, error) {
	o := st.Defaults()
	fs := pflag.NewFlagSet(st.Name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	st.AddFlags(&o, fs)
	return o, fs.Parse(args)
}
