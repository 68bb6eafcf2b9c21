// Package profile is the published format of the files wlprof writes for
// schedulers: profiles/<job>.json, one per recurring job, and tenants.json.
// It sits at the bottom of the pipeline (stages and reports import it) and is
// a Go module of its own, github.com/wlprof/wlprof/profile, that imports
// only the standard library and needs Go 1.21: a scheduler that imports it
// gets nothing else (wlprof's module uses it through a replace directive;
// scripts/profile-module.sh checks both promises from outside).
//
// A job profile (Job) holds the job's identity, its period, its SLO (seed
// 001 §4) with the provenance of each number (Number.Source: inferred,
// override, measured, default) and whether a user override applies, the
// reservation skyline (Jyothi et al., OSDI'16 §5) with its stages, one memory elasticity
// model per task kind (Iorgulescu et al., ATC'17), the per-phase resource profile (Polo, PhD thesis, UPC 2014
// §4.2.6) and the warnings of every stage. tenants.json (Tenants) holds the
// tenant classes of Zhang et al., OSDI'16 with pattern, mean, peak, headroom per job type
// and the ranking weights of Algorithm 1, and the class of every tenant.
//
// Units are in the field names: _s seconds, _ms epoch milliseconds, _bytes
// bytes; utilisation, shares, headroom and weights are fractions in [0,1];
// containers are counts, over- and under-allocation container·steps.
//
// The formats are versioned ("version": 1). Within a major version fields
// are only added, so readers ignore fields they do not know; DecodeJob and
// DecodeTenants refuse another major version with ErrVersion, and a file of
// the other kind with ErrKind. Sections a stage did not compute are null
// (or empty arrays), never missing: null means unknown, not zero.
//
// The JSON Schemas (draft 2020-12) are in schema/ and embedded as JobSchema
// and TenantsSchema. They are generated from the Go types and their
// `jsonschema` tags; the tests fail when the files and the types disagree,
// and wlprof's internal/profilecheck checks the schemas against the draft's
// meta-schema and validates every profile under a testdata folder against
// them, with a complete validator (santhosh-tekuri/jsonschema, kept out of
// this module). Validate checks what a schema
// cannot (finite numbers, reservation at or above the skyline, curves in
// order, tenant classes consistent) and reports every problem at once.
//
// WriteFile writes atomically (temporary file, fsync, rename); FileName
// turns a job id from the traces into a safe, injective file name; JobKey
// and AppJobKey turn the name of one run into the job id its profile is
// filed under. See
// FORMAT.md for the documents field by field.
package profile
