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

// JobSchemaID and TenantsSchemaID are the schemas' $id, which every file
// names in its "$schema" field.
const (
	JobSchemaID     = "https://github.com/wlprof/wlprof/profile/schema/job.schema.json"
	TenantsSchemaID = "https://github.com/wlprof/wlprof/profile/schema/tenants.schema.json"
)
