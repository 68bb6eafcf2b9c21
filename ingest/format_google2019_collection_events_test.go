package ingest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/wlprof/wlprof/dataset"
)

// The user of the real collection_events row (fixture quoted_real_rows.txt).
const googleRealUser = "+OVSEukSmo6ma+28nY4raBvhviWrpQLsc+DWQcTGV4E="

// collection_events_derived_rows.json (SOURCES.md): the real event moved to
// the real usage row's collection (lines 1, 2), then rejects.
var googleCollectionRejects = []struct {
	line int64
	why  string
}{
	{3, "no user"},
	{4, `user "someone-else" differs from "` + googleRealUser + `"`},
	{5, "no collection_id"},
}

func TestGoogleCollectionEventsJoin(t *testing.T) {
	opts := DefaultOptions()
	opts.TenantKey = "user"
	opts.CollectionEvents = []string{traceFile("google2019", "collection_events_derived_rows.json")}
	got := mustRun(t, "google2019-usage", []string{traceFile("google2019", "instance_usage-000000000000.json")}, opts)
	if len(got.usage) != 1 || got.usage[0].Tenant != googleRealUser || got.usage[0].Server != googleRealRow.Server {
		t.Fatalf("user key: %+v", got.usage)
	}
	if got.res.Files[0].Format != googleCollectionsFormat || got.res.Files[0].Accepted != 2 || got.res.Files[0].Rejected != 3 {
		t.Errorf("collection events file: %+v", got.res.Files[0])
	}
	for _, r := range googleCollectionRejects {
		hasReject(t, got.rejects, r.line, r.why)
	}

	// The real event alone names another collection: the usage row is an
	// unknown collection in the join.
	opts.CollectionEvents = []string{traceFile("google2019", "collection_events-000000000000.json")}
	got = mustRun(t, "google2019-usage", []string{traceFile("google2019", "instance_usage-000000000000.json")}, opts)
	if len(got.usage) != 0 || len(got.rejects) != 1 {
		t.Fatalf("%d rows, %d rejects", len(got.usage), len(got.rejects))
	}
	hasReject(t, got.rejects, 1, "unknown collection in join: collection_id 330587238433")
}

