package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/linkedin/goavro/v2"
)

// goavro (linkedin/goavro, a complete Avro implementation) is the oracle of
// the job history reader for both of Hadoop's encodings: what it decodes
// from the fixture, ours must decode field for field. It stays a test
// dependency; BenchmarkJhistAvro and avro.go say why the reader does not
// use it.

// jhistEvents returns the fixture's schema line and its event lines with
// their line numbers.
func jhistEvents(t testing.TB) (schema []byte, lines [][]byte, lineNos []int) {
	t.Helper()
	data, err := os.ReadFile(jhistFixture)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		l := bytes.Clone(sc.Bytes())
		switch {
		case n == 2:
			schema = l
		case n > 2 && len(bytes.TrimSpace(l)) > 0:
			lines, lineNos = append(lines, l), append(lineNos, n)
		}
	}
	if schema == nil || len(lines) < 10 {
		t.Fatalf("fixture: schema %d bytes, %d events", len(schema), len(lines))
	}
	return schema, lines, lineNos
}

func goavroCodec(t testing.TB, schema []byte) *goavro.Codec {
	t.Helper()
	c, err := goavro.NewCodec(string(schema))
	if err != nil {
		t.Fatalf("goavro: %v", err)
	}
	return c
}

// avroCommon maps a decoded value to one shape whichever decoder made it:
// goavro's natives (int32, int64, float32, []byte), our binary decoder's
// (int64, float64, string) and encoding/json's with UseNumber (json.Number).
// Integers become int64, floating point float64, bytes string.
func avroCommon(v any) any {
	switch x := v.(type) {
	case int32:
		return int64(x)
	case int:
		return int64(x)
	case float32:
		return float64(x)
	case []byte:
		return string(x)
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = avroCommon(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = avroCommon(e)
		}
		return out
	}
	return v
}

// avroDiff names the first place where a and b (in avroCommon shape)
// differ, "" when they are equal.
func avroDiff(a, b any, at string) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %T vs %T", at, a, b)
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			ex, okx := x[k]
			ey, oky := y[k]
			if okx != oky {
				return fmt.Sprintf("%s.%s: present %v vs %v", at, k, okx, oky)
			}
			if d := avroDiff(ex, ey, at+"."+k); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: %v vs %v", at, a, b)
		}
		for i := range x {
			if d := avroDiff(x[i], y[i], fmt.Sprintf("%s[%d]", at, i)); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s: %#v vs %#v", at, a, b)
	}
	return ""
}

// jsonEvent decodes an event line as the reader's encoding/json sees it.
func jsonEvent(t testing.TB, line []byte) any {
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// Avro-JSON: every event of the fixture is a valid datum of its schema to
// goavro, and encoding/json (what the reader decodes event lines with)
// reads every field of it to the same value, unions included. A job
// history rewritten by goavro's JSON encoder reads to the same runs.
func TestJhistJSONMatchesGoavro(t *testing.T) {
	schema, lines, lineNos := jhistEvents(t)
	codec := goavroCodec(t, schema)
	var rewritten bytes.Buffer
	rewritten.WriteString("Avro-Json\n")
	rewritten.Write(schema)
	rewritten.WriteString("\n")
	for i, l := range lines {
		native, rest, err := codec.NativeFromTextual(l)
		if err != nil || len(bytes.TrimSpace(rest)) != 0 {
			t.Fatalf("line %d: goavro: %v (%d bytes left)", lineNos[i], err, len(rest))
		}
		if d := avroDiff(avroCommon(jsonEvent(t, l)), avroCommon(native), "event"); d != "" {
			t.Errorf("line %d: encoding/json vs goavro: %s", lineNos[i], d)
		}
		text, err := codec.TextualFromNative(nil, native)
		if err != nil {
			t.Fatal(err)
		}
		rewritten.Write(text)
		rewritten.WriteString("\n")
	}
	want, _, _ := readJhistFile(t, jhistFixture)
	got, rejects, _ := readJhistFile(t, writeFile(t, t.TempDir(), "job_1526555215992_0001.jhist", rewritten.Bytes()))
	if len(rejects) != 0 || len(got) != len(want) {
		t.Fatalf("goavro's Avro-JSON: runs %+v rejects %v", got, rejects)
	}
	for i := range got {
		got[i].Source, want[i].Source = "", ""
		want[i].Config, got[i].Config = "", "" // no conf beside the copy
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("run %d: goavro's JSON %+v, fixture %+v", i, got[i], want[i])
		}
	}
}

