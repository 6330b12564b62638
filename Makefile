# ddmtui — common tasks. `make test` is what CI runs (see .ci/run).
GO        ?= go
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X github.com/ddmtui/ddmtui/cli.Version=$(VERSION)
FUZZTIME  ?= 5s
BENCHTIME ?= 1s

.PHONY: all build test check vet fmt race bench fuzz-smoke fuzz soak demo sim clean

all: build

## build: a static binary at ./ddmtui
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o ddmtui .

## test: formatting, vet, and every test with the race detector
test: check
	$(GO) test -race -count=1 ./...

check: fmt vet

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

## bench: every Go benchmark, once, with allocation figures
bench:
	$(GO) test -run='^$$' -bench=. -benchmem -benchtime=$(BENCHTIME) ./...

## fuzz-smoke: every fuzz target for FUZZTIME (default 5s); FUZZTIME=30s for the full check
fuzz-smoke:
	FUZZTIME=$(FUZZTIME) ./scripts/fuzz.sh

fuzz: fuzz-smoke

## soak: the reliability suite (hostile endpoints beside healthy VMs, churn, debugger abuse; peak RSS
## and healthy VMs per phase, see docs/RELIABILITY.md); SOAK_PHASE=30s for longer phases. Not in `make test`.
SOAK_PHASE ?= 8s
soak:
	SOAK_PHASE=$(SOAK_PHASE) $(GO) test -tags soak -run TestSoak -count=1 -timeout 30m -v ./internal/soak/

## demo: the dashboard on the built-in simulated device
demo:
	$(GO) run . demo

## sim: five simulated VMs on local ports 8000-8004 until interrupted
sim:
	$(GO) run . sim --local 8000 --vms 5

clean:
	rm -f ddmtui
