package ingest

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
)

// A small schema-driven Avro binary decoder, enough for Hadoop's binary job
// history ("Avro-Binary", its schema on the next line, then Event records
// back to back with no container). Decoded values take the shape of Avro's
// JSON encoding (a non-null union branch is {"<type name>": value}), so the
// JSON path reads them unchanged.
//
// Why not linkedin/goavro, which the tests use as the oracle
// (avro_oracle_test.go: every record and field of the fixture, and seeded
// random data of every Avro type, decode to goavro's values)? Speed does
// not decide it: BenchmarkJhistAvro puts the two within noise of each
// other on a 1,100-task history. Hostile input does: the schema comes from
// the file, and goavro kills the process on a record type that contains
// itself (unbounded recursion: fatal stack overflow, from a one-byte body)
// and on a corrupt block count (it allocates count × 16 bytes before
// reading an item: 32 GiB, fatal out of memory, from seven bytes). Here
// the same inputs are one reject each (TestJhistBinaryHostile): depth and
// a value budget bound the recursion, and a count beyond the bytes left is
// truncated data. Guarding goavro would take a schema walker of our own and
// a change to its process-wide MaxBlockCount, for no gain in speed.

// avroType is one node of a parsed schema.
type avroType struct {
	kind     string // null boolean int long float double bytes string record enum array map union fixed
	name     string // full name of a named type
	fields   []avroField
	symbols  []string
	items    *avroType // array items, map values
	branches []*avroType
	size     int
}

type avroField struct {
	name string
	typ  *avroType
}

// parseAvroSchema parses a schema in its JSON form.
func parseAvroSchema(text []byte) (*avroType, error) {
	var raw any
	if err := json.Unmarshal(text, &raw); err != nil {
		return nil, fmt.Errorf("schema is not JSON: %v", err)
	}
	named := map[string]*avroType{}
	return avroNode(raw, "", named, 0)
}

func avroNode(raw any, ns string, named map[string]*avroType, depth int) (*avroType, error) {
	if depth > 64 {
		return nil, errors.New("schema nested too deeply")
	}
	switch v := raw.(type) {
	case string:
		switch v {
		case "null", "boolean", "int", "long", "float", "double", "bytes", "string":
			return &avroType{kind: v}, nil
		}
		if t, ok := named[v]; ok {
			return t, nil
		}
		if t, ok := named[ns+"."+v]; ok {
			return t, nil
		}
		return nil, fmt.Errorf("unknown type %q", v)
	case []any:
		u := &avroType{kind: "union"}
		for _, b := range v {
			t, err := avroNode(b, ns, named, depth+1)
			if err != nil {
				return nil, err
			}
			u.branches = append(u.branches, t)
		}
		return u, nil
	case map[string]any:
		kind, _ := v["type"].(string)
		name, _ := v["name"].(string)
		if n, ok := v["namespace"].(string); ok && n != "" {
			ns = n
		}
		full := name
		if name != "" && !strings.Contains(name, ".") && ns != "" {
			full = ns + "." + name
		}
		switch kind {
		case "record", "error":
			t := &avroType{kind: "record", name: full}
			named[full] = t
			fs, _ := v["fields"].([]any)
			for _, f := range fs {
				fm, ok := f.(map[string]any)
				if !ok {
					return nil, errors.New("record field is not an object")
				}
				ft, err := avroNode(fm["type"], ns, named, depth+1)
				if err != nil {
					return nil, err
				}
				fname, _ := fm["name"].(string)
				t.fields = append(t.fields, avroField{fname, ft})
			}
			return t, nil
		case "enum":
			t := &avroType{kind: "enum", name: full}
			named[full] = t
			syms, _ := v["symbols"].([]any)
			for _, s := range syms {
				str, _ := s.(string)
				t.symbols = append(t.symbols, str)
			}
			return t, nil
		case "fixed":
			size, _ := v["size"].(float64)
			t := &avroType{kind: "fixed", name: full, size: int(size)}
			named[full] = t
			return t, nil
		case "array", "map":
			key := "items"
			if kind == "map" {
				key = "values"
			}
			it, err := avroNode(v[key], ns, named, depth+1)
			if err != nil {
				return nil, err
			}
			return &avroType{kind: kind, items: it}, nil
		default:
			return avroNode(v["type"], ns, named, depth+1) // {"type": "long"} and the like
		}
	}
	return nil, fmt.Errorf("bad schema node %v", raw)
}

