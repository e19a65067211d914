# glimpse: `make run` starts the embedded default, `make test` installs what
# the tests need (once, cached) and runs every test.
SHELL := /bin/bash
GO ?= go
CACHE_BIN := $(or $(GLIMPSE_CACHE),$(HOME)/.cache/glimpse)/bin
export GLIMPSE_MINIO_BIN ?= $(CACHE_BIN)/minio
export GLIMPSE_HELM_BIN ?= $(CACHE_BIN)/helm
export PATH := $(CACHE_BIN):$(PATH)

.PHONY: build run test test-short deps bench fuzz vet fmt clean

build:
	$(GO) build -o bin/orchestrator ./orchestrator/cmd/orchestrator
	$(GO) build -o bin/sidecar ./sidecar/cmd/sidecar

run: build
	@if [ -z "$$GLIMPSE_CHROME_PATH" ] && [ ! -x /usr/lib/chromium/chromium ] && ! command -v chromium >/dev/null; then \
	  echo "Chromium is missing: install it with 'apt-get install -y chromium' (or run 'make deps')"; exit 1; fi
	./bin/orchestrator

deps:
	./.ci/deps.sh

vet:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change: $$out"; exit 1; fi
	$(GO) vet ./...

# Every test, unit and integration, with the race detector; then a short
# fuzzing run of the query parser.
test: deps vet
	$(GO) test -race -count=1 -timeout 40m ./...
	$(GO) test -run='^$$' -fuzz=FuzzParseRequest -fuzztime=20s ./orchestrator/query/

test-short:
	$(GO) test -short -count=1 ./...

bench: build
	./.ci/deps.sh bench
	$(GO) run ./orchestrator/cmd/bench $(BENCH_FLAGS)

clean:
	rm -rf bin data
