package main

import (
	"github.com/spf13/cobra"
	"github.com/wlprof/wlprof/dag"
	"github.com/wlprof/wlprof/dataset"
)

func newDAGCmd(g *globalOptions) *cobra.Command {
	cmd, _ := stageCommand(g, dag.Contract, &cobra.Command{
		Use:   "dag",
		Short: "The most containers each job asks for at once, from its stage DAG",
		Long: `What a batch job asks of a harvesting scheduler at most at once (Zhang et al., OSDI'16
§4.1, Fig. 7; Algorithm 1's J.req): the job's stages in breadth-first
levels (a stage enters the level after the last of its parents), and the
largest sum of the tasks of one level's stages. The DAG's largest
antichain can be larger (a long chain beside a short one); dag/doc says
when.

The DAGs come from Alibaba 2018 batch_task.csv (ingest
alibaba2018-batch-task: M5_3_4 is stage 5 after stages 3 and 4), Spark
event logs (a stage's parent stages and its tasks; a Spark job's stages
come after those of the jobs that had ended when it was submitted, so
the maximum is that of one job or of jobs that overlapped), MapReduce .jhist
files (maps, then reduces) and Google 2019 collection_events (a
collection's start_after_collection_ids: the collections they connect are
one workflow, named after its smallest collection id; a collection's
tasks are its instances, from google2019-instance-events). Where the dataset has the run's skyline
(Spark), its observed peak of containers (executors) is printed beside
the maximum, and the task slots it had at most (OBSERVED_SLOTS: executor
cores / spark.task.cpus), what the DAG's concurrent tasks compare with.
Where the dataset has an Alibaba job's task instances (ingest
alibaba2018-batch-instance), the most instances that ran at once
(OBSERVED_INSTANCES: each from its start to its end, a retry separately;
instances without times are left out and noted) is printed beside the
DAG's maximum.
A parent the job does not have is taken as done, and stages on a cycle
give the job no maximum; the NOTE column says so.
` + exitStatusHelp,
		Example: `  wlprof ingest -d ds alibaba2018-batch-task batch_task.csv
  wlprof dag -d ds
  wlprof dag -d ds --job j_1 -o json`,
	})
	completeJob(cmd, g, dataset.StagesTable.Name)
	return cmd
}
