// Generic utilisation CSV (format "csv").
//
// A header names the columns tenant, server, timestamp, cpu and optionally
// memory, in any order. Timestamps are RFC 3339 (or the same with a space,
// read in Options.Location when they carry no offset), epoch seconds or
// epoch milliseconds: values of 1e11 and above are milliseconds (1e11 s is
// the year 5138, 1e11 ms is 1973). cpu and memory are fractions of a server
// or percent: declared with Options.CPUUnit or a header suffix
// (_pct/_percent, _frac/_fraction), else detected from the largest valid value (≤ 100) in
// the first 65,536 records and written to the source's notes. Values
// outside [0, 100%], NaN, and malformed rows are rejected.
//
// Big uncompressed inputs are parsed in parallel chunks cut at newlines and
// delivered in input order; see BenchmarkIngestCSV and, against DuckDB's
// read_csv in the same run, BenchmarkIngestVsDuckDB. On ingest, workers
// parse each chunk into columns with their own string ids (lines in the
// canonical column order with epoch times and plain decimals in one pass,
// csvfastrow.go; the rest field by field), and the single consumer appends
// whole chunks (dataset.AppendUsageColumns) and writes the chunk's rejects
// with absolute line numbers (csvbatch.go). The file's SHA-256 is computed
// chunk by chunk as chunks are handed to the workers, from the same mapped
// bytes they parse: there is no second pass over the file.

package ingest

import (
	"bytes"
	"context"
	"fmt"

	"github.com/wlprof/wlprof/dataset"
)

func init() {
	register(&Format{
		Name:        "csv",
		Table:       dataset.UsageTable.Name,
		Description: "generic utilisation CSV: header tenant,server,timestamp,cpu[,memory]; RFC 3339, epoch s or epoch ms",
		Detect: func(name string, head []byte) bool {
			fields, _, _, err := splitCSV(firstLine(head), nil, nil, nil)
			if err != nil {
				return false
			}
			var has [4]bool
			for _, f := range fields {
				f = bytes.ToLower(bytes.TrimSpace(f))
				for c := colTenant; c <= colCPU; c++ {
					for _, n := range usageColumnNames[c] {
						if string(f) == n {
							has[c] = true
						}
					}
				}
			}
			return has[0] && has[1] && has[2] && has[3]
		},
		ingest: func(ctx context.Context, in *Input, s *sink) error {
			if s.opts.CPUUnit == UnitRaw {
				return fmt.Errorf("%s: --cpu-unit raw applies to series-csv only (it scales one series by its maximum)", in.Path)
			}
			r, err := newUsageCSV(in, s.opts.CPUUnit, s.opts.Location)
			if err != nil {
				return err
			}
			return drainUsageCSV(ctx, s, r, s.tx.Usage())
		},
	})
}
