package dataset

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// pqFile writes a Parquet file page by page for the tables whose bulk is
// encoded here rather than by pqarrow (the series values, serieswrite.go;
// the usage columns, usagewrite.go): it keeps the offsets, writes page
// headers (thrift compact protocol, by hand: arrow's thrift types are
// internal), compresses pages with the codec the properties name for the
// column, and builds the footer with arrow's public metadata builders
// from the schema pqarrow derives from the table's Arrow schema: readers
// see the schema, metadata and values of pqarrow's files (the encodings
// and statistics each encoder chooses are in its file).
type pqFile struct {
	w     io.Writer
	off   int64 // bytes written
	err   error
	props *parquet.WriterProperties
	sch   *schema.Schema
	meta  *metadata.FileMetaDataBuilder
	rg    *metadata.RowGroupMetaDataBuilder
	col   int   // next column of the row group
	rgRaw int64 // the row group's uncompressed bytes so far
	group int
	// scratch
	hdr, body, packed []byte
}

// newPQFile starts a file of Arrow schema as on w: the magic, and a footer
// builder with the schema's metadata as key-value pairs (as pqarrow does).
func newPQFile(w io.Writer, as *arrow.Schema, props *parquet.WriterProperties) (*pqFile, error) {
	sch, err := pqarrow.ToParquet(as, props, pqarrow.DefaultWriterProps())
	if err != nil {
		return nil, err
	}
	var kv metadata.KeyValueMetadata
	md := as.Metadata()
	for i, k := range md.Keys() {
		if err := kv.Append(k, md.Values()[i]); err != nil {
			return nil, err
		}
	}
	p := &pqFile{w: w, props: props, sch: sch, meta: metadata.NewFileMetadataBuilder(sch, props, kv)}
	p.put([]byte("PAR1"))
	return p, p.err
}

// pqLeaf is a leaf column an encoder writes: its dotted path, physical
// type and maximum definition and repetition levels.
type pqLeaf struct {
	path     string
	typ      parquet.Type
	def, rep int16
}

// checkLeaves reports an error unless the file's schema (pqarrow's, from
// the table's Arrow schema) has exactly the leaves want, in order: the
// layout the encoder writes.
func (p *pqFile) checkLeaves(table string, want []pqLeaf) error {
	if p.sch.NumColumns() != len(want) {
		return fmt.Errorf("dataset: %s schema has %d leaves, the encoder knows %d", table, p.sch.NumColumns(), len(want))
	}
	for i, l := range want {
		c := p.sch.Column(i)
		if c.Path() != l.path || c.PhysicalType() != l.typ || c.MaxDefinitionLevel() != l.def || c.MaxRepetitionLevel() != l.rep {
			return fmt.Errorf("dataset: %s schema leaf %d is %s %s (def %d rep %d), the encoder knows %s %s (def %d rep %d)",
				table, i, c.Path(), c.PhysicalType(), c.MaxDefinitionLevel(), c.MaxRepetitionLevel(), l.path, l.typ, l.def, l.rep)
		}
	}
	return nil
}

func (p *pqFile) put(b []byte) {
	if p.err != nil {
		return
	}
	n, err := p.w.Write(b)
	p.off += int64(n)
	p.err = err
}

// startGroup begins a row group of rows rows; its columns follow in
// schema order (chunk), then endGroup.
func (p *pqFile) startGroup(rows int) {
	p.rg = p.meta.AppendRowGroup()
	p.rg.SetNumRows(rows)
	p.col, p.rgRaw = 0, 0
}

func (p *pqFile) endGroup() error {
	if p.err != nil {
		return p.err
	}
	if p.col != p.sch.NumColumns() {
		return fmt.Errorf("dataset: row group with %d of %d columns", p.col, p.sch.NumColumns())
	}
	if err := p.rg.Finish(p.rgRaw, int16(p.group)); err != nil {
		return err
	}
	p.group++
	return nil
}