// typeName is how Avro's JSON encoding names a union branch.
func (t *avroType) typeName() string {
	if t.name != "" {
		return t.name
	}
	return t.kind
}

var errAvroShort = errors.New("truncated Avro data")

// avroDecoder reads binary-encoded values from buf.
type avroDecoder struct {
	buf []byte
	off int
	// budget bounds the values decoded: a schema whose records contain
	// themselves (or nulls) could otherwise make a few bytes decode for
	// ever. The caller sets it in proportion to the bytes.
	budget int
}

var errAvroBudget = errors.New("more values than the file's bytes allow (a self-recursive schema, or a flood of empty values)")

func (d *avroDecoder) long() (int64, error) {
	u, n := binary.Uvarint(d.buf[d.off:])
	if n <= 0 {
		return 0, errAvroShort
	}
	d.off += n
	return int64(u>>1) ^ -int64(u&1), nil
}

func (d *avroDecoder) take(n int64) ([]byte, error) {
	if n < 0 || n > int64(len(d.buf)-d.off) {
		return nil, errAvroShort
	}
	b := d.buf[d.off : d.off+int(n)]
	d.off += int(n)
	return b, nil
}

// value decodes one value of type t.
func (d *avroDecoder) value(t *avroType, depth int) (any, error) {
	if depth > 64 {
		return nil, errors.New("value nested too deeply")
	}
	if d.budget--; d.budget < 0 {
		return nil, errAvroBudget
	}
	switch t.kind {
	case "null":
		return nil, nil
	case "boolean":
		b, err := d.take(1)
		if err != nil {
			return nil, err
		}
		return b[0] != 0, nil
	case "int", "long":
		return d.long()
	case "float":
		b, err := d.take(4)
		if err != nil {
			return nil, err
		}
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(b))), nil
	case "double":
		b, err := d.take(8)
		if err != nil {
			return nil, err
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
	case "bytes", "string":
		n, err := d.long()
		if err != nil {
			return nil, err
		}
		b, err := d.take(n)
		if err != nil {
			return nil, err
		}
		return string(b), nil
	case "fixed":
		b, err := d.take(int64(t.size))
		if err != nil {
			return nil, err
		}
		return string(b), nil
	case "enum":
		i, err := d.long()
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= int64(len(t.symbols)) {
			return nil, fmt.Errorf("enum %s: index %d out of range", t.name, i)
		}
		return t.symbols[i], nil
	case "record":
		m := make(map[string]any, len(t.fields))
		for _, f := range t.fields {
			v, err := d.value(f.typ, depth+1)
			if err != nil {
				return nil, err
			}
			m[f.name] = v
		}
		return m, nil
	case "union":
		i, err := d.long()
		if err != nil {
			return nil, err
		}
		if i < 0 || i >= int64(len(t.branches)) {
			return nil, fmt.Errorf("union branch %d out of range", i)
		}
		b := t.branches[i]
		v, err := d.value(b, depth+1)
		if err != nil || b.kind == "null" {
			return nil, err
		}
		return map[string]any{b.typeName(): v}, nil
	case "array", "map":
		var arr []any
		var m map[string]any
		if t.kind == "map" {
			m = map[string]any{}
		} else {
			arr = []any{}
		}
		for {
			n, err := d.long()
			if err != nil {
				return nil, err
			}
			if n == 0 {
				break
			}
			if n < 0 {
				n = -n
				if _, err := d.long(); err != nil { // block size in bytes
					return nil, err
				}
			}
			if n > int64(len(d.buf)-d.off) {
				return nil, errAvroShort // every item takes at least... nothing for null, but a count beyond the data is corrupt
			}
			for i := int64(0); i < n; i++ {
				var key string
				if m != nil {
					k, err := d.value(&avroType{kind: "string"}, depth+1)
					if err != nil {
						return nil, err
					}
					key = k.(string)
				}
				v, err := d.value(t.items, depth+1)
				if err != nil {
					return nil, err
				}
				if m != nil {
					m[key] = v
				} else {
					arr = append(arr, v)
				}
			}
		}
		if m != nil {
			return m, nil
		}
		return arr, nil
	}
	return nil, fmt.Errorf("unsupported type %s", t.kind)
}
