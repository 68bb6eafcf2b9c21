// Format "alibaba2018-batch-instance".
//
// alibaba2018-batch-instance: batch_instance (instance_name, task_name,
// job_name, task_type, status, start_time, end_time, machine_id, seq_no,
// total_seq_no, cpu_avg, cpu_max, mem_avg, mem_max) goes to the instances
// table (dataset.Instance), one row per run of an instance: its stage is
// the task's, as alibaba2018-batch-task names it, times are as there (0 is
// outside the trace), cpu_avg and cpu_max / 100 cores, mem_avg and mem_max
// / 100 fractions of the largest machine. An end before the start, a
// seq_no above total_seq_no, a fraction where seconds or a count are due
// are rejects.

package ingest

import (
	"bytes"
	"context"
	"fmt"
	"math"

	"github.com/wlprof/wlprof/dataset"
	"github.com/wlprof/wlprof/internal/strtab"
)

const alibabaBatchInstanceFormat = "alibaba2018-batch-instance"

// alibabaBatchInstanceCols are batch_instance's columns in the trace's
// schema (alibaba/clusterdata, cluster-trace-v2018 schema.txt).
var alibabaBatchInstanceCols = []string{"instance_name", "task_name", "job_name", "task_type", "status", "start_time", "end_time",
	"machine_id", "seq_no", "total_seq_no", "cpu_avg", "cpu_max", "mem_avg", "mem_max"}

func init() {
	register(&Format{
		Name:  alibabaBatchInstanceFormat,
		Table: dataset.InstancesTable.Name,
		Description: "Alibaba clusterdata 2018 batch_instance.csv: instance_name,task_name,job_name,task_type,status,start_time,end_time,machine_id," +
			"seq_no,total_seq_no,cpu_avg,cpu_max,mem_avg,mem_max (instance start and end) → instances",
		Detect: alibabaDetect(alibabaBatchInstanceCols, func(f [][]byte) bool {
			return bytes.HasPrefix(f[2], []byte("j_")) && len(f[4]) > 0 && !isNumber(f[4]) && (len(f[5]) == 0 || isNumber(f[5]))
		}),
		ingest: func(ctx context.Context, in *Input, s *sink) error {
			p := &alibabaBatchInstance{csvRow: csvRow{file: in.Path}, start: traceStartMs(s.opts, unixEpoch), strs: strtab.New()}
			s.notes = append(s.notes, "stage = the task number in task_name, as alibaba2018-batch-task names it; times are seconds from the trace start "+
				msText(p.start)+", 0 = outside the trace; cpu_avg and cpu_max / 100 are cores, mem_avg and mem_max / 100 fractions of the largest machine")
			return drainAlibaba(ctx, s, in, alibabaBatchInstanceCols, p.parse, s.tx.Instances())
		},
	})
}

// alibabaBatchInstance parses batch_instance lines, one run of a task
// instance each (an instance retried has several, told apart by seq_no).
type alibabaBatchInstance struct {
	csvRow
	start int64
	strs  *strtab.Table
}

func (p *alibabaBatchInstance) parse(line []byte, lineNo int64, rec *dataset.Instance) *ParseError {
	perr, reject := p.alibabaSplit(line, lineNo, alibabaBatchInstanceCols, 0, 1, 2)
	if perr != nil {
		return perr
	}
	f, c := p.fields, p.cols
	times, perr := alibabaSpan(f, c, p.start, reject)
	if perr != nil {
		return perr
	}
	var seq [2]int64
	for k, col := range [2]int{8, 9} {
		if len(f[col]) == 0 {
			continue
		}
		n, ok := countOf(f[col])
		if !ok {
			return reject(c[col], fmt.Errorf("%s %q is not a count", alibabaBatchInstanceCols[col], f[col]))
		}
		seq[k] = n
	}
	if seq[0] > 0 && seq[1] > 0 && seq[0] > seq[1] {
		return reject(c[8], fmt.Errorf("seq_no %d is above total_seq_no %d", seq[0], seq[1]))
	}
	var use [4]float64
	for k := range use {
		col := 10 + k
		use[k] = math.NaN()
		if len(f[col]) == 0 {
			continue
		}
		v, err := parseFloat(f[col])
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return reject(c[col], fmt.Errorf("%s %q is not a non-negative number", alibabaBatchInstanceCols[col], f[col]))
		}
		use[k] = v / 100
	}
	stage, _, perr := alibabaStage(string(f[1]), c[1], reject)
	if perr != nil {
		return perr
	}
	str := func(b []byte) string { _, s := p.strs.Bytes(b); return s }
	*rec = dataset.Instance{Job: str(f[2]), Stage: str([]byte(stage)), Task: str(f[1]), Instance: string(f[0]), Status: str(f[4]),
		StartMs: times[0], EndMs: times[1], Machine: str(f[7]), SeqNo: seq[0], TotalSeqNo: seq[1],
		CPUAvg: use[0], CPUMax: use[1], MemAvg: use[2], MemMax: use[3], Source: alibabaBatchInstanceFormat}
	return nil
}
