// Package reports turns the results of every stage into what people and
// schedulers read: per-job profile files, tenants.json, plots drawn with
// gonum.org/v1/plot, a self-contained HTML report and YARN reservation
// requests. It is the last stage of the pipeline.
//
// Not built yet: issue 8.
package reports
