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

.PHONY: build run test test-short deps bench fuzz vet fmt clean

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
# fuzzing run of the query parser and of the PDF reader of file targets.
test: deps vet
	$(GO) test -race -count=1 -timeout 40m ./...
	$(GO) test -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=20s ./orchestrator/query/
	$(GO) test -run='^$$' -fuzz='^FuzzPDFInfo$$' -fuzztime=10s ./orchestrator/meta/

test-short:
	$(GO) test -short -count=1 ./...

bench: build
	./.ci/deps.sh bench
	$(GO) run ./orchestrator/cmd/bench $(BENCH_FLAGS)

clean:
	rm -rf bin data
