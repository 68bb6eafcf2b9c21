package classify

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/wlprof/wlprof/internal/table"
	"github.com/wlprof/wlprof/internal/timeflag"
)

// WriteText writes the pattern counts and the class table with each
// class's headroom, and with ListTenants every tenant's pattern, period
// and class, as wlprof classify prints them. Warnings are not written:
// they are the command's to put on stderr (Result.CommandWarnings).
func (d Document) WriteText(out io.Writer) error {
	w := tabwriter.NewWriter(out, 2, 8, 2, ' ', 0)
	fmt.Fprintf(w, "%d tenants: %d periodic, %d constant, %d unpredictable, %d insufficient (step %gs, current = %s)\n\n",
		len(d.Tenants), d.Patterns[Periodic], d.Patterns[Constant], d.Patterns[Unpredictable],
		d.Patterns[Insufficient], d.StepS, d.At)
	fmt.Fprintln(w, "CLASS\tPATTERN\tTENANTS\tSERVERS\tMEAN\tPEAK\tCURRENT\tHEADROOM SHORT\tMEDIUM\tLONG")
	for _, c := range d.Classes {
		fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n", c.Class, c.Pattern, c.Tenants, c.Servers,
			c.Mean, c.Peak, c.Current, c.Headroom.Short, c.Headroom.Medium, c.Headroom.Long)
	}
	if d.ListTenants {
		fmt.Fprintln(w, "\nTENANT\tPATTERN\tPERIOD\tSTRENGTH\tMEAN\tPEAK\tCLASS\tSTEP\tREASON")
		for _, t := range d.Tenants {
			fmt.Fprintf(w, "%s\t%s\t%s\t%.2f\t%.3f\t%.3f\t%s\t%s\t%s\n", t.Tenant, t.Pattern, table.OrDash(t.PeriodS, "-", timeflag.FormatSeconds),
				t.Strength, t.Mean, t.Peak, table.Dash(t.Class), timeflag.FormatSeconds(t.StepS), table.Dash(t.Reason))
		}
	}
	return w.Flush()
}

// WarnedTenants counts the tenants whose series have warnings (gaps).
func (d Document) WarnedTenants() int {
	n := 0
	for _, t := range d.Tenants {
		if len(t.Warnings) > 0 {
			n++
		}
	}
	return n
}

// WriteCSV writes one row per tenant: its class's current utilisation
// and headroom follow, as the text's class table shows them (empty for a
// tenant without a class); step_s, added later, closes each row.
func (d Document) WriteCSV(w io.Writer) error {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	classes := map[string]Class{}
	for _, c := range d.Classes {
		classes[c.Class] = c
	}
	return table.CSV(w, []string{"tenant", "pattern", "period_s", "strength", "mean", "peak", "class", "servers", "reason",
		"class_current", "headroom_short", "headroom_medium", "headroom_long", "step_s"}, func(row func(...string)) {
		for _, t := range d.Tenants {
			r := []string{t.Tenant, string(t.Pattern), table.OrDash(t.PeriodS, "", f), f(t.Strength), f(t.Mean), f(t.Peak), t.Class,
				strconv.Itoa(t.Servers), t.Reason, "", "", "", "", f(t.StepS)}
			if c, ok := classes[t.Class]; ok {
				r[9], r[10], r[11], r[12] = f(c.Current), f(c.Headroom.Short), f(c.Headroom.Medium), f(c.Headroom.Long)
			}
			row(r...)
		}
	})
}
