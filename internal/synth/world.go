package synth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/wlprof/wlprof/internal/atomicfile"
)

// Validate checks options given in full, as wlprof synth gives them (a
// zero count or step is an error here, not a default).
func (o Options) Validate() error {
	if o.Tenants <= 0 || o.Days <= 0 || o.Step <= 0 || o.Noise < 0 || o.Missing < 0 || o.Missing >= 1 || o.Shifts < 0 || o.Shifts > 1 {
		return errors.New("synth: --tenants, --days and --step must be positive, --noise ≥ 0, 0 ≤ --missing < 1, 0 ≤ --shifts ≤ 1")
	}
	if rows := o.EstimatedRows(); rows > MaxRows {
		return fmt.Errorf("synth: --tenants %d over --days %g at --step %s is about %.3g rows (%s of CSV); the most wlprof synth writes is %.0e rows",
			o.Tenants, o.Days, o.Step, rows, byteText(rows*BytesPerRow), float64(MaxRows))
	}
	return nil
}

// MaxRows bounds a world: ten billion rows are about 500 GB of CSV, more
// than any benchmark here reads, and a typo's extra zeros are refused
// before anything is allocated or written.
const MaxRows = 1e10

// BytesPerRow is a row's size in the CSV Generate writes, with its usual
// names (the compact ones are a little shorter): what EstimatedRows is
// turned into bytes with.
const BytesPerRow = 50

// EstimatedRows is the number of rows the world of o holds before samples
// go missing: servers (the mean of MinServers and MaxServers) × samples.
func (o Options) EstimatedRows() float64 {
	d := Default()
	minS, maxS := max(o.MinServers, 1), o.MaxServers
	if o.MinServers <= 0 {
		minS = d.MinServers
	}
	maxS = max(maxS, minS)
	step := o.Step
	if step <= 0 {
		step = d.Step
	}
	return float64(o.Tenants) * float64(minS+maxS) / 2 * o.Days * 86400 / step.Seconds()
}

// byteText is a size in decimal units, for messages.
func byteText(b float64) string {
	for _, u := range []string{"B", "kB", "MB", "GB", "TB", "PB", "EB"} {
		if b < 1000 {
			return fmt.Sprintf("%.3g %s", b, u)
		}
		b /= 1000
	}
	return fmt.Sprintf("%.3g ZB", b)
}

// World is a world written to a directory: its files, its ground truth
// and the options that made it. It is truth.json, and what wlprof synth
// -o json prints.
type World struct {
	Version int            `json:"version"`
	Usage   string         `json:"usage"`
	Truth   string         `json:"truth"`
	Rows    int64          `json:"rows"`
	Tenants []Truth        `json:"tenants"`
	Options map[string]any `json:"options"`
}

// Write writes the world of o to dir, which it creates when missing:
// dir/usage.csv (Generate) and then dir/truth.json (the World), each
// atomically.
func Write(dir string, o Options) (*World, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	usage := filepath.Join(dir, "usage.csv")
	var truth []Truth
	var rows int64
	err := atomicfile.Write(usage, 0o644, func(w io.Writer) error {
		var err error
		truth, rows, err = Generate(w, o)
		return err
	})
	if err != nil {
		return nil, err
	}
	wd := &World{Version: 1, Usage: usage, Truth: filepath.Join(dir, "truth.json"), Rows: rows, Tenants: truth,
		Options: map[string]any{"tenants": o.Tenants, "days": o.Days, "step_s": o.Step.Seconds(),
			"min_servers": o.MinServers, "max_servers": o.MaxServers, "noise": o.Noise,
			"missing": o.Missing, "shifts": o.Shifts, "seed": o.Seed, "start": o.Start.Format(time.RFC3339)}}
	b, err := json.MarshalIndent(wd, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := atomicfile.WriteFile(wd.Truth, append(b, '\n'), 0o644); err != nil {
		return nil, err
	}
	return wd, nil
}
