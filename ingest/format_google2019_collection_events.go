package ingest

import (
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
		Detect: google2019Detect("collection_events", func(has func(string) bool) bool {
			return has("collection_id") && has("user") && !has("instance_index") && !has("average_usage")
		}),
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

// event fills rec from e (record), refuses a collection that starts after
// itself, and appends e's DAG edges to stages.
func (ix *collIndex) event(e *collectionEvent, rec *dataset.Collection, stages *dataset.Writer[dataset.Stage]) error {
	if err := ix.record(e, rec); err != nil {
		return err
	}
	if slices.Contains(e.startAfter, e.collection) {
		return fmt.Errorf("start_after_collection_ids: collection %d starts after itself", e.collection)
	}
	if st, ok := stageOf(e); ok {
		return stages.Append(&st)
	}
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
	stages := s.tx.Stages()
	open := func() (parquetReader[dataset.Collection], error) {
		want := []string{"collection_id", "user", "collection_logical_name", "start_after_collection_ids"}
		p, err := openParquet(ctx, in, want, func(n string) bool { return n != "collection_logical_name" && n != "start_after_collection_ids" }, "a collection_events shard")
		if err != nil {
			return nil, err
		}
		return &collectionsParquet{parquetInput: p, ix: ix, stages: stages}, nil
	}
	parse := func(line []byte, rec *dataset.Collection) error {
		var e collectionEvent
		if err := scanCollectionEvent(line, &e); err != nil {
			return err
		}
		return ix.event(&e, rec, stages)
	}
	return drainGoogle2019(ctx, s, in, open, parse, s.tx.Collections())
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
	return c.objectLine("a collection_events", func(key []byte) error {
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

func (r *collectionsParquet) bind(batch arrow.Record) error {
	var e1, e2, e3, e4 error
	r.coll, e1 = intAccessor(column(batch, "collection_id"))
	r.user, e2 = stringAccessor(column(batch, "user"))
	r.lname, e3 = stringAccessor(column(batch, "collection_logical_name"))
	r.after, e4 = intListAccessor(column(batch, "start_after_collection_ids"))
	return errors.Join(e1, e2, e3, e4)
}

func (r *collectionsParquet) Scan() bool {
	i, ok := r.nextRow(r.parquetInput, r.bind)
	if !ok {
		return false
	}
	var e collectionEvent
	e.collection, e.hasColl = r.coll(i)
	e.user, e.hasUser = r.user(i)
	e.logical, e.hasLN = r.lname(i)
	e.startAfter = r.after(i, e.startAfter[:0])
	r.perr = nil
	if err := r.ix.event(&e, &r.rec, r.stages); err != nil {
		r.perr = &ParseError{File: r.path, Line: r.row, Err: err,
			Record: fmt.Sprintf("collection_id=%d user=%q collection_logical_name=%q", e.collection, e.user, e.logical)}
	}
	return true
}
