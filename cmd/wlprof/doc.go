// Command wlprof is the command-line face of the pipeline: one file per
// subcommand, each an options struct, a constructor that binds flags and a
// run function that does the work and is what the tests call. Commands are
// thin: they parse flags, open the dataset, call one stage, print.
//
// Exit codes: 0 success, 1 error, 2 usage error, 3 finished with rejected
// input records.
package main
