// Package profile is the published format of the files wlprof writes for
// schedulers: per-job profiles and tenants.json, with Go types, a JSON
// Schema, Load and Validate. It imports only the standard library so a
// scheduler can depend on it alone.
//
// Not built yet: issue 8.
package profile
