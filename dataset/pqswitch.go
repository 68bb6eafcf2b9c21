package dataset

import (
	"os"
	"strings"
)

// arrowFor names the pieces of the own Parquet codec that are replaced by
// arrow-go's for this process, from WLPROF_PQ_ARROW (a comma-separated
// list, or "all"). It exists for issue 15's A/B of the own codec against
// arrow-go v18 and goes once the A/B has decided:
//
//	usagewrite   usage pages by pqarrow's writer, not usagewrite.go
//	floatdict    (with usagewrite) cpu, memory as plain doubles, arrow's dictionary encoder
//	zstd         arrow-go's pooled zstd encoders, not zstd.go's
//	usageread    usage row groups by pqarrow's record reader, not usagepages.go
//	serieswrite  Tx.WriteSeries through pqarrow's writer, not serieswrite.go
//	seriespage   (with serieswrite) arrow's 1 MB pages, not 64 KB
//	seriesread   series values by arrow's column reader, not seriespages.go
//	readbatch    pqarrow record batches of 65,536 rows, not a whole row group
var arrowFor = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range strings.Split(os.Getenv("WLPROF_PQ_ARROW"), ",") {
		if p = strings.TrimSpace(p); p == "all" {
			for _, q := range []string{"usagewrite", "floatdict", "zstd", "usageread", "serieswrite", "seriespage", "seriesread", "readbatch"} {
				m[q] = true
			}
		} else if p != "" {
			m[p] = true
		}
	}
	return m
}()

func init() {
	ownPages = !arrowFor["usagewrite"]
	usageFastPath = !arrowFor["usageread"]
	seriesFastPath = !arrowFor["seriesread"]
	if arrowFor["seriespage"] {
		SeriesTable.pageBytes = 0
	}
}