// goavroBinary encodes the fixture's events with goavro's binary encoder.
func goavroBinary(t testing.TB, codec *goavro.Codec, lines [][]byte) []byte {
	var body []byte
	for _, l := range lines {
		native, _, err := codec.NativeFromTextual(l)
		if err != nil {
			t.Fatal(err)
		}
		if body, err = codec.BinaryFromNative(body, native); err != nil {
			t.Fatal(err)
		}
	}
	return body
}

// checkBinaryAgainstGoavro decodes body record by record with ours and
// with goavro: the same values, field for field, and the same record
// boundaries. It returns the number of records.
func checkBinaryAgainstGoavro(t *testing.T, schema, body []byte) int {
	t.Helper()
	typ, err := parseAvroSchema(schema)
	if err != nil {
		t.Fatal(err)
	}
	codec := goavroCodec(t, schema)
	d := &avroDecoder{buf: body}
	rest := body
	n := 0
	for ; d.off < len(d.buf); n++ {
		d.budget = 1024 + 8*(len(d.buf)-d.off)
		start := d.off
		ours, err := d.value(typ, 0)
		if err != nil {
			t.Fatalf("record %d at byte %d: ours: %v", n+1, start, err)
		}
		var theirs any
		theirs, rest, err = codec.NativeFromBinary(rest)
		if err != nil {
			t.Fatalf("record %d at byte %d: goavro: %v", n+1, start, err)
		}
		if len(body)-len(rest) != d.off {
			t.Fatalf("record %d: ours ends at byte %d, goavro's at %d", n+1, d.off, len(body)-len(rest))
		}
		if diff := avroDiff(avroCommon(ours), avroCommon(theirs), "record"); diff != "" {
			t.Fatalf("record %d: ours vs goavro: %s", n+1, diff)
		}
	}
	return n
}

// Avro-Binary: goavro's encoding of the fixture's events is byte for byte
// what the tests' own writer (avroEncode) makes of them, our decoder reads
// every record of it to goavro's values with the same boundaries, and the
// reader makes the same runs of it as of the JSON.
func TestJhistBinaryMatchesGoavro(t *testing.T) {
	schema, lines, _ := jhistEvents(t)
	body := goavroBinary(t, goavroCodec(t, schema), lines)
	ownWriter := binaryJhist(t)
	if want := append(append([]byte("Avro-Binary\n"), schema...), '\n'); !bytes.Equal(ownWriter, append(want, body...)) {
		t.Errorf("goavro's binary encoding differs from avroEncode's")
	}
	if n := checkBinaryAgainstGoavro(t, schema, body); n != len(lines) {
		t.Errorf("%d records, want %d", n, len(lines))
	}
	var file bytes.Buffer
	file.WriteString("Avro-Binary\n")
	file.Write(schema)
	file.WriteString("\n")
	file.Write(body)
	want, _, _ := readJhistFile(t, jhistFixture)
	got, rejects, _ := readJhistFile(t, writeFile(t, t.TempDir(), "job_1526555215992_0001.jhist", file.Bytes()))
	if len(rejects) != 0 || len(got) != len(want) {
		t.Fatalf("goavro's binary: runs %+v rejects %v", got, rejects)
	}
	for i := range got {
		got[i].Source, want[i].Source = "", ""
		want[i].Config, got[i].Config = "", ""
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("run %d: goavro's binary %+v, fixture %+v", i, got[i], want[i])
		}
	}
}

// avroTestSchema has what Hadoop's schema lacks: float, double, bytes,
// fixed, maps with entries, unions of named types referred to by short
// name, nested arrays.
const avroTestSchema = `{"type":"record","name":"X","namespace":"t","fields":[
 {"name":"f","type":"float"},{"name":"d","type":"double"},{"name":"b","type":"bytes"},
 {"name":"x","type":{"type":"fixed","name":"F","size":4}},
 {"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}},
 {"name":"m","type":{"type":"map","values":["null","long",{"type":"array","items":"string"}]}},
 {"name":"r","type":{"type":"record","name":"Y","fields":[{"name":"i","type":"int"},{"name":"ok","type":"boolean"}]}},
 {"name":"u","type":["null","F","E","Y",{"type":"map","values":"int"}]},
 {"name":"aa","type":{"type":"array","items":{"type":"array","items":["null","double"]}}}
]}`

