package ingest

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/wlprof/wlprof/dataset"
)

// benchAudit is a synthetic audit log of n lines in the shape of a busy
// NameNode: mostly open and getfileinfo, some create and rename, a proxy
// user and a caller context on part of them.
func benchAudit(n int) []byte {
	var b bytes.Buffer
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	cmds := []string{"open", "getfileinfo", "open", "create", "open", "listStatus", "rename", "open"}
	for i := 0; i < n; i++ {
		ts := t0.Add(time.Duration(i) * 37 * time.Millisecond).Format("2006-01-02 15:04:05.000")
		ugi, ctx := fmt.Sprintf("user%d", i%50), ""
		if i%3 == 0 {
			ugi = fmt.Sprintf("user%d (auth:TOKEN) via hive (auth:KERBEROS)", i%50)
			ctx = fmt.Sprintf("\tcallerContext=mr_attempt_1700000000000_%04d_m_%06d_0", i%900, i%1000)
		}
		cmd, dst := cmds[i%len(cmds)], "null"
		src := fmt.Sprintf("/data/job%03d/2024-01-%02d/part-%05d", i%700, 1+i%28, i%16)
		if cmd == "rename" {
			dst = src + ".done"
		}
		b.WriteString(auditLine(ts, "true", ugi, cmd, src, dst, ctx))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// BenchmarkScanHDFSAudit measures the parser alone (lines/s).
func BenchmarkScanHDFSAudit(b *testing.B) {
	const n = 200_000
	path := writeFile(b, b.TempDir(), "audit.log", benchAudit(n))
	b.SetBytes(fileSize(b, path))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		in, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		k := scanClean[dataset.Provenance](b, newHDFSAudit(in, time.UTC))
		in.Close()
		if k != n {
			b.Fatalf("%d lines", k)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchmarkIngestOpenLineage measures JSON-lines events into a dataset.
func BenchmarkIngestOpenLineage(b *testing.B) {
	var buf bytes.Buffer
	const n = 20_000
	for i := 0; i < n; i++ {
		fmt.Fprintf(&buf, `{"eventType":"COMPLETE","eventTime":"2024-01-01T%02d:%02d:00Z","run":{"runId":"r%d"},"job":{"namespace":"etl","name":"job%d"},"inputs":[{"namespace":"hdfs://nn","name":"/raw/%d"}],"outputs":[{"namespace":"hdfs://nn","name":"/out/%d"}]}`+"\n",
			i/60%24, i%60, i, i%300, i, i)
	}
	path := writeFile(b, b.TempDir(), "ev.jsonl", buf.Bytes())
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tx := beginTx(b, filepath.Join(b.TempDir(), "ds"))
		res, err := Run(context.Background(), tx, "openlineage", []string{path}, DefaultOptions())
		if err != nil || res.Accepted != n {
			b.Fatal(err, res.Accepted)
		}
		tx.Rollback()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkIngestHDFSAudit measures the whole ingest (parse, encode,
// write Parquet) of an audit log.
func BenchmarkIngestHDFSAudit(b *testing.B) {
	const n = 200_000
	path := writeFile(b, b.TempDir(), "audit.log", benchAudit(n))
	b.SetBytes(fileSize(b, path))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := ingest(b, context.Background(), filepath.Join(b.TempDir(), "ds"), "hdfs-audit", []string{path}, DefaultOptions())
		if err != nil || res.Accepted != n {
			b.Fatal(err, res.Accepted)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}
