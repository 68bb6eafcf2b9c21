package profilecheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/wlprof/wlprof/profile"
)

// The published schemas are checked with a complete draft 2020-12
// validator, santhosh-tekuri/jsonschema, which ships the draft's
// meta-schemas, so nothing is fetched.

const metaSchema = "https://json-schema.org/draft/2020-12/schema"

// unmarshalSchemaJSON decodes as the validator wants (numbers as
// json.Number, so large integers are compared exactly).
func unmarshalSchemaJSON(t testing.TB, b []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// compileSchema compiles a published schema under its $id.
func compileSchema(t testing.TB, schema []byte) *jsonschema.Schema {
	t.Helper()
	doc := unmarshalSchemaJSON(t, schema)
	id, _ := doc.(map[string]any)["$id"].(string)
	if id == "" {
		t.Fatal("schema without $id")
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(id, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(id)
	if err != nil {
		t.Fatalf("%s does not compile: %v", id, err)
	}
	return s
}

// schemaErrors lists where a validation error says the document is wrong:
// the leaves of its tree of causes (the keywords that failed, not the
// anyOf, $ref and schema units that group them), each as
// "$<instance pointer> <keyword path>". err.Error() has the messages.
func schemaErrors(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		if err != nil {
			return []string{err.Error()}
		}
		return nil
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, "$/"+strings.Join(e.InstanceLocation, "/")+" "+strings.Join(e.ErrorKind.KeywordPath(), "/"))
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

// The published schemas are valid draft 2020-12 schemas: they pass the
// draft's meta-schema, and a schema with a broken keyword does not.
func TestSchemasPassMetaSchema(t *testing.T) {
	meta, err := jsonschema.NewCompiler().Compile(metaSchema)
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string][]byte{"job": profile.JobSchema, "tenants": profile.TenantsSchema} {
		doc := unmarshalSchemaJSON(t, s)
		if got, _ := doc.(map[string]any)["$schema"].(string); got != metaSchema {
			t.Errorf("%s: $schema %q, want %q", name, got, metaSchema)
		}
		if err := meta.Validate(doc); err != nil {
			t.Errorf("%s schema fails the 2020-12 meta-schema: %v", name, err)
		}
		compileSchema(t, s)
	}
	for _, c := range []struct {
		name   string
		mutate func(m map[string]any)
		want   string
	}{
		{"type not a type", func(m map[string]any) { m["type"] = "float" }, "/type"},
		{"required not an array", func(m map[string]any) { m["required"] = "job" }, "/required"},
		{"minimum not a number", func(m map[string]any) {
			m["$defs"].(map[string]any)["CurvePoint"].(map[string]any)["properties"].(map[string]any)["runtime_s"].(map[string]any)["minimum"] = "zero"
		}, "/$defs/CurvePoint/properties/runtime_s/minimum"},
	} {
		m := unmarshalSchemaJSON(t, profile.JobSchema).(map[string]any)
		c.mutate(m)
		errs := schemaErrors(meta.Validate(m))
		if !slices.ContainsFunc(errs, func(e string) bool { return strings.HasPrefix(e, "$"+c.want+" ") }) {
			t.Errorf("%s: meta-schema errors %q, want one at %s", c.name, errs, c.want)
		}
	}
}

// goldenProfiles finds every profile document kept in the repository: the
// JSON files under any testdata folder whose "kind" is "job" or "tenants".
// root is the repository's top, where the walk starts.
const root = "../.."

func goldenProfiles(t *testing.T) map[string][]string {
	found := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || filepath.Ext(path) != ".json" || !slices.Contains(strings.Split(filepath.ToSlash(path), "/"), "testdata") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var head struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal(b, &head) == nil && (head.Kind == "job" || head.Kind == "tenants") {
			found[head.Kind] = append(found[head.Kind], filepath.ToSlash(path))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// Every profile this repository keeps as an example or golden file passes
// the published schema: the package's goldens and the CLI's (written from
// the bundled tpch_q12 fixture), and any other found under a testdata
// folder.
func TestGoldenFilesPassSchema(t *testing.T) {
	found := goldenProfiles(t)
	for kind, want := range map[string][]string{
		"job":     {root + "/profile/testdata/job.json", root + "/profile/testdata/minimal-job.json", root + "/cmd/wlprof/testdata/golden/report/profiles/tpch_q12.json"},
		"tenants": {root + "/profile/testdata/tenants.json"},
	} {
		for _, w := range want {
			if !slices.Contains(found[kind], w) {
				t.Errorf("%s is not among the %s documents found (%v)", w, kind, found[kind])
			}
		}
	}
	schemas := map[string]*jsonschema.Schema{"job": compileSchema(t, profile.JobSchema), "tenants": compileSchema(t, profile.TenantsSchema)}
	for kind, files := range found {
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := schemas[kind].Validate(unmarshalSchemaJSON(t, b)); err != nil {
				t.Errorf("%s fails the %s schema: %v", f, kind, err)
			}
		}
	}
}

// The check is not vacuous: broken documents fail it, each at the field
// and keyword that is wrong.
func TestSchemaRejectsBrokenDocuments(t *testing.T) {
	// The package's complete sample documents (every section set).
	job, err := os.ReadFile(root + "/profile/testdata/job.json")
	if err != nil {
		t.Fatal(err)
	}
	tenants, err := os.ReadFile(root + "/profile/testdata/tenants.json")
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]*jsonschema.Schema{"job": compileSchema(t, profile.JobSchema), "tenants": compileSchema(t, profile.TenantsSchema)}
	docs := map[string][]byte{"job": job, "tenants": tenants}
	for kind, s := range schemas {
		if err := s.Validate(unmarshalSchemaJSON(t, docs[kind])); err != nil {
			t.Fatalf("the sample %s fails: %v", kind, err)
		}
	}
	sky := func(m map[string]any) map[string]any { return m["skyline"].(map[string]any) }
	cases := []struct {
		name, kind string
		mutate     func(m map[string]any)
		want       string // instance pointer and keyword of one leaf error
	}{
		{"missing job", "job", func(m map[string]any) { delete(m, "job") }, "/ required"},
		// One rule (FORMAT.md): a section not computed is null, never left out.
		{"estimate left out", "job", func(m map[string]any) { delete(m, "estimate") }, "/ required"},
		{"harvest left out", "job", func(m map[string]any) { delete(m, "harvest") }, "/ required"},
		{"$schema left out", "job", func(m map[string]any) { delete(m, "$schema") }, "/ required"},
		{"wrong version", "job", func(m map[string]any) { m["version"] = 2.0 }, "/version const"},
		{"alpha above 1", "job", func(m map[string]any) { sky(m)["alpha"] = 1.5 }, "/skyline/alpha maximum"},
		{"source unknown", "job", func(m map[string]any) { m["period_s"].(map[string]any)["source"] = "guess" }, "/period_s/source enum"},
		{"reservation floats", "job", func(m map[string]any) { sky(m)["reservation"] = []any{1.5} }, "/skyline/reservation/0 type"},
		{"slo a string", "job", func(m map[string]any) { m["slo"] = "tight" }, "/slo type"},
		{"empty job", "job", func(m map[string]any) { m["job"] = "" }, "/job minLength"},
		{"wrong kind", "tenants", func(m map[string]any) { m["kind"] = "job" }, "/kind enum"},
		{"classes not a list", "tenants", func(m map[string]any) { m["classes"] = map[string]any{} }, "/classes type"},
	}
	for _, c := range cases {
		m := unmarshalSchemaJSON(t, docs[c.kind]).(map[string]any)
		c.mutate(m)
		errs := schemaErrors(schemas[c.kind].Validate(m))
		if !slices.ContainsFunc(errs, func(e string) bool { return e == "$"+c.want }) {
			t.Errorf("%s: errors %q, want one at %q", c.name, errs, c.want)
		}
	}
}
