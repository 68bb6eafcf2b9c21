package ingest

import (
	"strings"
	"testing"
)

// Flags.Apply sets what it is given and reports every bad value at once,
// named as its flag.
func TestFlagsApply(t *testing.T) {
	o := DefaultOptions()
	if err := (Flags{CPUUnit: "percent", TZ: "America/New_York"}).Apply(&o); err != nil || o.CPUUnit != UnitPercent || o.Location.String() != "America/New_York" {
		t.Errorf("good flags: %v, %v, %v", err, o.CPUUnit, o.Location)
	}
	err := (Flags{CPUUnit: "kelvin", TZ: "Mars/Olympus"}).Apply(&o)
	if err == nil || !strings.Contains(err.Error(), "kelvin") || !strings.Contains(err.Error(), `--tz "Mars/Olympus"`) {
		t.Errorf("bad flags: %v", err)
	}
}
