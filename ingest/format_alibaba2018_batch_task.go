package ingest

import (
	"bytes"
	"context"
	"fmt"
	"math"

	"strings"

	"github.com/wlprof/wlprof/dataset"
)

const alibabaBatchTaskName = "alibaba2018-batch-task"

func init() {
	register(&Format{
		Name:        alibabaBatchTaskName,
		Table:       dataset.StagesTable.Name,
		Description: "Alibaba clusterdata 2018 batch_task.csv: task_name,instance_num,job_name,task_type,status,start_time,end_time,plan_cpu,plan_mem (the DAG is in task_name)",
		Detect: alibabaDetect(alibabaBatchTaskCols, func(f [][]byte) bool {
			_, ok := countOf(f[1])
			return ok && bytes.HasPrefix(f[2], []byte("j_")) && len(f[4]) > 0 && !isNumber(f[4])
		}),
		ingest: func(ctx context.Context, in *Input, s *sink) error {
			s.notes = append(s.notes, "stage = the task number in task_name (M2_1: stage 2, after stage 1; task_… names are independent stages); "+
				"times are seconds from the trace start "+msText(traceStartMs(s.opts, unixEpoch))+", 0 = outside the trace; cpus = plan_cpu / 100, memory = plan_mem / 100")
			p := &alibabaBatchTask{csvRow: csvRow{file: in.Path}, start: traceStartMs(s.opts, unixEpoch)}
			return drainAlibaba(ctx, s, in, alibabaBatchTaskCols, p.parse, s.tx.Stages())
		},
	})
}

// alibabaBatchTask parses batch_task lines (the column order of the
// trace's schema.md, section 1.5):
//
//	task_name,instance_num,job_name,task_type,status,start_time,end_time,plan_cpu,plan_mem
//
// task_name holds the DAG (trace_2018.md §2.3): "M5_3_4" is task 5, which
// starts when every instance of tasks 3 and 4 has finished; the letters
// do not matter. Names that are no such pattern (task_Nzg3…==, MergeTask)
// are independent tasks: their whole name is their stage id.
type alibabaBatchTask struct {
	csvRow
	start int64
}

func (p *alibabaBatchTask) parse(line []byte, lineNo int64, rec *dataset.Stage) *ParseError {
	perr, reject := p.alibabaSplit(line, lineNo, alibabaBatchTaskCols, 0, 2)
	if perr != nil {
		return perr
	}
	f, c := p.fields, p.cols
	name, job := string(f[0]), string(f[2])
	n, ok := countOf(f[1])
	if !ok {
		return reject(c[1], fmt.Errorf("instance_num %q is not a count", f[1]))
	}
	stage, parents, perr := alibabaStage(name, c[0], reject)
	if perr != nil {
		return perr
	}
	times, perr := alibabaSpan(f, c, p.start, reject)
	if perr != nil {
		return perr
	}
	num := func(col int, what string) (float64, *ParseError) {
		if len(f[col]) == 0 {
			return 0, nil
		}
		x, err := parseFloat(f[col])
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return 0, reject(c[col], fmt.Errorf("%s %q is not a non-negative number", what, f[col]))
		}
		return x / 100, nil
	}
	cpus, perr := num(7, "plan_cpu")
	if perr != nil {
		return perr
	}
	mem, perr := num(8, "plan_mem")
	if perr != nil {
		return perr
	}
	*rec = dataset.Stage{Job: job, Stage: stage, Name: name, Parents: strings.Join(parents, ","), Tasks: n, Status: string(f[4]),
		StartMs: times[0], EndMs: times[1], CPUs: cpus, Memory: mem, Source: alibabaBatchTaskName}
	return nil
}
