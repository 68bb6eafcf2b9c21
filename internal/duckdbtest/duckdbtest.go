// Package duckdbtest runs SQL in DuckDB for tests: DuckDB is the
// independent Parquet reader the dataset's files are checked with (it
// shares no code with arrow, and it refuses files that break the format's
// rules, such as strings that are not UTF-8). scripts/deps.sh installs
// node's @duckdb/node-api in .deps/node; make test runs it.
package duckdbtest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Query runs each query in one in-memory DuckDB and returns each one's
// rows as JSON objects.
func Query(t testing.TB, queries ...string) [][]map[string]any {
	t.Helper()
	cmd := script(t, "query.cjs", queries...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("duckdb: %v\n%s", err, stderr.String())
	}
	var res [][]map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var rows []map[string]any
		if err := json.Unmarshal([]byte(line), &rows); err != nil {
			t.Fatalf("duckdb output %q: %v", line, err)
		}
		res = append(res, rows)
	}
	if len(res) != len(queries) {
		t.Fatalf("duckdb: %d results for %d queries", len(res), len(queries))
	}
	return res
}

// CopyCSV returns the command that has DuckDB read a CSV file with its own
// reader (read_csv) and write it to out as one Parquet file (zstd level
// 1); its output is one JSON line {"seconds": S}, the COPY statement's
// time without node's start. It is the ingest benchmark's anchor.
func CopyCSV(t testing.TB, csv, out string) *exec.Cmd {
	t.Helper()
	return script(t, "copycsv.cjs", csv, out)
}

// script is node running one of this package's scripts with DuckDB's
// modules on its path.
func script(t testing.TB, name string, args ...string) *exec.Cmd {
	t.Helper()
	_, self, _, _ := runtime.Caller(0)
	dir := filepath.Dir(self)
	mods := filepath.Join(dir, "..", "..", ".deps", "node", "node_modules")
	if _, err := os.Stat(filepath.Join(mods, "@duckdb", "node-api")); err != nil {
		t.Fatalf("DuckDB for node not found in %s: run scripts/deps.sh or make test, which install it", mods)
	}
	cmd := exec.Command("node", append([]string{filepath.Join(dir, name)}, args...)...)
	cmd.Env = append(os.Environ(), "NODE_PATH="+mods)
	return cmd
}