// randomAvro makes a random datum of t in goavro's native form.
func randomAvro(rng *rand.Rand, t *avroType) any {
	str := func() string {
		const alphabet = "abcXYZ09 _-/\"\\\n\u00e9\u4e16\U0001F600"
		r := []rune(alphabet)
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteRune(r[rng.IntN(len(r))])
		}
		return b.String()
	}
	switch t.kind {
	case "null":
		return nil
	case "boolean":
		return rng.IntN(2) == 1
	case "int":
		return []int32{0, -1, 1, math.MinInt32, math.MaxInt32, int32(rng.Uint32())}[rng.IntN(6)]
	case "long":
		return []int64{0, -1, 63, -64, 64, math.MinInt64, math.MaxInt64, int64(rng.Uint64()), 1526555651139}[rng.IntN(9)]
	case "float":
		return float32(rng.NormFloat64() * 1e3)
	case "double":
		return []float64{0, -0.5, math.MaxFloat64, math.SmallestNonzeroFloat64, rng.NormFloat64() * 1e9}[rng.IntN(5)]
	case "string", "enum":
		if t.kind == "enum" {
			return t.symbols[rng.IntN(len(t.symbols))]
		}
		return str()
	case "bytes", "fixed":
		n := rng.IntN(9)
		if t.kind == "fixed" {
			n = t.size
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	case "record":
		m := map[string]any{}
		for _, f := range t.fields {
			m[f.name] = randomAvro(rng, f.typ)
		}
		return m
	case "array":
		a := []any{}
		for range rng.IntN(4) {
			a = append(a, randomAvro(rng, t.items))
		}
		return a
	case "map":
		m := map[string]any{}
		for range rng.IntN(4) {
			m[str()] = randomAvro(rng, t.items)
		}
		return m
	case "union":
		b := t.branches[rng.IntN(len(t.branches))]
		if b.kind == "null" {
			return nil
		}
		return map[string]any{b.typeName(): randomAvro(rng, b)}
	}
	panic("randomAvro: " + t.kind)
}

// Seeded random data of Hadoop's schema and of one with every other Avro
// type, encoded by goavro, decode with ours to goavro's values. Arrays and
// maps written in blocks with a byte size (negative counts, which goavro's
// encoder never writes) decode alike too.
func TestAvroDecoderMatchesGoavroRandom(t *testing.T) {
	hadoop, _, _ := jhistEvents(t)
	rng := rand.New(rand.NewPCG(15, 3))
	for name, schema := range map[string][]byte{"hadoop": hadoop, "other types": []byte(avroTestSchema)} {
		typ, err := parseAvroSchema(schema)
		if err != nil {
			t.Fatal(err)
		}
		codec := goavroCodec(t, schema)
		var body []byte
		for range 300 {
			if body, err = codec.BinaryFromNative(body, randomAvro(rng, typ)); err != nil {
				t.Fatalf("%s: goavro cannot encode our random datum: %v", name, err)
			}
		}
		if n := checkBinaryAgainstGoavro(t, schema, body); n != 300 {
			t.Errorf("%s: %d records, want 300", name, n)
		}
	}
	// ["a", "b"] then {"k": 7} as one block each, with their byte sizes.
	schema := []byte(`{"type":"record","name":"B","fields":[{"name":"a","type":{"type":"array","items":"string"}},{"name":"m","type":{"type":"map","values":"long"}}]}`)
	body := []byte{3, 4, 2, 'a', 2, 'b', 0, 1, 4, 2, 'k', 14, 0}
	if n := checkBinaryAgainstGoavro(t, schema, body); n != 1 {
		t.Errorf("blocks with sizes: %d records", n)
	}
}

