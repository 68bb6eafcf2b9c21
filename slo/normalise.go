package slo

import "github.com/wlprof/wlprof/profile"

// Normalise returns the recurring identity of a job name or a path: the
// same string for every run of the same job. The rules are published with
// the profile format (profile.JobKey) so that a scheduler holding a run's
// name finds the job's profile.
func Normalise(s string) string { return profile.JobKey(s) }
