package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/util/grpcx"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// The Beam Go SDK reads its runners' options from Go flag globals of the
// process (flag.CommandLine): the Dataflow runner --project, --region
// (gcpopts), --staging_location, --temp_location, --num_workers...; the
// portable runners --endpoint, --environment_type... (jobopts). wlprof-beam
// parses its own command line with pflag, so it sets those globals
// itself: from its explicit flags, and from --beam-opt KEY=VALUE for any
// other flag the SDK registered.

// sdkSetting is one SDK flag to set: its Go flag name and value.
type sdkSetting struct{ name, value string }

// sdkFlag finds the SDK's Go flag for key: its name, or with - for _.
func sdkFlag(key string) *flag.Flag {
	if f := flag.CommandLine.Lookup(key); f != nil {
		return f
	}
	return flag.CommandLine.Lookup(strings.ReplaceAll(key, "-", "_"))
}

// closeFlags are up to three SDK flag names close to key: at an edit
// distance of at most a third of its length (at least 2), or holding it,
// closest first.
func closeFlags(key string) []string {
	key = strings.ToLower(strings.ReplaceAll(key, "-", "_"))
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	limit := max(2, len(key)/3)
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Name, "test.") {
			return
		}
		d := editDistance(key, strings.ToLower(f.Name))
		if d <= limit || (len(key) >= 3 && strings.Contains(f.Name, key)) {
			cs = append(cs, cand{f.Name, d})
		}
	})
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var names []string
	for i := 0; i < len(cs) && i < 3; i++ {
		names = append(names, cs[i].name)
	}
	return names
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// checkValue says whether value parses as the SDK flag f's type (for the
// flag types the flag package defines; others are checked when set).
func checkValue(f *flag.Flag, value string) error {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return nil
	}
	var err error
	switch g.Get().(type) {
	case bool:
		_, err = strconv.ParseBool(value)
	case int, int64:
		_, err = strconv.ParseInt(value, 0, 64)
	case uint, uint64:
		_, err = strconv.ParseUint(value, 0, 64)
	case float64:
		_, err = strconv.ParseFloat(value, 64)
	case time.Duration:
		_, err = time.ParseDuration(value)
	}
	return err
}

// sdkSettings are the SDK flags this command line sets, in the order they
// are set: --beam-opt's first, then the explicit flags (which win), and
// every problem with them. It sets nothing.
func (s *shardFlags) sdkSettings() ([]sdkSetting, []error) {
	var out []sdkSetting
	var errs []error
	for _, kv := range s.BeamOpts {
		key, value, ok := strings.Cut(kv, "=")
		key = strings.TrimLeft(strings.TrimSpace(key), "-")
		if !ok || key == "" {
			errs = append(errs, fmt.Errorf("--beam-opt %q: want KEY=VALUE, KEY a flag of the Beam SDK (such as num_workers=10)", kv))
			continue
		}
		f := sdkFlag(key)
		if f == nil {
			msg := fmt.Sprintf("--beam-opt %s: the Beam SDK has no flag %q", kv, key)
			if c := closeFlags(key); len(c) > 0 {
				msg += "; did you mean " + strings.Join(c, ", ") + "?"
			}
			errs = append(errs, errors.New(msg))
			continue
		}
		if err := checkValue(f, value); err != nil {
			errs = append(errs, fmt.Errorf("--beam-opt %s: %q is not a value of the SDK's flag %s (%s)", kv, value, f.Name, f.Usage))
			continue
		}
		out = append(out, sdkSetting{f.Name, value})
	}
	staging := s.StagingLocation
	if staging == "" && s.Runner == "dataflow" && s.TempLocation != "" {
		staging = strings.TrimSuffix(s.TempLocation, "/") + "/staging"
	}
	for _, e := range []sdkSetting{{"project", s.Project}, {"region", s.Region}, {"temp_location", s.TempLocation}, {"staging_location", staging}} {
		if e.value != "" {
			out = append(out, e)
		}
	}
	return out, errs
}