// footer writes the file metadata, its length and the closing magic.
func (p *pqFile) footer() error {
	if p.err != nil {
		return p.err
	}
	fm, err := p.meta.Finish()
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if _, err := fm.WriteTo(&buf, nil); err != nil {
		return err
	}
	p.put(buf.Bytes())
	p.put(binary.LittleEndian.AppendUint32(nil, uint32(buf.Len())))
	p.put([]byte("PAR1"))
	return p.err
}

// pqChunk is the column chunk being written.
type pqChunk struct {
	p                *pqFile
	codec            compress.Codec // nil: uncompressed
	level            int
	dictOff, dataOff int64 // -1 until written
	start            int64
	raw              int64 // uncompressed bytes, headers included
	levels           int64
	dictPages        int32
	dataPages        map[parquet.Encoding]int32
	stats            metadata.EncodedStatistics
}

// chunk begins the next column's chunk of the row group.
func (p *pqFile) chunk() (*pqChunk, error) {
	if p.col >= p.sch.NumColumns() {
		return nil, fmt.Errorf("dataset: more column chunks than the schema's %d columns", p.sch.NumColumns())
	}
	c := &pqChunk{p: p, dictOff: -1, dataOff: -1, start: p.off, dataPages: map[parquet.Encoding]int32{}}
	if cc := p.props.CompressionFor(p.sch.Column(p.col).ColumnPath().String()); cc != compress.Codecs.Uncompressed {
		codec, err := compress.GetCodec(cc)
		if err != nil {
			return nil, err
		}
		c.codec = codec
		c.level = p.props.CompressionLevelFor(p.sch.Column(p.col).ColumnPath().String())
	}
	return c, nil
}

// dictPage writes the chunk's dictionary page of n PLAIN values.
func (c *pqChunk) dictPage(n int, body []byte) {
	c.dictOff = c.p.off
	c.page(2, n, 0, body)
	c.dictPages++
}

// dataPage writes a version 1 data page of levels levels (values and
// nulls) whose body is parts, one after the other: level blocks, then the
// values in encoding enc.
func (c *pqChunk) dataPage(levels int, enc parquet.Encoding, parts ...[]byte) {
	if c.dataOff < 0 {
		c.dataOff = c.p.off
	}
	c.page(0, levels, enc, parts...)
	c.levels += int64(levels)
	c.dataPages[enc]++
}

func (c *pqChunk) page(typ, n int, enc parquet.Encoding, parts ...[]byte) {
	p := c.p
	raw := 0
	for _, b := range parts {
		raw += len(b)
	}
	size := raw
	if c.codec != nil {
		p.body = p.body[:0]
		for _, b := range parts {
			p.body = append(p.body, b...)
		}
		p.packed = c.codec.EncodeLevel(p.packed[:0], p.body, c.level)
		parts, size = [][]byte{p.packed}, len(p.packed)
	}
	if raw > math.MaxInt32 || size > math.MaxInt32 {
		p.err = fmt.Errorf("dataset: Parquet page of %d bytes", raw)
		return
	}
	p.hdr = appendPageHeader(p.hdr[:0], typ, int32(raw), int32(size), int32(n), int32(enc))
	c.raw += int64(len(p.hdr) + raw)
	p.put(p.hdr)
	for _, b := range parts {
		p.put(b)
	}
}

// end finishes the chunk's metadata.
func (c *pqChunk) end() error {
	p := c.p
	if p.err != nil {
		return p.err
	}
	cc := p.rg.NextColumnChunk()
	p.col++
	if c.stats.IsSet() {
		cc.SetStats(c.stats)
	}
	dataOff := c.dataOff
	if dataOff < 0 {
		dataOff = p.off
	}
	var dict map[parquet.Encoding]int32
	if c.dictPages > 0 {
		dict = map[parquet.Encoding]int32{parquet.Encodings.Plain: c.dictPages}
	}
	size := p.off - c.start
	p.rgRaw += c.raw
	return cc.Finish(metadata.ChunkMetaInfo{NumValues: c.levels, DictPageOffset: c.dictOff, IndexPageOffset: -1,
		DataPageOffset: dataOff, CompressedSize: size, UncompressedSize: c.raw}, c.dictPages > 0, false,
		metadata.EncodingStats{DictEncodingStats: dict, DataEncodingStats: c.dataPages})
}

