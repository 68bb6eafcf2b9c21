package dataset

// Stage is one stage (a task, in Alibaba's words) of a job's DAG: how many
// tasks (instances) it runs and the stages it waits for. Formats whose
// logs carry a DAG write it (alibaba2018-batch-task); Spark's stage DAG is
// kept with its task attempts in the profruns table.
type Stage struct {
	Job     string  // the job (Alibaba: job_name)
	Stage   string  // the stage id within the job (Alibaba: task_name's number, or the whole name of an independent task)
	Name    string  // the stage as logged (Alibaba: task_name)
	Parents string  // stage ids it waits for, comma-separated; "" for none
	Tasks   int64   // tasks (instances) it runs
	Status  string  // as logged (Terminated, Failed, Running, ...)
	StartMs int64   // NoTime when unknown
	EndMs   int64   // NoTime when unknown
	CPUs    float64 // planned cores per task (Alibaba plan_cpu / 100); 0 unknown
	Memory  float64 // planned memory per task as a fraction of the largest machine (Alibaba plan_mem / 100); 0 unknown
	Source  string  // input format
}

// StagesTable holds job DAG stages (format alibaba2018-batch-task).
var StagesTable = newTable("stages",
	stringCol("job", true, func(r *Stage) *string { return &r.Job }),
	stringCol("stage", true, func(r *Stage) *string { return &r.Stage }),
	stringCol("name", true, func(r *Stage) *string { return &r.Name }),
	stringCol("parents", true, func(r *Stage) *string { return &r.Parents }),
	int64Col("tasks", func(r *Stage) *int64 { return &r.Tasks }),
	stringCol("status", true, func(r *Stage) *string { return &r.Status }),
	timeCol("start", func(r *Stage) *int64 { return &r.StartMs }),
	timeCol("end", func(r *Stage) *int64 { return &r.EndMs }),
	float64Col("cpus", false, func(r *Stage) *float64 { return &r.CPUs }),
	float64Col("memory", false, func(r *Stage) *float64 { return &r.Memory }),
	stringCol("source", true, func(r *Stage) *string { return &r.Source }),
)

// Stages is the transaction's writer for the stages table.
func (tx *Tx) Stages() *Writer[Stage] { return WriterFor(tx, StagesTable) }
