# ddmtui — common tasks. `make test` is what CI runs (see .ci/run).
GO        ?= go
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS   := -s -w -X github.com/ddmtui/ddmtui/cli.Version=$(VERSION) -X github.com/ddmtui/ddmtui/cli.Commit=$(COMMIT)
DIST      ?= dist
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64
FUZZTIME  ?= 5s
BENCHTIME ?= 1s

.PHONY: all build dist man test check vet staticcheck fmt race bench fuzz-smoke fuzz mutation soak demo sim clean


all: build

## build: a static binary at ./ddmtui
build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o ddmtui .

## dist: static release binaries for every platform in PLATFORMS, with SHA256SUMS, in DIST/
dist:
	rm -rf $(DIST) && mkdir -p $(DIST)
	for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '$(LDFLAGS)' \
			-o $(DIST)/ddmtui-$(VERSION)-$$os-$$arch . || exit 1; \
	done
	cd $(DIST) && sha256sum ddmtui-* > SHA256SUMS

## man: the manual page, generated from the command definitions, at ./ddmtui.1
man:
	$(GO) run . man > ddmtui.1

## test: formatting, vet, and every test with the race detector
test: check
	$(GO) test -race -count=1 ./...

check: fmt vet staticcheck

fmt:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

## staticcheck: honnef.co/go/tools, pinned here (go run fetches that version once)
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
staticcheck:
	$(GO) run $(STATICCHECK) ./...

## bench: every Go benchmark, once, with allocation figures
bench:
	$(GO) test -run='^$$' -bench=. -benchmem -benchtime=$(BENCHTIME) ./...

## fuzz-smoke: every fuzz target for FUZZTIME (default 5s); FUZZTIME=30s for the full check
fuzz-smoke:
	FUZZTIME=$(FUZZTIME) ./scripts/fuzz.sh

fuzz: fuzz-smoke

## mutation: mutation testing (gremlins) of the decoding and analysing packages, kill rate per package; MIN=90 to gate
mutation:
	MIN=$(MIN) ./scripts/mutation.sh

## soak: the reliability suite (hostile endpoints beside healthy VMs, churn, debugger abuse; peak RSS
## and healthy VMs per phase, see docs/RELIABILITY.md); SOAK_PHASE=30s for longer phases, SOAK_ONLY=WORD for
## the phases naming WORD. Not in `make test`.
SOAK_PHASE ?= 8s
soak:
	SOAK_PHASE=$(SOAK_PHASE) $(GO) test -tags soak -run TestSoak -count=1 -timeout 30m -v ./testkit/soak/

## demo: the dashboard on the built-in simulated device
demo:
	$(GO) run . demo

## sim: five simulated VMs on local ports 8000-8004 until interrupted
sim:
	$(GO) run . sim --local 8000 --vms 5

clean:
	rm -rf ddmtui ddmtui.1 $(DIST)
