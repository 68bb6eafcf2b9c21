package profiler

import (
	"reflect"
	"testing"
	"time"
)

func TestFlagsApply(t *testing.T) {
	base := func() Options { return Options{Job: "j", Repeat: 3, Interval: 100 * time.Millisecond} }
	o := base()
	f := Flags{Mem: "1M, 64M", Slots: "1,2", Cap: "off", CapOverhead: "16M", IOCapacity: "200MB/s", DiskLimit: "100M", PhaseRegex: `(map) \d+%`}
	if err := f.Apply(&o); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(o.Mems, []int64{1 << 20, 64 << 20}) || !reflect.DeepEqual(o.Slots, []int{1, 2}) || o.Cap != CapOff ||
		o.CapOverhead != 16<<20 || o.IOCapacity != 200<<20 || o.DiskLimit != 100<<20 || o.PhaseRegex == nil || o.PhaseRegex.String() != `(map) \d+%` {
		t.Errorf("options %+v", o)
	}
	o = base()
	if err := (Flags{Slots: "1", Cap: "auto", CapOverhead: "0"}).Apply(&o); err != nil || o.Mems != nil || o.CapOverhead != NoCapOverhead || o.IOCapacity != 0 || o.DiskLimit != 0 || o.PhaseRegex != nil {
		t.Errorf("defaults: %+v, %v", o, err)
	}
	good := Flags{Slots: "1", Cap: "auto", CapOverhead: "0"}
	for _, c := range []struct {
		f    func(*Flags, *Options)
		want string
	}{
		{func(f *Flags, _ *Options) { f.Mem = "1Q" }, ""},
		{func(f *Flags, _ *Options) { f.Slots = "0" }, `slots "0": want an integer in [1,1024]`},
		{func(f *Flags, _ *Options) { f.Cap = "maybe" }, `cap "maybe": want auto, off or require`},
		{func(f *Flags, _ *Options) { f.CapOverhead = "1Q" }, "--cap-overhead: "},
		{func(f *Flags, _ *Options) { f.IOCapacity = "fast" }, "--io-capacity: "},
		{func(f *Flags, _ *Options) { f.DiskLimit = "slow" }, "--disk-limit: "},
		{func(f *Flags, _ *Options) { f.DiskLimit = "0" }, "--disk-limit: "},
		{func(f *Flags, _ *Options) { f.PhaseRegex = "(" }, "--phase-regex: "},
		{func(_ *Flags, o *Options) { o.Repeat = 0 }, "--repeat and --interval must be positive"},
		{func(_ *Flags, o *Options) { o.Interval = 0 }, "--repeat and --interval must be positive"},
		// The first bad value is the one reported.
		{func(f *Flags, o *Options) { f.Cap, o.Repeat = "maybe", 0 }, `cap "maybe"`},
	} {
		f, o := good, base()
		c.f(&f, &o)
		err := f.Apply(&o)
		if err == nil || len(err.Error()) < len(c.want) || err.Error()[:len(c.want)] != c.want {
			t.Errorf("%+v repeat %d interval %v: error %v, want one starting %q", f, o.Repeat, o.Interval, err, c.want)
		}
	}
}
