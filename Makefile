# wlprof: make demo | make test | make bench
# Each target installs what is missing (scripts/deps.sh) on a Debian machine with Go:
# build and demo only what the binary needs (CLP, pkg-config, g++); test, bench and
# fuzz also the reference tools the tests check against.

GO      ?= go
BIN     := bin/wlprof
OUT     ?= out
PKGS    := ./...
# Per fuzz target of the Parquet page codec.
PQFUZZTIME ?= 10s

.PHONY: all deps deps-build build test vet demo bench fuzz clean

all: build

deps:
	@./scripts/deps.sh test

deps-build:
	@./scripts/deps.sh build

build: deps-build
	$(GO) build -o $(BIN) ./cmd/wlprof

vet: deps
	$(GO) vet $(PKGS)

# The parallel scans' tests run again under the race detector (a worker
# outliving its scan shows only there). The elasticity accuracy test times
# a real workload: it runs on its own, after the other packages, so that
# their tests do not load the machine.
test: deps
	$(GO) vet $(PKGS)
	$(GO) test -skip '^TestSandboxAccuracy$$' $(PKGS)
	$(GO) test -race -count=1 -run '^(TestScanUsageStopsEarly|TestScanSeriesEqualsReadSeries|TestAddBatchPartsAgree)$$' ./dataset ./fft
	$(GO) test -count=1 -run '^TestSandboxAccuracy$$' ./elasticity

# The demo runs every stage that exists on bundled and synthetic data.
demo: build
	@./scripts/demo.sh $(BIN) $(OUT)

# Benchmarks, with the baselines the issues name in the same run.
# WLPROF_BENCH_ROWS=1000000 make bench for a quick pass.
bench: deps
	$(GO) test -run '^$$' -bench . -benchtime 1x -benchmem $(PKGS)

fuzz: deps
	$(GO) test ./ingest/ -run '^$$' -fuzz FuzzUsageCSV -fuzztime 60s
	$(GO) test ./ingest/ -run '^$$' -fuzz FuzzYarnRM -fuzztime 30s
	$(GO) test ./ingest/ -run '^$$' -fuzz FuzzSparkEventLog -fuzztime 30s
	$(GO) test ./ingest/ -run '^$$' -fuzz FuzzSkylineCSV -fuzztime 30s
	$(GO) test ./simulate/ -run '^$$' -fuzz FuzzReadTrace -fuzztime 30s
	@# The Parquet page codec (dataset/internal/pq): round trips and arbitrary bytes into every decoder.
	for f in FuzzHybridRoundTrip FuzzHybridDecode FuzzDeltaRoundTrip FuzzDeltaDecode FuzzPageHeaderRoundTrip FuzzPageHeaderParse FuzzFloatDictRoundTrip FuzzStringsRoundTrip FuzzStringsDecode FuzzDoubleListsRoundTrip FuzzDoubleListsDecode FuzzWalkRoundTrip FuzzWalkDecode; do \
		$(GO) test ./dataset/internal/pq/ -run '^$$' -fuzz "^$$f$$" -fuzztime $(PQFUZZTIME) || exit 1; \
	done

clean:
	rm -rf bin $(OUT) wlprof-data
