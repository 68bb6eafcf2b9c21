package classify

import (
	"strings"
	"testing"

	"github.com/wlprof/wlprof/internal/table"
)

// The tenant table is written only when asked for, with "-" for what a
// tenant lacks and the step it was analysed on; a CSV row carries its
// tenant's class's headroom, empty for a tenant without a class, then
// the step; tenants with warnings are counted.
func TestDocumentText(t *testing.T) {
	day := 86400.0
	res := &Result{StepS: 120, AtMs: 1704067200000,
		Tenants: []Tenant{{Tenant: "a", Pattern: Periodic, PeriodS: &day, Strength: 0.8, Class: "P1", Servers: 2, StepS: 120},
			{Tenant: "c", Pattern: Insufficient, Reason: "2 days", Warnings: []string{"gap"}, StepS: 600}},
		Classes: []Class{{Class: "P1", Pattern: Periodic, Tenants: 1, Servers: 2, Current: 0.25, Headroom: Headroom{Short: 0.75, Medium: 0.5, Long: 0.125}}}}
	d := res.Document()
	classes := "2 tenants: 1 periodic, 0 constant, 0 unpredictable, 1 insufficient (step 120s, current = 2024-01-01T00:00:00Z)\n\n" +
		"CLASS  PATTERN   TENANTS  SERVERS  MEAN   PEAK   CURRENT  HEADROOM SHORT  MEDIUM  LONG\n" +
		"P1     periodic  1        2        0.000  0.000  0.250    0.750           0.500   0.125\n"
	if got, err := table.String(d.WriteText); err != nil || got != classes {
		t.Errorf("classes only (%v):\n%s\nwant:\n%s", err, got, classes)
	}
	d.ListTenants = true
	got, _ := table.String(d.WriteText)
	for _, want := range []string{classes + "\nTENANT  PATTERN", "\na       periodic      1d      0.80      0.000  0.000  P1     2m    -\n", "\nc       insufficient  -       0.00      0.000  0.000  -      10m   2 days\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("text lacks %q:\n%s", want, got)
		}
	}
	if n := d.WarnedTenants(); n != 1 {
		t.Errorf("%d tenants with warnings, want 1", n)
	}
	if w := res.CommandWarnings(); len(w) != 1 || w[0] != "1 tenant(s) have warnings (gaps); see -o json" {
		t.Errorf("command warnings %q", w)
	}
	want := "tenant,pattern,period_s,strength,mean,peak,class,servers,reason,class_current,headroom_short,headroom_medium,headroom_long,step_s\n" +
		"a,periodic,86400,0.8,0,0,P1,2,,0.25,0.75,0.5,0.125,120\nc,insufficient,,0,0,0,,0,2 days,,,,,600\n"
	if got, err := table.String(d.WriteCSV); err != nil || got != want {
		t.Errorf("csv (%v):\n%s\nwant:\n%s", err, got, want)
	}
}
