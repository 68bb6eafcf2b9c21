package main

import (
	"strings"
	"testing"

	"github.com/wlprof/wlprof/profile"
)

// wlprof schema prints the published schemas byte for byte, and refuses
// a kind it does not know as a usage error.
func TestSchemaCommand(t *testing.T) {
	for kind, want := range map[string][]byte{"job": profile.JobSchema, "tenants": profile.TenantsSchema} {
		out, errs, code := wlprof(t, "schema", kind)
		if code != 0 || out != string(want) {
			t.Errorf("wlprof schema %s: exit %d, stderr %q, %d bytes; want the %d bytes of the published schema", kind, code, errs, len(out), len(want))
		}
	}
	if _, errs, code := wlprof(t, "schema", "report"); code != 2 || !strings.Contains(errs, "job or tenants") {
		t.Errorf("wlprof schema report: exit %d, stderr %q; want a usage error naming job and tenants", code, errs)
	}
}
