package pq

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// File writes a Parquet file page by page: it keeps the offsets, writes
// page headers (thrift compact protocol, by hand: arrow-go's thrift types
// are internal), compresses pages with the codec and level the
// properties name for the column (or not at all, for the columns
// KeepCodecIfWorth names, where the codec does not pay), and builds the
// footer with arrow-go's public metadata builders from the schema pqarrow
// derives from an Arrow schema: readers see the schema, metadata and
// values of pqarrow's files (the encodings and statistics each encoder
// chooses are in its file).
type File struct {
	w       io.Writer
	off     int64 // bytes written
	err     error
	props   *parquet.WriterProperties
	sch     *schema.Schema
	meta    *metadata.FileMetaDataBuilder
	rg      *metadata.RowGroupMetaDataBuilder
	col     int   // next column of the row group
	rgRaw   int64 // the row group's uncompressed bytes so far
	group   int
	scratch ChunkBuffer // the direct chunks' scratch (its out is unused)
	// worth: the columns whose chunks keep their codec only where it
	// shrinks them (KeepCodecIfWorth).
	worth     map[int]bool
	groupRows int
}

// KeepCodecIfWorth has the chunks of columns cols (schema leaf indexes)
// that the properties compress store their pages uncompressed when the
// codec would not shrink the chunk by an eighth, estimated from its
// dictionary page and the start of its first data page (scaled to the
// row group's rows: the page's share of a flat column's chunk).
// Bit-packed dictionary ids of values that do not repeat in patterns (a
// usage table's cpu column) shrink by 2-3%, for a compression pass when
// written and a decompression pass in every read. It is for such columns:
// the ids of names in a time-ordered table repeat with the cycle of
// tenants, over distances the start of a page does not show (at 10,000
// tenants the first 128 KB of a tenant page shrank by 2%, the page 11.6
// times). Parquet names the codec per column chunk, so every reader takes
// the mix.
func (p *File) KeepCodecIfWorth(cols ...int) {
	if p.worth == nil {
		p.worth = map[int]bool{}
	}
	for _, c := range cols {
		p.worth[c] = true
	}
}

// worthCompressing is the rule: the codec keeps a chunk whose compressed
// size is at most seven eighths of its raw size.
func worthCompressing(raw, packed int64) bool { return packed <= raw-raw/8 }

// NewFile starts a file of Arrow schema as on w: the magic, and a footer
// builder with the schema's metadata as key-value pairs (as pqarrow does).
func NewFile(w io.Writer, as *arrow.Schema, props *parquet.WriterProperties) (*File, error) {
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
	p := &File{w: w, props: props, sch: sch, meta: metadata.NewFileMetadataBuilder(sch, props, kv)}
	p.put([]byte("PAR1"))
	return p, p.err
}

// Leaf is a leaf column an encoder writes: its dotted path, physical
// type and maximum definition and repetition levels.
type Leaf struct {
	Path     string
	Type     parquet.Type
	Def, Rep int16
}

// CheckLeaves reports an error unless the file's schema (pqarrow's, from
// the table's Arrow schema) has exactly the leaves want, in order: the
// layout the encoder writes.
func (p *File) CheckLeaves(table string, want []Leaf) error {
	if p.sch.NumColumns() != len(want) {
		return fmt.Errorf("pq: %s schema has %d leaves, the encoder knows %d", table, p.sch.NumColumns(), len(want))
	}
	for i, l := range want {
		c := p.sch.Column(i)
		if c.Path() != l.Path || c.PhysicalType() != l.Type || c.MaxDefinitionLevel() != l.Def || c.MaxRepetitionLevel() != l.Rep {
			return fmt.Errorf("pq: %s schema leaf %d is %s %s (def %d rep %d), the encoder knows %s %s (def %d rep %d)",
				table, i, c.Path(), c.PhysicalType(), c.MaxDefinitionLevel(), c.MaxRepetitionLevel(), l.Path, l.Type, l.Def, l.Rep)
		}
	}
	return nil
}

func (p *File) put(b []byte) {
	if p.err != nil {
		return
	}
	n, err := p.w.Write(b)
	p.off += int64(n)
	p.err = err
}

// StartGroup begins a row group of rows rows; its columns follow in
// schema order (Chunk), then EndGroup.
func (p *File) StartGroup(rows int) {
	p.rg = p.meta.AppendRowGroup()
	p.rg.SetNumRows(rows)
	p.col, p.rgRaw, p.groupRows = 0, 0, rows
}

// EndGroup finishes the row group.
func (p *File) EndGroup() error {
	if p.err != nil {
		return p.err
	}
	if p.col != p.sch.NumColumns() {
		return fmt.Errorf("pq: row group with %d of %d columns", p.col, p.sch.NumColumns())
	}
	if err := p.rg.Finish(p.rgRaw, int16(p.group)); err != nil {
		return err
	}
	p.group++
	return nil
}

