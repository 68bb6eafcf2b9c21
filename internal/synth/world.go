package synth

import (
	"encoding/json"
	"errors"
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
	return nil
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
