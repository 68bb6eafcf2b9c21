package elasticity

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/wlprof/wlprof/internal/bytesize"
)

// Conf is a task's configuration: the keys of a run's Config JSON (from
// the job's _conf.xml, the Spark properties or profruns-csv columns), with
// Options.Overrides on top. Values are kept as text.
type Conf map[string]string

// setting reads one KEY=VALUE pair as --set takes it, key and value
// trimmed.
func setting(kv string) (k, v string, err error) {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return "", "", fmt.Errorf("want KEY=VALUE")
	}
	return strings.TrimSpace(k), strings.TrimSpace(v), nil
}

// parseConf reads a Config JSON object; non-string values are written back
// as JSON text. A malformed object yields an empty Conf and an error.
func parseConf(s string) (Conf, error) {
	c := Conf{}
	if strings.TrimSpace(s) == "" {
		return c, nil
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return c, err
	}
	for k, v := range m {
		switch v := v.(type) {
		case string:
			c[k] = v
		case float64:
			c[k] = strconv.FormatFloat(v, 'g', -1, 64)
		case bool:
			c[k] = strconv.FormatBool(v)
		default:
			b, _ := json.Marshal(v)
			c[k] = string(b)
		}
	}
	return c, nil
}

// param is one simulation parameter as used: its value and where it came from.
type param struct {
	Key    string
	Value  float64
	Source string // "config", "default", "learnt", "derived"
}

// paramSet records the parameters a simulator read, for the model's output.
type paramSet struct {
	conf  Conf
	used  map[string]param
	notes []string
}

func newParamSet(c Conf) *paramSet { return &paramSet{conf: c, used: map[string]param{}} }

// float reads key as a number in [lo, hi], else def; a value that is set
// but unusable is noted and replaced by def.
func (p *paramSet) float(key string, def, lo, hi float64) float64 {
	v, src := def, "default"
	if s, ok := p.conf[key]; ok && strings.TrimSpace(s) != "" {
		x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(x) || x < lo || x > hi {
			p.notes = append(p.notes, fmt.Sprintf("%s=%q is not a number in [%g, %g]; used the default %g", key, s, lo, hi, def))
		} else {
			v, src = x, "config"
		}
	}
	p.used[key] = param{key, v, src}
	return v
}

// bool reads key as true/false, else def.
func (p *paramSet) bool(key string, def bool) bool {
	v, src := def, "default"
	if s, ok := p.conf[key]; ok {
		if b, err := strconv.ParseBool(strings.TrimSpace(s)); err == nil {
			v, src = b, "config"
		} else {
			p.notes = append(p.notes, fmt.Sprintf("%s=%q is not true or false; used the default %v", key, s, def))
		}
	}
	x := 0.0
	if v {
		x = 1
	}
	p.used[key] = param{key, x, src}
	return v
}

// set records a parameter that was derived or learnt rather than read.
func (p *paramSet) set(key string, v float64, src string) {
	p.used[key] = param{key, v, src}
}

// values returns the parameters as a map for JSON, and their sources.
func (p *paramSet) values() (map[string]float64, map[string]string) {
	v := make(map[string]float64, len(p.used))
	s := make(map[string]string, len(p.used))
	for k, x := range p.used {
		v[k] = x.Value
		s[k] = x.Source
	}
	return v, s
}

var xmxRe = regexp.MustCompile(`-Xmx(\d+)([kKmMgGtT]?)\b`)

// xmxBytes finds -Xmx in JVM options. The pattern admits only the JVM's
// form (whole number, one binary suffix), which bytesize.Parse reads the
// same way.
func xmxBytes(opts string) (int64, bool) {
	m := xmxRe.FindStringSubmatch(opts)
	if m == nil {
		return 0, false
	}
	n, err := bytesize.Parse(m[1] + m[2])
	return n, err == nil
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	k := make([]string, 0, len(m))
	for x := range m {
		k = append(k, x)
	}
	sort.Strings(k)
	return k
}