// Footer writes the file metadata, its length and the closing magic.
func (p *File) Footer() error {
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

// Size is the bytes written so far.
func (p *File) Size() int64 { return p.off }

// Schema is the file's Parquet schema.
func (p *File) Schema() *schema.Schema { return p.sch }

// Chunk is the column chunk being written.
type Chunk struct {
	p                *File
	buf              *ChunkBuffer // BufferedChunk's: where the pages go until WriteChunk
	col              int
	err              error          // a buffered chunk's (a direct one's go to p.err)
	codec            compress.Codec // nil: uncompressed
	level            int
	dictOff, dataOff int64 // -1 until written
	start            int64
	raw              int64 // uncompressed bytes, headers included
	levels           int64
	dictPages        int32
	dataPages        map[parquet.Encoding]int32
	// deciding: the codec is tried on the first data page (File.worth);
	// until then a dictionary page waits in the buffer's dict.
	deciding, dictWaits bool
	dictN               int
	stored              bool // the codec was dropped: the chunk is uncompressed
	// Stats are the chunk's statistics, set by the encoder.
	Stats metadata.EncodedStatistics
}

// Chunk begins the next column's chunk of the row group.
func (p *File) Chunk() (*Chunk, error) {
	return p.newChunk(p.col, nil)
}

// ChunkBuffer holds a buffered chunk's pages and scratch; keep one per
// column and goroutine to reuse its memory from row group to row group.
type ChunkBuffer struct {
	out, hdr, body, packed, dict, dictPacked []byte
}

// BufferedChunk begins the chunk of column col of the row group with its
// pages kept in buf until WriteChunk writes them: the chunks of a row
// group can then be encoded and compressed on goroutines of their own
// and written in column order. A File's own methods are for one
// goroutine; a buffered chunk's DictPage and DataPage only use the chunk
// and buf.
func (p *File) BufferedChunk(col int, buf *ChunkBuffer) (*Chunk, error) {
	buf.out = buf.out[:0]
	return p.newChunk(col, buf)
}

func (p *File) newChunk(col int, buf *ChunkBuffer) (*Chunk, error) {
	if col >= p.sch.NumColumns() {
		return nil, fmt.Errorf("pq: more column chunks than the schema's %d columns", p.sch.NumColumns())
	}
	c := &Chunk{p: p, buf: buf, col: col, dictOff: -1, dataOff: -1, dataPages: map[parquet.Encoding]int32{}}
	c.start = c.pos()
	if cc := p.props.CompressionFor(p.sch.Column(col).ColumnPath().String()); cc != compress.Codecs.Uncompressed {
		codec, err := compress.GetCodec(cc)
		if err != nil {
			return nil, err
		}
		c.codec = codec
		c.level = p.props.CompressionLevelFor(p.sch.Column(col).ColumnPath().String())
		c.deciding = p.worth[col]
	}
	return c, nil
}

// WriteChunk writes the pages of c, a buffered chunk of the row group's
// next column, and finishes its metadata, as End does for a direct one.
func (p *File) WriteChunk(c *Chunk) error {
	if c.buf == nil || c.col != p.col {
		return fmt.Errorf("pq: WriteChunk of column %d (buffered: %v) where column %d is next", c.col, c.buf != nil, p.col)
	}
	c.writeDict()
	if c.err != nil {
		return c.err
	}
	base := p.off
	for _, off := range []*int64{&c.dictOff, &c.dataOff} {
		if *off >= 0 {
			*off += base
		}
	}
	c.start = base
	p.put(c.buf.out)
	c.buf = nil // End's offsets are the file's now
	return c.End()
}

// pos is where the chunk's next page goes: in the file, or in its buffer.
func (c *Chunk) pos() int64 {
	if c.buf != nil {
		return int64(len(c.buf.out))
	}
	return c.p.off
}

// DictPage writes the chunk's dictionary page of n PLAIN values (while
// the chunk's codec is undecided, a copy waits for the first data page).
func (c *Chunk) DictPage(n int, body []byte) {
	if c.deciding {
		s := c.scratch()
		s.dict = append(s.dict[:0], body...)
		c.dictWaits, c.dictN = true, n
		return
	}
	c.dictOff = c.pos()
	c.page(DictionaryPage, n, 0, body)
	c.dictPages++
}

// writeDict writes, uncompressed, a dictionary page that waited for a
// codec decision the chunk did not get (a chunk without data pages).
func (c *Chunk) writeDict() {
	if !c.dictWaits {
		return
	}
	c.dictWaits, c.deciding, c.codec, c.stored = false, false, nil, true
	c.DictPage(c.dictN, c.scratch().dict)
}

// scratch is the chunk's buffers: its own when buffered, else the file's.
func (c *Chunk) scratch() *ChunkBuffer {
	if c.buf != nil {
		return c.buf
	}
	return &c.p.scratch
}

// DataPage writes a version 1 data page of levels levels (values and
// nulls) whose body is parts, one after the other: level blocks, then the
// values in encoding enc.
func (c *Chunk) DataPage(levels int, enc parquet.Encoding, parts ...[]byte) {
	c.page(DataPage, levels, enc, parts...)
	c.levels += int64(levels)
	c.dataPages[enc]++
}

func (c *Chunk) page(typ, n int, enc parquet.Encoding, parts ...[]byte) {
	s := c.scratch()
	raw := 0
	for _, b := range parts {
		raw += len(b)
	}
	if c.codec != nil {
		// One join for both: decide uses the scratch's dict buffers and
		// packed, not its body.
		body := joined(parts, &s.body)
		if c.deciding {
			c.decide(body, n)
		}
		if c.codec != nil {
			s.packed = c.codec.EncodeLevel(s.packed[:0], body, c.level)
			parts = [][]byte{s.packed}
		}
	}
	if typ == DataPage && c.dataOff < 0 {
		c.dataOff = c.pos()
	}
	c.emit(typ, n, enc, raw, parts)
}

// probeBytes is how much of a chunk's first data page decide compresses
// to estimate the chunk's ratio: a usage page is a row group's megabyte
// or two of ids, and compressing all of it to find that it does not
// shrink is the cost the rule saves.
const probeBytes = 128 << 10

// decide keeps or drops the codec from an estimate of the chunk's
// compressed size: the dictionary page that waited, compressed, and the
// first data page's (body, of levels levels) ratio on its first
// probeBytes, scaled to the row group's rows. It then writes that
// dictionary page, ahead of the data page.
func (c *Chunk) decide(body []byte, levels int) {
	c.deciding = false
	s := c.scratch()
	var dictRaw, dictPacked int64
	if c.dictWaits {
		s.dictPacked = c.codec.EncodeLevel(s.dictPacked[:0], s.dict, c.level)
		dictRaw, dictPacked = int64(len(s.dict)), int64(len(s.dictPacked))
	}
	probe := body[:min(len(body), probeBytes)]
	s.packed = c.codec.EncodeLevel(s.packed[:0], probe, c.level)
	raw, packed := int64(len(body)), int64(len(s.packed))
	if len(probe) > 0 {
		packed = packed * raw / int64(len(probe))
	}
	if levels > 0 && c.p.groupRows > levels {
		raw, packed = raw*int64(c.p.groupRows)/int64(levels), packed*int64(c.p.groupRows)/int64(levels)
	}
	if !worthCompressing(dictRaw+raw, dictPacked+packed) {
		c.codec, c.stored = nil, true
	}
	if !c.dictWaits {
		return
	}
	c.dictWaits = false
	dict := s.dictPacked
	if c.codec == nil {
		dict = s.dict
	}
	c.dictOff = c.pos()
	c.emit(DictionaryPage, c.dictN, 0, len(s.dict), [][]byte{dict})
	c.dictPages++
}

// emit writes a page's header and its parts (compressed or not); raw is
// the page's uncompressed size.
func (c *Chunk) emit(typ, n int, enc parquet.Encoding, raw int, parts [][]byte) {
	s := c.scratch()
	size := 0
	for _, b := range parts {
		size += len(b)
	}
	if raw > math.MaxInt32 || size > math.MaxInt32 {
		err := fmt.Errorf("pq: Parquet page of %d bytes", raw)
		if c.buf != nil {
			c.err = err
		} else {
			c.p.err = err
		}
		return
	}
	s.hdr = AppendPageHeader(s.hdr[:0], typ, int32(raw), int32(size), int32(n), int32(enc))
	c.raw += int64(len(s.hdr) + raw)
	c.put(s.hdr)
	for _, b := range parts {
		c.put(b)
	}
}

func (c *Chunk) put(b []byte) {
	if c.buf != nil {
		c.buf.out = append(c.buf.out, b...)
	} else {
		c.p.put(b)
	}
}

// joined is parts one after the other: the one part that is not empty
// as it is, since a page's body (a megabyte of ids) is most often all of
// it, or else a copy in *scratch.
func joined(parts [][]byte, scratch *[]byte) []byte {
	one := -1
	for i, b := range parts {
		if len(b) == 0 {
			continue
		}
		if one >= 0 {
			*scratch = (*scratch)[:0]
			for _, b := range parts {
				*scratch = append(*scratch, b...)
			}
			return *scratch
		}
		one = i
	}
	if one < 0 {
		return nil
	}
	return parts[one]
}

// End finishes the chunk's metadata (WriteChunk's, for a buffered one).
func (c *Chunk) End() error {
	p := c.p
	if p.err != nil {
		return p.err
	}
	if c.buf != nil {
		return fmt.Errorf("pq: End of a buffered chunk of column %d: WriteChunk writes it", c.col)
	}
	c.writeDict()
	if p.err != nil {
		return p.err
	}
	cc := p.rg.NextColumnChunk()
	p.col++
	if c.stored {
		// Codec 0 is UNCOMPRESSED in Parquet's thrift enum (the type is
		// internal to arrow-go; the constant converts to it).
		cc.Contents().MetaData.Codec = 0
	}
	if c.Stats.IsSet() {
		cc.SetStats(c.Stats)
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
