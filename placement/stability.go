package placement

import (
	"fmt"
	"time"

	"github.com/wlprof/wlprof/internal/timeflag"
)

// Stability is how steadily tenants keep their reimage group (§3, Fig. 6):
// the window is cut into whole windows of WindowS from its start (a
// shorter tail is left out); in each, the tenants are split into three
// reimage groups of equal counts by their disruptions per server in the
// window (tied tenants share the group of their tie's middle rank), and
// SameFraction[i] is the share of tenants in the same group in windows i
// and i+1.
type Stability struct {
	WindowS          float64   `json:"window_s"`
	Windows          int       `json:"windows"`
	Tenants          int       `json:"tenants"`
	SameFraction     []float64 `json:"same_fraction"`
	MeanSameFraction *float64  `json:"mean_same_fraction"` // null when too short
	// Reason says why there is no measure (the trace too short, too few
	// tenants).
	Reason string `json:"reason,omitempty"`
}

func stability(tm [][]*machine, startMs, endMs int64, window time.Duration) Stability {
	w := window.Milliseconds()
	st := Stability{WindowS: window.Seconds(), Windows: int((endMs - startMs) / w), Tenants: len(tm), SameFraction: []float64{}}
	switch {
	case st.Windows < 2:
		st.Reason = fmt.Sprintf("too short: the trace covers %s, less than two windows of %s (Zhang et al., OSDI'16 §3 tracks months over three years); --stability-window sets the window",
			timeflag.FormatDuration(time.Duration(endMs-startMs)*time.Millisecond), timeflag.FormatDuration(window))
		return st
	case len(tm) < 3:
		st.Reason = fmt.Sprintf("%d tenants with a machine history: three groups need at least three", len(tm))
		return st
	}
	var prev []int
	sum := 0.0
	for k := 0; k < st.Windows; k++ {
		lo, hi := startMs+int64(k)*w, startMs+int64(k+1)*w
		rates := make([]float64, len(tm))
		for i, ms := range tm {
			n := 0
			for _, m := range ms {
				for _, t := range m.removes {
					if t >= lo && t < hi {
						n++
					}
				}
			}
			rates[i] = float64(n) / float64(len(ms))
		}
		g := groupsByCount(rates)
		if prev != nil {
			same := 0
			for i := range g {
				if g[i] == prev[i] {
					same++
				}
			}
			f := float64(same) / float64(len(g))
			st.SameFraction = append(st.SameFraction, f)
			sum += f
		}
		prev = g
	}
	mean := sum / float64(len(st.SameFraction))
	st.MeanSameFraction = &mean
	return st
}
