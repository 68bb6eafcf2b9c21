package profile

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// validateSchema checks a decoded JSON document against a JSON Schema
// (draft 2020-12), for the subset the published schemas use: $ref to
// #/$defs, type (one or several), properties, required,
// additionalProperties, items, enum, const, minimum, maximum,
// exclusiveMinimum, minLength and anyOf. A keyword outside the subset is an
// error, so the schema cannot grow past what this checker understands.
func validateSchema(root map[string]any, doc any) []string {
	v := &schemaValidator{root: root}
	v.check(root, doc, "$")
	return v.errs
}

type schemaValidator struct {
	root map[string]any
	errs []string
}

func (v *schemaValidator) fail(at, format string, a ...any) {
	v.errs = append(v.errs, at+": "+fmt.Sprintf(format, a...))
}

func jsonType(x any) string {
	switch x := x.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if x == math.Trunc(x) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", x)
}

func typeMatches(want string, got string) bool {
	return want == got || want == "number" && got == "integer"
}

func (v *schemaValidator) check(s map[string]any, x any, at string) {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := s[k]
		switch k {
		case "$schema", "$id", "title", "description", "$defs":
		case "$ref":
			ref := val.(string)
			name, ok := strings.CutPrefix(ref, "#/$defs/")
			def, found := v.root["$defs"].(map[string]any)[name].(map[string]any)
			if !ok || !found {
				v.fail(at, "unresolvable $ref %q", ref)
				continue
			}
			v.check(def, x, at)
		case "type":
			var types []string
			switch t := val.(type) {
			case string:
				types = []string{t}
			case []any:
				for _, e := range t {
					types = append(types, e.(string))
				}
			}
			got, ok := jsonType(x), false
			for _, t := range types {
				ok = ok || typeMatches(t, got)
			}
			if !ok {
				v.fail(at, "is %s, want %s", got, strings.Join(types, " or "))
			}
		case "properties":
			obj, ok := x.(map[string]any)
			if !ok {
				continue
			}
			props := val.(map[string]any)
			names := make([]string, 0, len(props))
			for n := range props {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				if e, ok := obj[n]; ok {
					v.check(props[n].(map[string]any), e, at+"."+n)
				}
			}
		case "required":
			obj, ok := x.(map[string]any)
			if !ok {
				continue
			}
			for _, n := range val.([]any) {
				if _, ok := obj[n.(string)]; !ok {
					v.fail(at, "required property %q is missing", n)
				}
			}
		case "additionalProperties":
			obj, ok := x.(map[string]any)
			if !ok {
				continue
			}
			props, _ := s["properties"].(map[string]any)
			names := make([]string, 0, len(obj))
			for n := range obj {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				if _, declared := props[n]; declared {
					continue
				}
				switch ap := val.(type) {
				case bool:
					if !ap {
						v.fail(at, "property %q is not allowed", n)
					}
				case map[string]any:
					v.check(ap, obj[n], at+"."+n)
				}
			}
		case "items":
			arr, ok := x.([]any)
			if !ok {
				continue
			}
			for i, e := range arr {
				v.check(val.(map[string]any), e, fmt.Sprintf("%s[%d]", at, i))
			}
		case "enum":
			found := false
			for _, e := range val.([]any) {
				found = found || e == x
			}
			if !found {
				v.fail(at, "%v is not one of %v", x, val)
			}
		case "const":
			if fmt.Sprint(val) != fmt.Sprint(x) {
				v.fail(at, "%v, want %v", x, val)
			}
		case "minimum", "maximum", "exclusiveMinimum":
			n, ok := x.(float64)
			if !ok {
				continue
			}
			lim := val.(float64)
			if k == "minimum" && n < lim || k == "maximum" && n > lim || k == "exclusiveMinimum" && n <= lim {
				v.fail(at, "%g violates %s %g", n, k, lim)
			}
		case "minLength":
			if str, ok := x.(string); ok && float64(len([]rune(str))) < val.(float64) {
				v.fail(at, "%q is shorter than %g", str, val)
			}
		case "anyOf":
			// When no alternative matches, report the problems of the
			// alternatives of the right type (the null branch of a nullable
			// section says nothing useful about a broken section).
			ok := false
			var inner []string
			for _, alt := range val.([]any) {
				sub := &schemaValidator{root: v.root}
				sub.check(alt.(map[string]any), x, at)
				ok = ok || len(sub.errs) == 0
				if len(sub.errs) == 1 && strings.HasPrefix(sub.errs[0], at+": is ") {
					continue
				}
				inner = append(inner, sub.errs...)
			}
			if !ok {
				v.fail(at, "matches none of anyOf")
				v.errs = append(v.errs, inner...)
			}
		default:
			v.fail(at, "schema keyword %q is outside the checked subset", k)
		}
	}
}
