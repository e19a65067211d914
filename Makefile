# glimpse: `make run` starts the embedded default, `make test` installs what
# the tests need (once, cached) and runs every test.
SHELL := /bin/bash
GO ?= go
CACHE_BIN := $(or $(GLIMPSE_CACHE),$(HOME)/.cache/glimpse)/bin
export GLIMPSE_MINIO_BIN ?= $(CACHE_BIN)/minio
export GLIMPSE_HELM_BIN ?= $(CACHE_BIN)/helm
export GLIMPSE_KUBE_BIN_DIR ?= $(CACHE_BIN)
export GLIMPSE_KUBE_DATA_DIR ?= $(patsubst %/bin,%/kube,$(CACHE_BIN))
export GLIMPSE_CLIENTS_DIR ?= $(patsubst %/bin,%/npm,$(CACHE_BIN))
export PATH := $(CACHE_BIN):$(PATH)
# The race detector waits a second before a test binary exits, for reports
# still on their way; a tenth is plenty, and 53 packages save 50 s.
export GORACE ?= atexit_sleep_ms=100

.PHONY: build run test test-short soak deps bench fuzz vet fmt clean

build:
	$(GO) build -o bin/orchestrator ./orchestrator/cmd/orchestrator
	$(GO) build -o bin/sidecar ./sidecar/cmd/sidecar

# Installs Chromium and fonts when they are missing, then starts.
run: build
	./.ci/deps.sh run
	./bin/orchestrator

deps:
	./.ci/deps.sh

vet:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change: $$out"; exit 1; fi
	$(GO) vet ./...

# Every test, unit and integration, with the race detector; then a short
# fuzzing run of the query parser, of the PDF reader of file targets and
# of the Markdown writer's escapes.
# The end-to-end packages under orchestrator/e2e each start their own
# glimpses and run beside the others; -parallel lets the tests of one
# package that share a glimpse overlap their waits on the browser. Two
# packages at a time on two cores (-p): three filled the time one of them
# spends waiting on a browser (13.2 to 13.6 minutes against 14.4 to 15.6
# on the 2-core machine), but slowed a render beside the others up to
# tenfold, past the waits the end-to-end tests hold the service to.
TEST_PARALLEL ?= 4
TEST_PACKAGES ?= 2
# Each fuzzing run is a count of inputs, about 8 s of each on the 2-core
# machine: a run bounded by time can fail with "context deadline
# exceeded" and no input to blame, when a busy machine holds a worker
# past the deadline (the coordinator's race, go.dev/issue/75804, fixed
# in Go 1.27). A fuzzer that finds a new input spends up to a minute
# shrinking it and fuzzes nothing meanwhile: shrinking by a bounded count
# keeps it fuzzing (about 10,000 inputs a second instead of 5,000 in a
# whole run).
FUZZ_PARSE ?= 100000x
FUZZ_PDF ?= 100000x
FUZZ_ESCAPES ?= 40000x
FUZZ_MINIMIZE ?= 500x
# Tests that are one goroutine's computation over much input (scoring the
# development pages, hostile documents) call testtool.WithoutRace: they
# skip under -race, where they are six times slower and the detector has
# nothing to find, and run once more here without it.
# TestEveryTestWithoutRaceIsRun (internal/testtool) holds both lists.
empty :=
space := $(empty) $(empty)
UNRACED_PKGS := ./orchestrator/meta/ ./orchestrator/markdown/ ./orchestrator/quota/ \
	./orchestrator/answer/ ./orchestrator/cmd/bench/pages/
UNRACED_TESTS := TestWCXBAccuracy|TestSampleAccuracy|TestReadabilityAccuracy|TestSampleAccuracyOfBothSets|\
	TestParseDocumentReadsAFiftyMegabytePage|TestCorpusMainContentMatchesTheExpectedText|\
	TestWCXBSampleKeepsItsFloors|TestHostilePagesGetABoundedAnswer|\
	TestAnonymousCallersAreCountedByNetworkInABoundedTable|TestTheRegexpTypeCompilesBoundedPatterns|\
	TestSelectorsThatFindNothingCountTowardsTheBound|TestStandInPicturesAreServed|TestTheContextIsHonouredAtEveryStep

test: deps vet
	$(GO) test -race -count=1 -timeout 40m -p $(TEST_PACKAGES) -parallel $(TEST_PARALLEL) ./...
	$(GO) test -count=1 -timeout 20m -run '^($(subst $(space),,$(UNRACED_TESTS)))$$' $(UNRACED_PKGS)
	$(GO) test -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=$(FUZZ_PARSE) -fuzzminimizetime=$(FUZZ_MINIMIZE) ./orchestrator/query/
	$(GO) test -run='^$$' -fuzz='^FuzzPDFInfo$$' -fuzztime=$(FUZZ_PDF) -fuzzminimizetime=$(FUZZ_MINIMIZE) ./orchestrator/meta/
	$(GO) test -run='^$$' -fuzz='^FuzzEscapesKeepTheTextACommonMarkReaderSees$$' -fuzztime=$(FUZZ_ESCAPES) -fuzzminimizetime=$(FUZZ_MINIMIZE) ./orchestrator/markdown/

# Unit tests only: no Chromium renders, and a test whose tool is missing
# is skipped with the command that installs it.
test-short:
	$(GO) test -short -count=1 ./...

# The soak tests at full length: 2,000 renders across recycling browsers
# and 2,000 requests with faults (by default they run a shorter version).
soak:
	GLIMPSE_SOAK=1 $(GO) test -race -count=1 -timeout 60m -v \
		-run '^(TestRecyclingNeverLeavesTheServiceWithoutABrowser|TestSoakLeavesNothingBehind)$$' ./orchestrator/e2e/chaos/

bench: build
	./.ci/deps.sh bench
	$(GO) run ./orchestrator/cmd/bench $(BENCH_FLAGS)

clean:
	rm -rf bin data
