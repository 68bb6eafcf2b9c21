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
