package reports

import "html/template"

// GlossaryTerm is one symbol or term of the papers the report uses.
type GlossaryTerm struct {
	Term, Meaning, Source string
}

// Glossary lists the papers' symbols and terms as the report uses them,
// each with the paper and section that defines it.
var Glossary = []GlossaryTerm{
	{"s_req", "slots a job needs from now on to finish its current phase by its goal: its pending tasks × µ over the time left", "Polo, PhD thesis, UPC 2014, §3.4 (eq. 1)"},
	{"s_fit", "tasks of a job to run before the earliest goal of all jobs, fitted into the slots available", "Polo, PhD thesis, UPC 2014, §5.3.4 (Alg. 2)"},
	{"Ω(t)", "slots available to batch work at time t: what the periodic tenants leave, repeating every day", "Polo, PhD thesis, UPC 2014, §5.3"},
	{"µ", "mean task length of a phase, seconds", "Polo, PhD thesis, UPC 2014, §3.4"},
	{"T_inAvail", "when a run's last input was written, from the start of its period", "Jyothi et al., OSDI'16 §4"},
	{"T_outRead", "when a run's output was first read by another job, from the start of its period", "Jyothi et al., OSDI'16 §4"},
	{"slack ratio", "median(T_outRead − T_end) / (T_end − T_start): how much later a job could end, as a share of its runtime, before its output is read", "Jyothi et al., OSDI'16 §4"},
	{"skyline", "containers reserved per time step for one run of a recurring job, fitted by a linear program over its past runs", "Jyothi et al., OSDI'16 §5"},
	{"α, β", "the skyline fit's weights: α trades over- against under-allocation, β penalises instantaneous under-allocation", "Jyothi et al., OSDI'16 §5"},
	{"provisioning ratio", "a skyline's reserved container·hours over what its runs used", "Jyothi et al., OSDI'16 §5"},
	{"LCM", "least common multiple of the planned jobs' periods: the span after which the packed plan repeats", "Jyothi et al., OSDI'16 §6"},
	{"LowCost, footprint", "packing of every job's skyline into its window so that the peak of the summed reservations (the footprint, in containers) is low", "Jyothi et al., OSDI'16 §6"},
	{"DRA", "dynamic reprovisioning: a run that outgrows its reservation gets containers added while it runs", "Jyothi et al., OSDI'16 §7"},
	{"headroom", "spare fraction of a server a job of a type can count on: short 1 − current use, medium 1 − max(mean, current), long 1 − max(peak, current)", "Zhang et al., OSDI'16 §4"},
	{"short, medium, long jobs", "job types by the length of a job's last run, with thresholds from the cluster's history", "Zhang et al., OSDI'16 §4.1"},
	{"NM-H, RM-H", "the harvesting NodeManager (kills a server's batch containers, youngest first, when its primary tenant needs the cores) and ResourceManager (places containers by class)", "Zhang et al., OSDI'16 §5"},
	{"YARN-PT, YARN-Stock", "the baselines of the harvest replay: placement aware of the primary tenants but blind to their history, and stock YARN aware of neither", "Zhang et al., OSDI'16 §6"},
	{"YARN-ME", "YARN that starts a task with less than its ideal memory when it still ends by its job's estimated completion", "Iorgulescu et al., ATC'17 §3"},
	{"ideal memory, penalty", "the memory a task needs to run without spilling, and how much slower it runs with less (runtime / ideal runtime − 1)", "Iorgulescu et al., ATC'17 §2"},
	{"makespan", "time from the first submission to the last job's end", "Iorgulescu et al., ATC'17 §4"},
	{"JCT, job time", "a job's completion time: from its submission to its last task's end (the harvest replay's job execution time is the same measure)", "Iorgulescu et al., ATC'17 §4; Zhang et al., OSDI'16 §6"},
	{"core·h, container·h", "core-hours, container-hours: one core or container held for an hour", ""},
	{"CRV", "constraint resource vector: the demand for machines with an attribute over the machines that have it", "Thinakaran et al., Phoenix §3"},
}

const glossaryHTML = `{{define "glossary"}}<section id="glossary">
<h2>Glossary</h2>
<table class="gloss"><tr><th class="l">term</th><th class="l">meaning</th><th class="l">defined in</th></tr>
{{range glossary}}<tr><td class="l">{{.Term}}</td><td class="l">{{.Meaning}}</td><td class="l">{{.Source}}</td></tr>
{{end}}</table>
</section>{{end}}`

func init() {
	sections = append(sections, func(page *template.Template) {
		template.Must(page.New("glossary-section").Parse(glossaryHTML))
	})
}
