package profile

import "sort"

// Jobs collects job profiles by job id while the stages fill in their
// sections: each job-keyed stage's result has a Profile(Jobs) method that
// sets its section (slo: period and SLO; skyline: skyline; elasticity:
// models; profiler: phases) of every job it computed, creating the job's
// profile when it is the first stage to name it. It is not a file format:
// profiles are written one Job per file.
type Jobs map[string]*Job

// Get returns the profile of job id, creating an empty one (version and
// kind set, no section computed) on first use.
func (js Jobs) Get(id string) *Job {
	j := js[id]
	if j == nil {
		j = &Job{Version: Version, Kind: "job", Job: id}
		js[id] = j
	}
	return j
}

// IDs returns the job ids in order.
func (js Jobs) IDs() []string {
	ids := make([]string, 0, len(js))
	for id := range js {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