// Collection events ingested first are joined from the dataset; "auto"
// detects both kinds of file.
func TestGoogleCollectionEventsFromDataset(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ds")
	first, err := runInto(t, dir, "auto", []string{traceFile("google2019", "collection_events-000000000000.json"),
		traceFile("google2019", "collection_events_derived_rows.json")}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	colls, err := dataset.ReadAll(t.Context(), openDataset(t, dir), dataset.CollectionsTable)
	if err != nil {
		t.Fatal(err)
	}
	// Real row: collection 394454435790, its user and logical name.
	if len(colls) != 3 || colls[0].Collection != "394454435790" || colls[0].User != googleRealUser ||
		colls[0].LogicalName != "EtxQRC/xETMeVuCiiEiMaiyqIUI8YomWaxXsO91ad14=" || first.res.Files[0].Format != googleCollectionsFormat {
		t.Fatalf("collections %+v, files %+v", colls, first.res.Files)
	}
	opts := DefaultOptions()
	opts.TenantKey = "user"
	got, err := runInto(t, dir, "google2019-usage", []string{traceFile("google2019", "instance_usage_derived_rows.json")}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got.res.Accepted != 2 || got.usage[0].Tenant != googleRealUser {
		t.Errorf("joined from the dataset: %+v %+v", got.res, got.usage)
	}
	if !noteContains(got.res.Files[0].Notes, "3 rows of the dataset's collections table") {
		t.Errorf("notes %q", got.res.Files[0].Notes)
	}
}

// The same events as a Parquet shard (ints as numbers, nulls), gzipped.
func TestGoogleCollectionEventsParquet(t *testing.T) {
	var rows [][]byte
	for _, name := range []string{"collection_events-000000000000.json", "collection_events_derived_rows.json"} {
		b := traceBytes(t, "google2019", name)
		rows = append(rows, bytes.Split(bytes.TrimSpace(b), []byte("\n"))...)
	}
	sc := collectionEventsSchema()
	dir := t.TempDir()
	shard := writeFile(t, dir, "collection_events-000000000000.parquet.gz", gzipBytes(t, parquetRows(t, sc, rows, 2)))
	opts := DefaultOptions()
	opts.TenantKey = "user"
	got := mustRun(t, "auto", []string{traceFile("google2019", "instance_usage-000000000000.json"), shard}, opts)
	if got.res.Files[0].Format != googleCollectionsFormat || got.res.Files[0].Accepted != 3 || got.res.Files[0].Rejected != 3 {
		t.Fatalf("shard: %+v", got.res.Files[0])
	}
	// Shard rows 2..6 are the derived lines 1..5.
	for _, r := range googleCollectionRejects {
		hasReject(t, got.rejects, r.line+1, r.why)
	}
	if len(got.usage) != 1 || got.usage[0].Tenant != googleRealUser {
		t.Errorf("usage %+v", got.usage)
	}
	if !strings.Contains(got.rejects[0].Record, "collection_id=330587238434") {
		t.Errorf("record %q", got.rejects[0].Record)
	}
}

// start_after_collection_ids become stages rows (one per event with
// edges, job left for wlprof dag to group), from JSON lines and from a
// Parquet shard alike; a collection that starts after itself is a reject.
func TestGoogleCollectionEventsDAG(t *testing.T) {
	body, err := os.ReadFile("../testdata/dag/google2019_collection_events_dag.json")
	if err != nil {
		t.Fatal(err)
	}
	rows := bytes.Split(bytes.TrimSpace(body), []byte("\n"))
	sc := collectionEventsSchema()
	dir := t.TempDir()
	for _, input := range []string{"../testdata/dag/google2019_collection_events_dag.json", writeFile(t, dir, "collection_events-000000000001.parquet", parquetRows(t, sc, rows, 3))} {
		res, ds, err := Into(context.Background(), filepath.Join(t.TempDir(), "ds"), "auto", []string{input}, DefaultOptions())
		if ds == nil {
			t.Fatalf("%s: %v", input, err)
		}
		if res.Files[0].Accepted != 7 || res.Files[0].Rejected != 1 {
			t.Errorf("%s: %+v", input, res.Files[0])
		}
		stages, err := dataset.ReadAll(context.Background(), ds, dataset.StagesTable)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range stages {
			got = append(got, s.Stage+"<"+s.Parents)
			if s.Job != "" || s.Source != googleCollectionsFormat {
				t.Errorf("%s: stage %+v", input, s)
			}
		}
		if want := []string{"101<100", "102<100", "103<101,102", "103<101,102", "300<999"}; !slices.Equal(got, want) {
			t.Errorf("%s: stages %v, want %v", input, got, want)
		}
	}
}

// collectionEventsSchema is the collection_events table's schema as the
// BigQuery export writes its Parquet shards.
func collectionEventsSchema() *arrow.Schema {
	i64, str := arrow.PrimitiveTypes.Int64, arrow.BinaryTypes.String
	var fields []arrow.Field
	for _, n := range []string{"time", "type", "collection_id", "scheduling_class", "missing_type", "collection_type", "priority", "alloc_collection_id"} {
		fields = append(fields, arrow.Field{Name: n, Type: i64, Nullable: true})
	}
	for _, n := range []string{"user", "collection_name", "collection_logical_name"} {
		fields = append(fields, arrow.Field{Name: n, Type: str, Nullable: true})
	}
	fields = append(fields, arrow.Field{Name: "parent_collection_id", Type: i64, Nullable: true},
		arrow.Field{Name: "start_after_collection_ids", Type: arrow.ListOf(i64), Nullable: true})
	for _, n := range []string{"max_per_machine", "max_per_switch", "vertical_scaling", "scheduler"} {
		fields = append(fields, arrow.Field{Name: n, Type: i64, Nullable: true})
	}
	return arrow.NewSchema(fields, nil)
}
