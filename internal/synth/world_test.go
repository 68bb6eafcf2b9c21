package synth

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/wlprof/wlprof/internal/table/tabletest"
)

func TestValidate(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
	for name, bad := range map[string]func(*Options){
		"tenants": func(o *Options) { o.Tenants = 0 }, "days": func(o *Options) { o.Days = -1 },
		"step": func(o *Options) { o.Step = 0 }, "noise": func(o *Options) { o.Noise = -0.1 },
		"missing": func(o *Options) { o.Missing = 1 }, "shifts": func(o *Options) { o.Shifts = 1.5 },
	} {
		o := Default()
		bad(&o)
		if err := o.Validate(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// Write makes usage.csv and truth.json; truth.json is the World returned,
// its row count is the CSV's, and the same options give the same bytes.
func TestWrite(t *testing.T) {
	o := Default()
	o.Tenants, o.Days, o.Step, o.Seed = 5, 1, 10*time.Minute, 7
	write := func() (string, *World) {
		dir := filepath.Join(t.TempDir(), "w")
		wd, err := Write(dir, o)
		if err != nil {
			t.Fatal(err)
		}
		return dir, wd
	}
	dir, wd := write()
	usage, err := os.ReadFile(filepath.Join(dir, "usage.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if n := int64(bytes.Count(usage, []byte("\n"))) - 1; wd.Rows != n || wd.Rows == 0 {
		t.Errorf("rows %d, usage.csv has %d", wd.Rows, n)
	}
	if wd.Version != 1 || len(wd.Tenants) != 5 || wd.Usage != filepath.Join(dir, "usage.csv") || wd.Options["seed"] != uint64(7) || wd.Options["step_s"] != 600.0 {
		t.Errorf("world %+v", wd)
	}
	b, err := os.ReadFile(wd.Truth)
	if err != nil {
		t.Fatal(err)
	}
	var back World
	if err := json.Unmarshal(b, &back); err != nil || back.Rows != wd.Rows || len(back.Tenants) != 5 || back.Tenants[0] != wd.Tenants[0] {
		t.Errorf("truth.json %s (%v)", b, err)
	}
	dir2, _ := write()
	usage2, _ := os.ReadFile(filepath.Join(dir2, "usage.csv"))
	if !bytes.Equal(usage, usage2) {
		t.Error("same options, different usage.csv")
	}
}

// What wlprof synth prints of a world, as text and as CSV.
func TestWorldText(t *testing.T) {
	wd := &World{Usage: "d/usage.csv", Truth: "d/truth.json", Rows: 10, Tenants: make([]Truth, 2)}
	tabletest.Equal(t, wd.WriteText, wd.WriteCSV, "wrote d/usage.csv (10 rows, 2 tenants) and d/truth.json\n",
		"usage,truth,rows,tenants\nd/usage.csv,d/truth.json,10,2\n")
}
