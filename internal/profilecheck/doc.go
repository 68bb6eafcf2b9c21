// Package profilecheck holds no code: its tests check the published
// profile files (github.com/wlprof/wlprof/profile) with a complete JSON
// Schema draft 2020-12 validator, santhosh-tekuri/jsonschema. They live in
// wlprof's module rather than the profile module's own because a test
// dependency there would be a requirement of every scheduler that imports
// profile, which needs nothing but the standard library.
package profilecheck