// Hostile binary histories (the schema comes from the file) are rejects,
// quickly and in bounded memory. goavro dies on both (verified by hand
// under a memory limit, not runnable here): a record type that contains
// itself recurses until the stack limit (fatal error: stack overflow), and
// a block count of 2^31 allocates 32 GiB before reading an item (fatal
// error: out of memory).
func TestJhistBinaryHostile(t *testing.T) {
	dir := t.TempDir()
	for name, c := range map[string]struct {
		schema string
		body   []byte
		want   string
	}{
		"self-recursive": {`{"type":"record","name":"R","fields":[{"name":"a","type":"R"}]}`, []byte{2}, "nested too deeply"},
		"huge count":     {`{"type":"array","items":"string"}`, []byte{0xfe, 0xff, 0xff, 0xff, 0x0f, 2, 'a'}, "truncated"},
		// Issue 22 #14: a schema record without "fields" decoded nothing
		// per record and looped for ever (60 s and 2 GB before a kill).
		"no fields": {`{"type":"record","name":"Event"}`, bytes.Repeat([]byte{7}, 20000), "takes no bytes"},
		// Each 4-byte record an array of 10,000 nulls: with a budget
		// per record that was quadratic; one budget for the body is not.
		"null arrays": {`{"type":"record","name":"E","fields":[{"name":"a","type":{"type":"array","items":"null"}}]}`,
			bytes.Repeat([]byte{0xa0, 0x9c, 0x01, 0}, 5000), "more values than the file's bytes allow"},
	} {
		path := writeFile(t, dir, strings.ReplaceAll(name, " ", "_")+".jhist", append([]byte("Avro-Binary\n"+c.schema+"\n"), c.body...))
		runs, rejects, _ := readJhistFile(t, path)
		// The records before the damage may be rejects of their own (the
		// null arrays are not job history events); the last says why
		// reading stopped.
		if len(runs) != 0 || len(rejects) == 0 || !strings.Contains(rejects[len(rejects)-1].Err.Error(), c.want) {
			t.Errorf("%s: runs %v rejects %v, want the last reject saying %q", name, runs, rejects, c.want)
		}
	}
}

