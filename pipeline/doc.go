// Package pipeline composes the analysis stages: it is where they meet,
// one floor above them and below the commands. Stages never import each
// other; what needs several of them (the report, which shows every
// stage's results; the placement of a job's next YARN reservation, which
// needs its SLO, its run history and its skyline) is written here once,
// against the stages' public surface (Load, Run, Result.Profile), and
// called by cmd/wlprof and, later, by the what-if stages' commands.
//
// Report runs every stage that has input and returns what package reports
// writes: the job profiles (package profile), tenants.json, and the data
// the figures draw. Classify and SLO are a stage's Load and Run together,
// as the commands call them. Window places a job's next reservation and
// Reservation builds its YARN request. Run is the whole pipeline of
// wlprof run: detect formats, ingest, every stage, write the report.
//
// Process-wide settings (the collector's pace, a soft memory limit) are
// the program's: Options.Around lets it set them per stage.
package pipeline