// appendPageHeader appends a thrift compact-protocol PageHeader: of a
// version 1 data page (typ 0: n levels, values in encoding enc, RLE
// levels) or of a dictionary page (typ 2: n PLAIN values).
func appendPageHeader(b []byte, typ int, raw, size, n, enc int32) []byte {
	i32 := func(b []byte, v int32) []byte { // field delta 1, type i32
		return binary.AppendUvarint(append(b, 0x15), uint64(uint32(v<<1^v>>31)))
	}
	b = i32(b, int32(typ)) // 1: type
	b = i32(b, raw)        // 2: uncompressed_page_size
	b = i32(b, size)       // 3: compressed_page_size
	if typ == 2 {
		b = append(b, 0x4c) // 7: dictionary_page_header (delta 4, struct)
		b = i32(b, n)       // 1: num_values
		b = i32(b, 0)       // 2: encoding PLAIN
	} else {
		b = append(b, 0x2c) // 5: data_page_header (delta 2, struct)
		b = i32(b, n)       // 1: num_values
		b = i32(b, enc)     // 2: encoding
		b = i32(b, 3)       // 3: definition_level_encoding RLE
		b = i32(b, 3)       // 4: repetition_level_encoding RLE
	}
	return append(b, 0x0, 0x0) // end of the page type's header, of PageHeader
}

// levelBlock appends a version 1 page's level block: the length in 4
// bytes, then the runs that runs appends.
func levelBlock(b []byte, runs func([]byte) []byte) []byte {
	at := len(b)
	b = runs(append(b, 0, 0, 0, 0))
	binary.LittleEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	return b
}

// appendRun appends an RLE run of value v (of at most 32 bits, in
// ⌈width/8⌉ bytes) repeated n times.
func appendRun(b []byte, v uint32, n, width int) []byte {
	b = binary.AppendUvarint(b, uint64(n)<<1)
	for k := 0; k < (width+7)/8; k++ {
		b = append(b, byte(v>>(8*k)))
	}
	return b
}

// hybridRun is the shortest run of one value that is written as an RLE
// run rather than bit-packed.
const hybridRun = 16

// appendHybrid appends vals (each below 1<<width) in Parquet's RLE /
// bit-packed hybrid encoding: runs of hybridRun or more equal values as
// RLE runs, the rest bit-packed in groups of 8 (the last group padded
// with zeros).
func appendHybrid(b []byte, vals []int32, width int) []byte {
	lit := 0 // start of the values not yet written
	for i := 0; i < len(vals); {
		j := i + 1
		for j < len(vals) && vals[j] == vals[i] {
			j++
		}
		if j-i < hybridRun {
			i = j
			continue
		}
		// Bit-pack vals[lit:i] in whole groups, taking the first values
		// of the run to fill the last group; RLE the rest of the run.
		k := i + (8-(i-lit)%8)%8
		b = appendPacked(b, vals[lit:k], width)
		b = appendRun(b, uint32(vals[i]), j-k, width)
		lit, i = j, j
	}
	return appendPacked(b, vals[lit:], width)
}

// appendPacked appends one bit-packed run of vals (each below 1<<width,
// width ≤ 32), padded to a multiple of 8 values.
func appendPacked(b []byte, vals []int32, width int) []byte {
	if len(vals) == 0 {
		return b
	}
	groups := (len(vals) + 7) / 8
	b = binary.AppendUvarint(b, uint64(groups)<<1|1)
	// The bits gather in a word, 32 at a time into b; a run is a whole
	// number of bytes (8 values of width bits are width bytes).
	n := len(b)
	b = slices.Grow(b, groups*width+4)[:n+groups*width+4]
	le := binary.LittleEndian
	var acc uint64
	nb, at := 0, n
	for _, v := range vals {
		acc |= uint64(uint32(v)) << nb
		nb += width
		if nb >= 32 {
			le.PutUint32(b[at:], uint32(acc))
			at += 4
			acc >>= 32
			nb -= 32
		}
	}
	clear(b[at:]) // the padding's zeros (b may be a reused buffer)
	le.PutUint32(b[at:], uint32(acc))
	return b[:n+groups*width]
}
