package profile

import _ "embed"

// JobSchema and TenantsSchema are the published JSON Schemas (draft
// 2020-12) of profiles/<job>.json and tenants.json, as in schema/.
var (
	//go:embed schema/job.schema.json
	JobSchema []byte
	//go:embed schema/tenants.schema.json
	TenantsSchema []byte
)