// setting is the last value settings give the SDK flag name, or "".
func setting(settings []sdkSetting, name string) string {
	v := ""
	for _, e := range settings {
		if e.name == name {
			v = e.value
		}
	}
	return v
}

// validateRunner checks what the runner needs: Dataflow's project, region
// and temp location, and paths its workers can read; a memfs:// path only
// on Prism (each process has its own memory).
func (s *shardFlags) validateRunner(settings []sdkSetting) []error {
	var errs []error
	if s.ConnectTimeout <= 0 {
		errs = append(errs, fmt.Errorf("--connect-timeout %s: want a duration above 0", s.ConnectTimeout))
	}
	paths := append(slices.Clone(s.Inputs), s.Out)
	// Prism at an --endpoint runs the workers in this process only in
	// LOOPBACK.
	elsewhere := s.Runner != "prism" || (s.Endpoint != "" && !strings.EqualFold(s.EnvironmentType, "loopback"))
	if elsewhere {
		for _, p := range paths {
			if scheme(p) == "memfs" {
				errs = append(errs, fmt.Errorf("%s: memfs:// is the memory of one process; --runner %s runs the pipeline in others (use gs:// or a shared directory)", p, s.Runner))
			}
		}
	}
	if s.Runner != "dataflow" {
		return errs
	}
	var missing []string
	for _, m := range []struct{ name, flag, what string }{
		{"project", "--project", "the Google Cloud project"},
		{"region", "--region", "a Dataflow region such as us-central1"},
		{"temp_location", "--temp-location", "a gs://BUCKET/DIR for the job's temporary files"},
	} {
		if setting(settings, m.name) == "" {
			missing = append(missing, m.flag+" ("+m.what+")")
		}
	}
	if len(missing) > 0 {
		errs = append(errs, fmt.Errorf("--runner dataflow: give %s", strings.Join(missing, ", ")))
	}
	for _, name := range []string{"temp_location", "staging_location"} {
		if v := setting(settings, name); v != "" && scheme(v) != "gs" {
			errs = append(errs, fmt.Errorf("--runner dataflow: %s %q: want a gs:// path", strings.ReplaceAll(name, "_", "-"), v))
		}
	}
	for _, p := range paths {
		if p != "" && isLocal(p) {
			errs = append(errs, fmt.Errorf("--runner dataflow: %q is a path on this machine, which Dataflow's workers cannot read or write: give a gs:// path", p))
		}
	}
	return errs
}

// applySettings sets the SDK's flags.
func applySettings(settings []sdkSetting) error {
	for _, e := range settings {
		if err := flag.CommandLine.Set(e.name, e.value); err != nil {
			return usageError{fmt.Errorf("Beam SDK flag %s=%s: %v", e.name, e.value, err)}
		}
	}
	return nil
}

// probeEndpoint dials the job service at endpoint and fails when it does
// not answer within timeout (or refuses at once), with what to check.
func probeEndpoint(ctx context.Context, runner, endpoint string, timeout time.Duration) error {
	dctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	//lint:ignore SA1019 the SDK dials so too (grpcx.DefaultDial); a blocking dial is the probe
	cc, err := grpc.DialContext(dctx, endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithBlock(), grpc.FailOnNonTempDialError(true), grpc.WithReturnConnectionError())
	if err != nil {
		why := err.Error()
		if errors.Is(err, context.DeadlineExceeded) || dctx.Err() != nil {
			why = fmt.Sprintf("no answer within %s (--connect-timeout)", timeout)
		}
		return fmt.Errorf("--runner %s: the job service at --endpoint %s: %s; is its job server running and reachable from here?", runner, endpoint, why)
	}
	return cc.Close()
}

// boundDials makes the SDK's own gRPC dials (job service, artifact
// staging) give up after timeout, not the SDK's two minutes; the returned
// function restores them.
func boundDials(timeout time.Duration) func() {
	prev := grpcx.Dial
	grpcx.Dial = func(ctx context.Context, endpoint string, t time.Duration) (*grpc.ClientConn, error) {
		return prev(ctx, endpoint, min(t, timeout))
	}
	return func() { grpcx.Dial = prev }
}
