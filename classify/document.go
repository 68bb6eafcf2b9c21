package classify

import "time"

// Document is the versioned JSON document of wlprof classify -o json.
type Document struct {
	Version      int                  `json:"version"`
	StepS        float64              `json:"step_s"`
	At           string               `json:"at"` // the "current" instant of the headroom, RFC 3339
	SeriesSource string               `json:"series_source"`
	Patterns     map[Pattern]int      `json:"patterns"` // tenants per pattern, every pattern named
	Ranking      map[string][]Pattern `json:"ranking"`  // class preference per job type, first = most preferred
	Tenants      []Tenant             `json:"tenants"`
	Classes      []Class              `json:"classes"`
	Warnings     []string             `json:"warnings"`
	// ListTenants: WriteText lists every tenant too (--tenants).
	ListTenants bool `json:"-"`
}

// Document returns the result as wlprof classify -o json writes it: with
// where the series came from and how many tenants each pattern has.
func (r *Result) Document() Document {
	source := "series table"
	if r.Built {
		source = "built from usage"
	}
	d := Document{Version: 1, StepS: r.StepS, At: time.UnixMilli(r.AtMs).UTC().Format(time.RFC3339),
		SeriesSource: source, Patterns: map[Pattern]int{}, Ranking: Ranking,
		Tenants: r.Tenants, Classes: r.Classes, Warnings: r.Warnings, ListTenants: r.ListTenants}
	for _, p := range []Pattern{Periodic, Constant, Unpredictable, Insufficient} {
		d.Patterns[p] = 0
	}
	for _, t := range r.Tenants {
		d.Patterns[t.Pattern]++
	}
	return d
}
