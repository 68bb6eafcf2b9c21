# wlprof: make demo | make test | make bench
# Each target installs what is missing (scripts/deps.sh) on a Debian machine with Go:
# build and demo only what the binary needs (CLP, pkg-config, g++); test, bench and
# fuzz also the reference tools the tests check against.

GO      ?= go
BIN     := bin/wlprof
OUT     ?= out
PKGS    := ./...
.PHONY: all deps deps-build build test test-beam test-profile vet demo bench bench-retarget fuzz pgo clean

all: build

deps:
	@./scripts/deps.sh test

deps-build:
	@./scripts/deps.sh build

build: deps-build
	$(GO) build -o $(BIN) ./cmd/wlprof

vet: deps
	$(GO) vet $(PKGS)
	cd profile && $(GO) vet ./...

# The parallel scans' tests run again under the race detector (a worker
# outliving its scan shows only there). The elasticity accuracy test times
# a real workload: it runs on its own, after the other packages, so that
# their tests do not load the machine.
test: deps
	$(GO) vet $(PKGS)
	$(GO) test -skip '^TestSandboxAccuracy$$' $(PKGS)
	$(GO) test -race -count=1 -run '^(TestScanUsageStopsEarly|TestScanSeriesEqualsReadSeries|TestAddBatchPartsAgree|TestServerIDsAsSerial)$$' ./dataset ./classify
	$(GO) test -count=1 -run '^TestSandboxAccuracy$$' ./elasticity
	$(MAKE) test-profile
	$(MAKE) test-beam

# profile is a module of its own (a scheduler imports it alone), so ./...
# above does not reach it: its vet and tests, then a throwaway module with
# an old go line that imports only profile must build, offline, and
# require nothing but the standard library.
test-profile:
	./scripts/profile-module.sh $(GO)

# wlprof-beam is a module of its own (the Apache Beam SDK is large): its
# vet and tests, on a small world, in a step of their own.
# It builds Prism and the SDK's boot loader from the module's Beam SDK and
# runs the pipelines across processes on 127.0.0.1 (TestAcrossProcesses).
test-beam: deps
	cd cmd/wlprof-beam && $(GO) vet ./... && $(GO) test ./...

# The demo runs every stage that exists on bundled and synthetic data.
demo: build
	@./scripts/demo.sh $(BIN) $(OUT)

# Benchmarks, with their baselines (anchors) in the same run.
# WLPROF_BENCH_ROWS=1000000 make bench for a quick pass.
# BenchmarkSampleRetarget spills on a steady disk where the machine allows
# one (scripts/spill-disk.sh: a zram disk, as root), throttled to 25 MiB/s,
# and asserts the retarget bar there (every setting within 10%; the well-sized setting, all
# CPU, within what its runs' own scatter allows);
# elsewhere it runs on the machine's own disk and checks only gross errors.
bench: deps
	spill=$$(./scripts/spill-disk.sh) || { spill=; echo "make bench: no steady spill disk (above); BenchmarkSampleRetarget runs on this machine's own disk and checks only gross errors"; }; \
	WLPROF_RETARGET_SPILL_DIR=$$spill $(GO) test -run '^$$' -bench . -benchtime 1x -benchmem -timeout 180m $(PKGS)

# The retarget bar alone (docs/benchmarks/elasticity-retarget.md), on the steady spill disk (root; about 23
# minutes).
bench-retarget: deps
	spill=$$(./scripts/spill-disk.sh) && cd elasticity && WLPROF_RETARGET_SPILL_DIR=$$spill \
		$(GO) test -run '^$$' -bench BenchmarkSampleRetarget -benchtime 1x -timeout 60m -v .

# Every fuzz target, FUZZTIME each (default 30s; the quality bar is
# FUZZTIME=10m), with executions per second; FUZZ=regexp picks targets.
fuzz: deps
	./scripts/fuzz.sh

# cmd/wlprof/default.pgo, which every build of wlprof is optimised with,
# profiled again on the classify benchmark's ingest and classify.
pgo: deps-build
	./scripts/pgo.sh $(GO)

clean:
	rm -rf bin $(OUT) wlprof-data
