package ingest

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
)

// avroEncode writes v (in Avro's JSON shape, as encoding/json decodes it)
// in Avro's binary encoding: the test's independent writer.
func avroEncode(b *bytes.Buffer, t *avroType, v any) error {
	long := func(x int64) {
		var tmp [binary.MaxVarintLen64]byte
		n := binary.PutUvarint(tmp[:], uint64(x<<1)^uint64(x>>63))
		b.Write(tmp[:n])
	}
	num := func() (float64, error) {
		f, ok := v.(float64)
		if !ok {
			return 0, fmt.Errorf("%v is not a number", v)
		}
		return f, nil
	}
	switch t.kind {
	case "null":
		return nil
	case "boolean":
		if v.(bool) {
			b.WriteByte(1)
		} else {
			b.WriteByte(0)
		}
	case "int", "long":
		f, err := num()
		if err != nil {
			return err
		}
		long(int64(f))
	case "float":
		f, err := num()
		if err != nil {
			return err
		}
		binary.Write(b, binary.LittleEndian, math.Float32bits(float32(f)))
	case "double":
		f, err := num()
		if err != nil {
			return err
		}
		binary.Write(b, binary.LittleEndian, math.Float64bits(f))
	case "string", "bytes", "fixed":
		s := v.(string)
		if t.kind != "fixed" {
			long(int64(len(s)))
		}
		b.WriteString(s)
	case "enum":
		for i, s := range t.symbols {
			if s == v {
				long(int64(i))
				return nil
			}
		}
		return fmt.Errorf("%v not in enum %s", v, t.name)
	case "record":
		m := v.(map[string]any)
		for _, f := range t.fields {
			if err := avroEncode(b, f.typ, m[f.name]); err != nil {
				return fmt.Errorf("%s.%s: %w", t.name, f.name, err)
			}
		}
	case "array":
		a := v.([]any)
		if len(a) > 0 {
			long(int64(len(a)))
			for _, x := range a {
				if err := avroEncode(b, t.items, x); err != nil {
					return err
				}
			}
		}
		long(0)
	case "map":
		m := v.(map[string]any)
		if len(m) > 0 {
			long(int64(len(m)))
			for k, x := range m {
				long(int64(len(k)))
				b.WriteString(k)
				if err := avroEncode(b, t.items, x); err != nil {
					return err
				}
			}
		}
		long(0)
	case "union":
		for i, br := range t.branches {
			if v == nil && br.kind == "null" {
				long(int64(i))
				return nil
			}
			if m, ok := v.(map[string]any); ok && len(m) == 1 {
				if x, ok := m[br.typeName()]; ok {
					long(int64(i))
					return avroEncode(b, br, x)
				}
			}
		}
		return fmt.Errorf("no union branch for %v", v)
	}
	return nil
}

// binaryJhist rewrites the Avro-JSON fixture as Hadoop's binary job history.
func binaryJhist(t testing.TB) []byte {
	data, err := os.ReadFile(jhistFixture)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	var out bytes.Buffer
	var typ *avroType
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		switch {
		case n == 1:
			out.WriteString("Avro-Binary\n")
		case n == 2:
			out.Write(line)
			out.WriteString("\n")
			if typ, err = parseAvroSchema(line); err != nil {
				t.Fatal(err)
			}
		case len(bytes.TrimSpace(line)) > 0:
			var v any
			if err := json.Unmarshal(line, &v); err != nil {
				t.Fatal(err)
			}
			if err := avroEncode(&out, typ, v); err != nil {
				t.Fatalf("line %d: %v", n, err)
			}
		}
	}
	return out.Bytes()
}

// Hadoop's binary job history reads to the same runs as its JSON twin
// (read → write → read); a cut-short file keeps the records before the cut
// and says where it stopped.
func TestJhistBinary(t *testing.T) {
	want, _, _ := readJhistFile(t, jhistFixture)
	bin := binaryJhist(t)
	dir := t.TempDir()
	path := writeFile(t, dir, "job_1526555215992_0001.jhist", bin)
	got, rejects, _ := readJhistFile(t, path)
	if len(rejects) != 0 || len(got) != 2 {
		t.Fatalf("runs %+v rejects %v", got, rejects)
	}
	for i := range got {
		got[i].Source, want[i].Source = "", ""
	}
	// Without the conf beside it, memory is the default; compare the rest.
	for i := range got {
		w := want[i]
		w.Config, got[i].Config = "", ""
		if !reflect.DeepEqual(got[i], w) {
			t.Errorf("run %d: binary %+v, json %+v", i, got[i], w)
		}
	}
	cut := writeFile(t, dir, "cut.jhist", bin[:len(bin)-40])
	got, rejects, _ = readJhistFile(t, cut)
	// The cut falls in the last record (JOB_FINISHED): both attempts stay.
	if len(got) != 2 || len(rejects) != 1 || !strings.Contains(rejects[0].Err.Error(), "cannot be read") {
		t.Fatalf("cut: runs %d rejects %v", len(got), rejects)
	}
}
