package profile

import (
	"encoding/json"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// The published schemas (schema/*.schema.json) are derived from the Go
// types and their `jsonschema` tags by genSchema; TestSchemaFilesMatchTypes
// fails when a type changes and the file does not (cd profile && go test .
// -update rewrites it). So the schema and the loader cannot drift apart.

type schemaGen struct {
	defs map[string]any
}

func genSchema(root any, id, title string) map[string]any {
	g := &schemaGen{defs: map[string]any{}}
	t := reflect.TypeOf(root)
	top := g.object(t)
	out := map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         id,
		"title":       title,
		"description": "wlprof profile format, major version 1. Fields are only added within a major version: readers ignore fields they do not know. Generated from the Go types of github.com/wlprof/wlprof/profile.",
	}
	for k, v := range top {
		out[k] = v
	}
	if len(g.defs) > 0 {
		out["$defs"] = g.defs
	}
	return out
}

func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var req []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		s := g.typ(f.Type)
		applyTag(s, f.Tag.Get("jsonschema"), f.Type.Kind())
		props[name] = s
		if !strings.Contains(opts, "omitempty") {
			req = append(req, name)
		}
	}
	sort.Strings(req)
	return map[string]any{"type": "object", "properties": props, "required": req}
}

func (g *schemaGen) typ(t reflect.Type) map[string]any {
	switch t.Kind() {
	case reflect.Pointer:
		inner := g.typ(t.Elem())
		if ty, ok := inner["type"].(string); ok {
			inner["type"] = []any{ty, "null"}
			return inner
		}
		return map[string]any{"anyOf": []any{inner, map[string]any{"type": "null"}}}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int64, reflect.Int32:
		return map[string]any{"type": "integer"}
	case reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.typ(t.Elem())}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.typ(t.Elem())}
	case reflect.Struct:
		if _, ok := g.defs[t.Name()]; !ok {
			g.defs[t.Name()] = nil // breaks recursion
			g.defs[t.Name()] = g.object(t)
		}
		return map[string]any{"$ref": "#/$defs/" + t.Name()}
	}
	panic("profile: no schema for " + t.String())
}

// applyTag adds the constraints of a `jsonschema:"minimum=0,enum=a|b"` tag.
func applyTag(s map[string]any, tag string, k reflect.Kind) {
	if tag == "" {
		return
	}
	for _, kv := range strings.Split(tag, ",") {
		key, val, _ := strings.Cut(kv, "=")
		switch key {
		case "enum":
			var e []any
			for _, v := range strings.Split(val, "|") {
				e = append(e, v)
			}
			s["enum"] = e
		case "const":
			if k == reflect.String {
				s["const"] = val
			} else {
				n, _ := strconv.Atoi(val)
				s["const"] = n
			}
		case "minimum", "maximum", "exclusiveMinimum", "minLength":
			f, err := strconv.ParseFloat(val, 64)
			if err != nil {
				panic("profile: bad jsonschema tag " + tag)
			}
			s[key] = f
		default:
			panic("profile: unknown jsonschema tag key " + key)
		}
	}
}

func schemaJSON(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}
