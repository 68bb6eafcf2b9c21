package profile

import (
	"encoding/json"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// FORMAT.md's rule is one: every field is in every file, a section not
// computed is null and a list with nothing in it [], except the optional
// fields it lists by name. These tests hold the files, the Go types (and
// so the schemas generated from them, whose "required" is every field
// but the omitempty ones) and that list to the same rule.

// optionalFields are the JSON paths of the fields the Go types leave out
// when empty (omitempty), e.g. "tenants[].reason".
func optionalFields(t reflect.Type, prefix string, seen map[reflect.Type]bool, out map[string]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
		if t.Kind() == reflect.Slice {
			prefix += "[]"
		}
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return
	}
	seen[t] = true
	defer delete(seen, t)
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		path := name
		if prefix != "" {
			path = prefix + "." + name
		}
		if strings.Contains(opts, "omitempty") {
			out[path] = true
		}
		optionalFields(f.Type, path, seen, out)
	}
}

// FORMAT.md lists the optional fields in one line of its rules, each in
// backquotes; every other field is always present.
func TestFormatListsTheOptionalFields(t *testing.T) {
	b, err := os.ReadFile("FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "- Optional fields:") {
			line = l
		}
	}
	if line == "" {
		t.Fatal("FORMAT.md has no rule line starting \"- Optional fields:\"")
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(line, -1) {
		documented[m[1]] = true
	}
	for kind, typ := range map[string]reflect.Type{"job": reflect.TypeOf(Job{}), "tenants": reflect.TypeOf(Tenants{})} {
		code := map[string]bool{}
		optionalFields(typ, "", map[reflect.Type]bool{}, code)
		for f := range code {
			if !documented[kind+": "+f] {
				t.Errorf("%s field %s is left out when empty (omitempty) but FORMAT.md does not list it as optional", kind, f)
			}
		}
		for d := range documented {
			if k, f, _ := strings.Cut(d, ": "); k == kind && !code[f] {
				t.Errorf("FORMAT.md lists %s field %s as optional, but the Go type always writes it", kind, f)
			}
		}
	}
}

// A profile where no stage computed anything has every section, null
// (one object) or [] (a list): a consumer that reads doc["estimate"] or
// doc["harvest"] finds the key.
func TestSectionsNotComputedAreNull(t *testing.T) {
	for _, c := range []struct {
		doc interface{ Marshal() ([]byte, error) }
		typ reflect.Type
	}{{&Job{Job: "j"}, reflect.TypeOf(Job{})}, {&Tenants{}, reflect.TypeOf(Tenants{})}} {
		b, err := c.doc.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		var missing []string
		for i := 0; i < c.typ.NumField(); i++ {
			f := c.typ.Field(i)
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			section := f.Type.Kind() == reflect.Pointer || f.Type.Kind() == reflect.Slice
			if strings.Contains(opts, "omitempty") && !section {
				continue // listed as optional (TestFormatListsTheOptionalFields); a section never is
			}
			v, ok := m[name]
			switch {
			case !ok:
				missing = append(missing, name)
			case f.Type.Kind() == reflect.Pointer && string(v) != "null":
				t.Errorf("%s: section %s not computed is %s, want null", c.typ.Name(), name, v)
			case f.Type.Kind() == reflect.Slice && string(v) != "[]":
				t.Errorf("%s: list %s with nothing in it is %s, want []", c.typ.Name(), name, v)
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("%s: fields left out of a document with nothing computed: %v\n%s", c.typ.Name(), missing, b)
		}
	}
}
