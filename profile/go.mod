module github.com/wlprof/wlprof/profile

// Go 1.21: the code needs 1.20's standard library (errors.Join) and 1.21's
// min and max, and 1.21 is the oldest line go vet's stdversion check
// enforces, so scripts/profile-module.sh can prove with today's toolchain
// that nothing newer is used.
go 1.21
