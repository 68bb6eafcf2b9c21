// Package reports is the last stage of the pipeline: it turns the results
// of every stage into what people and schedulers read. It takes one
// concrete input (Input: profile documents from package profile plus plain
// plot data, such as series, spectra, the runs' skylines, measured points)
// and imports no stage: package pipeline builds the input from the stages.
//
// Write produces a report directory:
//
//	profiles/<job>.json   profile.Job per recurring job (profile.FileName)
//	tenants.json          profile.Tenants, when the classify stage ran
//	schema/*.schema.json  the JSON Schemas the files above name in "$schema"
//	plots/*.svg, *.png    every figure, drawn with gonum.org/v1/plot
//	index.html            self-contained report: the answers first, then the summary, a section per
//	                      stage, the data quality of every ingested input
//	                      (Input.Inputs), a section per job, caveats;
//	                      inline SVG, no script, a Content-Security-Policy
//	                      that forbids any fetch
//	index.json            Index: what was written (wlprof report -o json)
//	reservations/*.json   YARN reservation requests, when the input has them
//
// The first screen answers a capacity planner's four questions (Decisions,
// also index.json's summary.decisions, shape and version in FORMAT.md):
// how big the cluster must be (the reservations' footprint, the smallest
// cluster for a target makespan under stock YARN and YARN-ME), what can be
// harvested (spare cores per job type, the replay's work and job times;
// on Kubernetes data counted node by node, since namespaces share nodes:
// Planner.NodeSpare),
// which jobs may miss their deadline (with each stage's evidence), and
// what to do (ranked actions, each with its gain, evidence and command).
// A glossary ends the page with the papers' symbols.
//
// The figures: tenants per pattern and the mean/peak class scatter (Zhang
// et al., OSDI'16 Fig. 2/3), representative series and spectra per class,
// the runs' skylines under the fitted skyline and the reservation (Jyothi
// et al., OSDI'16 Fig. 5), the α trade-off of over- against
// under-allocation (Fig. 9b/c), the CDF of SLO slack (Fig. 9a), elasticity
// curves with measured points (Iorgulescu et al., ATC'17 Fig. 1) and
// profiler sweeps; the opt-in what-if
// sections draw their own (the harvest's kills by pattern, the replica
// placement's storage per class against S/9). A stage with no results
// renders as "not computed" with the notes the caller gives.
//
// The directory is built in a temporary sibling, synced with one syncfs,
// and exchanged with the previous report in one renameat2 (RENAME_EXCHANGE)
// where Linux allows, so readers never see a half-written report; a
// directory that is not an earlier report (no index.json of kind report) is
// never replaced. Every string from the traces is escaped by html/template
// (and by gonum's SVG writer in figures). Outputs are byte-identical for
// the same input, whatever the number of workers.
//
// Units follow package profile: seconds, bytes, containers, fractions. The
// time axes of figures pick seconds, minutes, hours or days by extent.
package reports
