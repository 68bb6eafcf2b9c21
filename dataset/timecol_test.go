package dataset

import (
	"context"
	"testing"
)

// Time columns are nullable and delta encoded; arrow/go v16 decoded such a
// page wrongly when it was read in more than one call (see ReadBatchRows).
// 300,000 rows with nulls span many pages and several 64 Ki-row batches:
// every value must read back.
func TestNullableTimeColumnReadsBackPastOneBatch(t *testing.T) {
	ds, tx := newTx(t)
	const n = 300_000
	want := make([]Run, n)
	for i := range want {
		want[i] = Run{Job: "j", Run: "r", SubmitMs: 1_700_000_000_000 + int64(i)*997, StartMs: 1_700_000_000_000 + int64(i*i%7919), EndMs: NoTime}
		if i%3 != 0 {
			want[i].EndMs = want[i].StartMs + int64(i%1000)
		}
		if err := tx.Runs().Append(&want[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadAll(context.Background(), ds, RunsTable)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != n {
		t.Fatalf("%d rows, want %d", len(got), n)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("row %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}