// bigJhist is a realistic large job history: the fixture's job with its
// map task repeated maps times and its reduce task reduces times (ids
// renumbered), in both encodings, written by goavro.
func bigJhist(t testing.TB, maps, reduces int) (jsonFile, binFile []byte, events int) {
	schema, lines, _ := jhistEvents(t)
	codec := goavroCodec(t, schema)
	var out []string
	emit := func(l []byte) { out = append(out, string(l)) }
	var mapEv, redEv [][]byte
	for _, l := range lines {
		switch {
		case bytes.Contains(l, []byte("_m_000000")):
			mapEv = append(mapEv, l)
		case bytes.Contains(l, []byte("_r_000000")):
			redEv = append(redEv, l)
		}
	}
	done := false
	for _, l := range lines {
		if bytes.Contains(l, []byte("_m_000000")) || bytes.Contains(l, []byte("_r_000000")) {
			if !done {
				for _, set := range []struct {
					ev  [][]byte
					tag string
					n   int
				}{{mapEv, "_m_", maps}, {redEv, "_r_", reduces}} {
					for i := range set.n {
						for _, e := range set.ev {
							emit(bytes.ReplaceAll(e, []byte(set.tag+"000000"), []byte(fmt.Sprintf("%s%06d", set.tag, i))))
						}
					}
				}
				done = true
			}
			continue
		}
		emit(l)
	}
	var js, bin bytes.Buffer
	js.WriteString("Avro-Json\n" + string(schema) + "\n")
	bin.WriteString("Avro-Binary\n" + string(schema) + "\n")
	var body []byte
	for _, l := range out {
		native, _, err := codec.NativeFromTextual([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		text, err := codec.TextualFromNative(nil, native)
		if err != nil {
			t.Fatal(err)
		}
		js.Write(text)
		js.WriteString("\n")
		if body, err = codec.BinaryFromNative(body, native); err != nil {
			t.Fatal(err)
		}
	}
	bin.Write(body)
	return js.Bytes(), bin.Bytes(), len(out)
}

// parseJhistBinaryGoavro is parseJhistBinary with goavro decoding the
// records: what the reader would be with goavro, for the benchmark.
func parseJhistBinaryGoavro(p *jhistParse, data []byte) error {
	_, rest, _ := bytes.Cut(data, []byte("\n"))
	schema, body, _ := bytes.Cut(rest, []byte("\n"))
	codec, err := goavro.NewCodec(string(schema))
	if err != nil {
		return err
	}
	for n := int64(1); len(body) > 0; n++ {
		var v any
		if v, body, err = codec.NativeFromBinary(body); err != nil {
			return err
		}
		js, err := json.Marshal(v)
		if err != nil {
			return err
		}
		p.event(n, js)
	}
	return nil
}

// BenchmarkJhistAvro decodes a large job history (1000 map and 100 reduce
// tasks, about 4,400 events) with our decoder and with goavro in the same run:
// decode-only (every record to values; JSON lines with encoding/json, as
// the reader does, against goavro's Avro-JSON decoder), and the whole
// binary read (records to runs) with either decoder underneath.
func BenchmarkJhistAvro(b *testing.B) {
	js, bin, events := bigJhist(b, 1000, 100)
	schemaLine := bytes.SplitN(bin, []byte("\n"), 3)[1]
	body := bin[len("Avro-Binary\n")+len(schemaLine)+1:]
	var jsLines [][]byte
	for i, l := range bytes.Split(js, []byte("\n")) {
		if i >= 2 && len(l) > 0 {
			jsLines = append(jsLines, l)
		}
	}
	typ, err := parseAvroSchema(schemaLine)
	if err != nil {
		b.Fatal(err)
	}
	codec := goavroCodec(b, schemaLine)
	report := func(b *testing.B, size int) {
		b.SetBytes(int64(size))
		b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	}
	b.Run("decode=binary/ours", func(b *testing.B) {
		for range b.N {
			d := &avroDecoder{buf: body}
			for n := 0; d.off < len(d.buf); n++ {
				d.budget = 1024 + 8*(len(d.buf)-d.off)
				if _, err := d.value(typ, 0); err != nil {
					b.Fatal(err)
				}
			}
		}
		report(b, len(body))
	})
	b.Run("decode=binary/goavro", func(b *testing.B) {
		for range b.N {
			rest := body
			for len(rest) > 0 {
				var err error
				if _, rest, err = codec.NativeFromBinary(rest); err != nil {
					b.Fatal(err)
				}
			}
		}
		report(b, len(body))
	})
	b.Run("decode=json/encoding-json", func(b *testing.B) {
		for range b.N {
			for _, l := range jsLines {
				var v any
				if err := json.Unmarshal(l, &v); err != nil {
					b.Fatal(err)
				}
			}
		}
		report(b, len(js))
	})
	b.Run("decode=json/goavro", func(b *testing.B) {
		for range b.N {
			for _, l := range jsLines {
				if _, _, err := codec.NativeFromTextual(l); err != nil {
					b.Fatal(err)
				}
			}
		}
		report(b, len(js))
	})
	b.Run("read=binary/ours", func(b *testing.B) {
		for range b.N {
			p := &jhistParse{path: "big.jhist", byID: map[string]*jhAttempt{}}
			if err := parseJhistBinary(p, memInput("big.jhist", bin), b.Context()); err != nil || len(p.attempts) != 1100 || len(p.rejects) != 0 {
				b.Fatal(err, len(p.attempts), p.rejects)
			}
		}
		report(b, len(bin))
	})
	b.Run("read=binary/goavro", func(b *testing.B) {
		for range b.N {
			p := &jhistParse{path: "big.jhist", byID: map[string]*jhAttempt{}}
			if err := parseJhistBinaryGoavro(p, bin); err != nil || len(p.attempts) != 1100 || len(p.rejects) != 0 {
				b.Fatal(err, len(p.attempts), p.rejects)
			}
		}
		report(b, len(bin))
	})
	b.Run("read=json/ours", func(b *testing.B) {
		for range b.N {
			p, err := parseJhist("big.jhist", memInput("big.jhist", js), b.Context())
			if err != nil || len(p.attempts) != 1100 || len(p.rejects) != 0 {
				b.Fatal(err, len(p.attempts))
			}
		}
		report(b, len(js))
	})
}
