package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

const googleCollectionsFormat = "google2019-collection-events"

func init() {
	register(&Format{
		Name:        googleCollectionsFormat,
		Table:       dataset.CollectionsTable.Name,
		Description: "Google ClusterData2019 collection_events (JSON lines or Parquet): collection → user, for --tenant-key user",
		Detect: func(name string, head []byte) bool {
			if bytes.HasPrefix(head, parquetMagic) {
				return strings.Contains(name, "collection_events")
			}
			line := firstLine(head)
			return bytes.HasPrefix(bytes.TrimSpace(line), []byte("{")) && bytes.Contains(line, []byte(`"collection_id"`)) &&
				bytes.Contains(line, []byte(`"user"`)) && !bytes.Contains(line, []byte(`"instance_index"`)) &&
				!bytes.Contains(line, []byte(`"average_usage"`))
		},
		ingest: ingestGoogleCollections,
	})
}

// collIndex maps collection ids to users: the collections rows committed in
// the dataset, then the collection_events inputs of this ingest.
type collIndex struct {
	users map[int64]string
	strs  *strtab.Table
	from  []string
}

func collectionsOf(ctx context.Context, s *sink) (*collIndex, error) {
	if s.run.colls != nil {
		return s.run.colls, nil
	}
	ix := &collIndex{users: map[int64]string{}, strs: strtab.New()}
	ds := s.tx.Dataset()
	if n := ds.Rows(dataset.CollectionsTable.Name); n > 0 {
		err := dataset.Scan(ctx, ds, dataset.CollectionsTable, func(c *dataset.Collection) error {
			if id, err := strconv.ParseInt(c.Collection, 10, 64); err == nil {
				_, ix.users[id] = ix.strs.Bytes([]byte(c.User))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		ix.from = append(ix.from, fmt.Sprintf("%d rows of the dataset's collections table", n))
	}
	s.run.colls = ix
	return ix, nil
}

// collectionEvent is the part of a collection_events row that is read.
type collectionEvent struct {
	collection     int64
	hasColl        bool
	user, logical  string
	hasUser, hasLN bool
	// startAfter are the collections this one starts after (its
	// start_after_collection_ids: the job DAG's edges).
	startAfter []int64
}

// stageOf is the stages table's row of a collection that starts after
// others (a DAG edge, for wlprof dag); ok is false without such edges.
// The job is left empty: the dag stage groups collections into the
// workflows their edges connect.
func stageOf(e *collectionEvent) (dataset.Stage, bool) {
	if len(e.startAfter) == 0 {
		return dataset.Stage{}, false
	}
	ps := make([]string, len(e.startAfter))
	for i, p := range e.startAfter {
		ps[i] = strconv.FormatInt(p, 10)
	}
	id := strconv.FormatInt(e.collection, 10)
	return dataset.Stage{Stage: id, Name: id, Parents: strings.Join(ps, ","), StartMs: dataset.NoTime, EndMs: dataset.NoTime,
		Source: googleCollectionsFormat}, true
}

// record checks an event against the index and fills rec.
func (ix *collIndex) record(e *collectionEvent, rec *dataset.Collection) error {
	switch {
	case !e.hasColl:
		return errors.New("no collection_id")
	case !e.hasUser || e.user == "":
		return errors.New("no user (the first 2019 release left it empty; the August 2020 update filled it in)")
	case !utf8.ValidString(e.user):
		// Before it joins usage to a tenant name that could not be stored.
		return fmt.Errorf("user is not valid UTF-8: %s", dataset.EscapeInvalidUTF8(e.user))
	}
	_, user := ix.strs.Bytes([]byte(e.user))
	if prev, ok := ix.users[e.collection]; ok && prev != user {
		return fmt.Errorf("user %q differs from %q of an earlier event of collection %d", user, prev, e.collection)
	}
	ix.users[e.collection] = user
	_, ln := ix.strs.Bytes([]byte(e.logical))
	*rec = dataset.Collection{Collection: strconv.FormatInt(e.collection, 10), User: user, LogicalName: ln, Source: googleCollectionsFormat}
	return nil
}

func ingestGoogleCollections(ctx context.Context, in *Input, s *sink) (err error) {
	ix, err := collectionsOf(ctx, s)
	if err != nil {
		return err
	}
	before := s.accepted
	defer func() {
		if err == nil {
			ix.from = append(ix.from, fmt.Sprintf("%d events of %s", s.accepted-before, in.Path))
			s.notes = append(s.notes, "one row per event that names a user; read for --tenant-key user of google2019-usage; start_after_collection_ids go to the stages table (wlprof dag)")
		}
	}()
	if bytes.HasPrefix(in.Head(4), parquetMagic) {
		return drainParquet(ctx, s, in, func() (parquetReader[dataset.Collection], error) {
			want := []string{"collection_id", "user", "collection_logical_name", "start_after_collection_ids"}
			p, err := openParquet(ctx, in, want, func(n string) bool { return n != "collection_logical_name" && n != "start_after_collection_ids" }, "a collection_events shard")
			if err != nil {
				return nil, err
			}
			return &collectionsParquet{parquetInput: p, ix: ix, stages: s.tx.Stages()}, nil
		}, s.tx.Collections())
	}
	stages := s.tx.Stages()
	r := newLineRecords(in, func(line []byte, lineNo int64, rec *dataset.Collection) *ParseError {
		var e collectionEvent
		err := scanCollectionEvent(line, &e)
		if err == nil {
			err = ix.record(&e, rec)
		}
		if err == nil && slices.Contains(e.startAfter, e.collection) {
			err = fmt.Errorf("start_after_collection_ids: collection %d starts after itself", e.collection)
		}
		if err == nil {
			if st, ok := stageOf(&e); ok {
				err = stages.Append(&st)
			}
		}
		if err != nil {
			return &ParseError{File: in.Path, Line: lineNo, Err: err, Record: recordText(line)}
		}
		return nil
	})
	return drain[dataset.Collection](ctx, s, r, s.tx.Collections())
}

// stringValue reads a JSON string (escapes decoded) or null.
func (c *jsonCursor) stringValue(name string) (string, bool, error) {
	if c.peek() == '"' {
		start := c.i
		raw, esc, err := c.str()
		if err != nil {
			return "", false, err
		}
		if !esc {
			return string(raw), true, nil
		}
		var s string
		if err := json.Unmarshal(c.b[start:c.i], &s); err != nil {
			return "", false, fmt.Errorf("%s: %v", name, err)
		}
		return s, true, nil
	}
	if t := c.token(); string(t) == "null" {
		return "", false, nil
	}
	return "", false, c.fail(name + ": want a string")
}

func scanCollectionEvent(line []byte, e *collectionEvent) error {
	c := jsonCursor{b: line}
	c.ws()
	if c.peek() != '{' {
		return c.fail("want a JSON object")
	}
	err := c.container(func(key []byte) error {
		var err error
		switch string(key) {
		case "collection_id":
			e.collection, e.hasColl, err = c.int64Value("collection_id")
		case "user":
			e.user, e.hasUser, err = c.stringValue("user")
		case "collection_logical_name":
			e.logical, e.hasLN, err = c.stringValue("collection_logical_name")
		case "start_after_collection_ids":
			e.startAfter = e.startAfter[:0]
			if c.peek() != '[' {
				if t := c.token(); string(t) != "null" {
					return c.fail("start_after_collection_ids: want a list of collection ids")
				}
				return nil
			}
			err = c.container(func([]byte) error {
				c.ws()
				id, ok, err := c.int64Value("start_after_collection_ids")
				if err == nil && !ok {
					err = c.fail("start_after_collection_ids: a null id")
				}
				e.startAfter = append(e.startAfter, id)
				return err
			})
		default:
			err = c.skip()
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("not a collection_events JSON object: %v", err)
	}
	c.ws()
	if c.i != len(c.b) {
		return c.fail("text after the object")
	}
	return nil
}

// collectionsParquet reads collection_events Parquet shards.
type collectionsParquet struct {
	*parquetInput
	parquetRow[dataset.Collection]
	ix          *collIndex
	coll        func(int) (int64, bool)
	user, lname func(int) (string, bool)
	after       func(int, []int64) []int64
	stages      *dataset.Writer[dataset.Stage]
}

// intListAccessor reads a list of 64-bit ints per row (appended to the
// given slice; none for a null or absent list).
func intListAccessor(a arrow.Array) (func(int, []int64) []int64, error) {
	switch a := a.(type) {
	case nil:
		return func(_ int, dst []int64) []int64 { return dst }, nil
	case *array.List:
		vals, ok := a.ListValues().(*array.Int64)
		if !ok {
			return nil, fmt.Errorf("start_after_collection_ids: type %s is not a list of int64", a.DataType())
		}
		return func(i int, dst []int64) []int64 {
			if !a.IsValid(i) {
				return dst
			}
			start, end := a.ValueOffsets(i)
			for k := start; k < end; k++ {
				if vals.IsValid(int(k)) {
					dst = append(dst, vals.Value(int(k)))
				}
			}
			return dst
		}, nil
	}
	return nil, fmt.Errorf("start_after_collection_ids: type %s is not a list", a.DataType())
}

func (r *collectionsParquet) Scan() bool {
	for r.i >= r.n {
		if r.err != nil {
			return false
		}
		batch, err := r.next()
		if err != nil || batch == nil {
			r.err = err
			return false
		}
		r.n, r.i = int(batch.NumRows()), 0
		var e1, e2, e3 error
		r.coll, e1 = intAccessor(column(batch, "collection_id"))
		r.user, e2 = stringAccessor(column(batch, "user"))
		r.lname, e3 = stringAccessor(column(batch, "collection_logical_name"))
		var e4 error
		r.after, e4 = intListAccessor(column(batch, "start_after_collection_ids"))
		if err := errors.Join(e1, e2, e3, e4); err != nil {
			r.err = fmt.Errorf("%s: %w", r.path, err)
			return false
		}
	}
	i := r.i
	r.i++
	r.row++
	var e collectionEvent
	e.collection, e.hasColl = r.coll(i)
	e.user, e.hasUser = r.user(i)
	e.logical, e.hasLN = r.lname(i)
	e.startAfter = r.after(i, e.startAfter[:0])
	r.perr = nil
	err := r.ix.record(&e, &r.rec)
	if err == nil && slices.Contains(e.startAfter, e.collection) {
		err = fmt.Errorf("start_after_collection_ids: collection %d starts after itself", e.collection)
	}
	if err == nil {
		if st, ok := stageOf(&e); ok {
			err = r.stages.Append(&st)
		}
	}
	if err != nil {
		r.perr = &ParseError{File: r.path, Line: r.row, Err: err,
			Record: fmt.Sprintf("collection_id=%d user=%q collection_logical_name=%q", e.collection, e.user, e.logical)}
	}
	return true
}
