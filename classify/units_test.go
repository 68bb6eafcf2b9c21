package classify

import (
	"testing"

	"github.com/wlprof/wlprof/dataset"
)

// TestCapacityUnits (issue 16): tenants.json says what a utilisation of 1
// is: Google 2019's NCU is a fraction of the largest machine of the cell,
// not of the tenant's own server.
func TestCapacityUnits(t *testing.T) {
	src := func(format, table string) dataset.Source { return dataset.Source{Format: format, Table: table} }
	for _, c := range []struct {
		srcs []dataset.Source
		want string
	}{
		{nil, "server"},
		{[]dataset.Source{src("csv", "usage"), src("yarn-rm", "runs")}, "server"},
		{[]dataset.Source{src(GoogleUsageFormat, "usage"), src("yarn-rm", "runs")}, "ncu"},
		{[]dataset.Source{src(GoogleUsageFormat, ""), src("csv", "usage")}, "mixed"}, // an older manifest has no table
	} {
		units, note := CapacityUnits(&dataset.Manifest{Sources: c.srcs})
		if units != c.want || (units == "server") != (note == "") {
			t.Errorf("%+v: %q (%q), want %q", c.srcs, units, note, c.want)
		}
	}
	r := &Result{Units: "ncu", UnitsNote: "n"}
	if f := r.Profile(); f.CapacityUnits != "ncu" || f.CapacityNote != "n" {
		t.Errorf("tenants.json: %q %q", f.CapacityUnits, f.CapacityNote)
	}
	if f := (&Result{}).Profile(); f.CapacityUnits != "server" {
		t.Errorf("tenants.json without units: %q", f.CapacityUnits)
	}
}
