# evalrun — build, test, benchmark, fuzz and demo targets.
GO          ?= go
BIN         ?= bin/evalrun
# A count, not a duration: duration-bounded fuzzing can end with a spurious
# "context deadline exceeded" in the Go 1.26 fuzz coordinator.
FUZZTIME    ?= 200000x
# The targets that write a plan's files (with fsync) on every execution run
# this many, and minimize a new input for at most FUZZMINIMIZE.
FUZZTIME_FILES ?= 5000x
FUZZMINIMIZE   ?= 10s
BENCHTIME   ?= 1s
STATICCHECK_VERSION ?= v0.8.2
GOBIN_DIR   := $(shell $(GO) env GOPATH)/bin

.PHONY: all build build-temporal test test-temporal bench-temporal lint vet fmt-check staticcheck gotest bench bench-retrieval fuzz demo clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/evalrun

## build-temporal: evalrun with the Temporal commands (docs/temporal.md).
build-temporal:
	$(GO) build -tags temporal -o $(BIN) ./cmd/evalrun

## test: formatting, vet, staticcheck (when it can be installed) and the race-enabled test suite.
test: fmt-check vet staticcheck gotest

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	@echo "gofmt: ok"

vet:
	$(GO) vet ./...

# staticcheck is installed from the Go module proxy; where that is not
# reachable the check is skipped with a notice rather than failing the build.
staticcheck:
	@if ! [ -x "$(GOBIN_DIR)/staticcheck" ]; then \
		$(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) >/dev/null 2>&1 || true; \
	fi; \
	if [ -x "$(GOBIN_DIR)/staticcheck" ]; then \
		"$(GOBIN_DIR)/staticcheck" ./... && echo "staticcheck: ok"; \
	else \
		echo "staticcheck: not installable here, skipped"; \
	fi

gotest:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || command -v google-chrome >/dev/null 2>&1 || \
		echo "serve: browser tests skipped: Chromium not found (install it: apt-get install -y chromium)"
	$(GO) test -race -count=1 ./...
	$(GO) test -count=1 -run 'TenThousand' ./serve/

## test-temporal: vet and the tests of the files behind the temporal build
## tag (the engine's and the CLI's Temporal parts; docs/temporal.md), then
## the end-to-end tests on a real Temporal server (the module temporal/e2e).
test-temporal:
	$(GO) vet -tags temporal ./engine/ ./cmd/evalrun/ ./temporal/
	$(GO) test -tags temporal -count=1 ./engine/ ./cmd/evalrun/ ./temporal/
	cd temporal/e2e && $(GO) vet ./... && $(GO) test -count=1 ./...

## bench-temporal: evalrun on a real Temporal server against a local run
## (100 calls, 1 and 2 workers; the figures of docs/temporal.md).
bench-temporal:
	cd temporal/e2e && $(GO) test -run '^$$' -bench TemporalOverhead -benchtime 3x .

## bench: every Go benchmark; the README's figures come from this output.
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./...
	cd bench/starlark && $(GO) run .

## bench-retrieval: the retrieval benchmark of docs/retrieval.md (recall of
## the plain BM25, content and metadata rankings on GOROOT/src and the Python
## standard library) and the whole-process latency of evalrun context.
bench-retrieval:
	$(GO) test -run '^$$' -bench 'Retrieval' -benchtime 1x -v ./memory/
	$(GO) test -run '^$$' -bench 'ContextProcess' -benchtime 40x ./cmd/evalrun/

## fuzz: run each fuzz target for FUZZTIME executions (FUZZTIME_FILES for
## the plan's FuzzLoadTask, which writes files).
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
		for target in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
			n=$(FUZZTIME); m=60s; case $$target in FuzzLoadTask) n=$(FUZZTIME_FILES); m=$(FUZZMINIMIZE);; esac; \
			echo "== $$pkg $$target"; \
			$(GO) test -run '^$$' -fuzz "^$$target$$" -fuzztime $$n -fuzzminimizetime $$m $$pkg; \
		done; \
	done

## demo: the offline demo (examples/demo.sh): recorded workflows replayed
## from a cassette (a diff review fanned out and merged, the run tree, a
## resumed run, a retrieval-backed question), then the single-file language
## examples on the echo provider; everything runs in temporary copies.
demo: build
	./examples/demo.sh $(BIN)

clean:
	rm -rf bin
