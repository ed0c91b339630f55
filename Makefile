# RigBench: `make run` builds and opens the app, `make test` runs every test.
# Both install what they need first (Go modules through the Go toolchain;
# Debian/Ubuntu system packages through scripts/deps.sh when missing).

GO      ?= go
BIN     ?= bin
# Link lazily so the binaries start on machines with older NVIDIA drivers
# (NVML symbols resolve at first use, not at load).
LDFLAGS ?= -extldflags=-Wl,-z,lazy
TESTFLAGS ?= -race -count=1 -timeout 30m
# The fyne CLI of `make package`, run from the Go module proxy at a fixed
# version (nothing to install first).
FYNE    ?= $(GO) run fyne.io/tools/cmd/fyne@v1.7.4

.PHONY: all run build cli sim test bench lint deps tour screenshots screenshots-docs package clean soak

all: build

deps:
	@scripts/deps.sh build

build: deps
	$(GO) build -ldflags='$(LDFLAGS)' -o $(BIN)/rigbench ./cmd/rigbench
	$(GO) build -ldflags='$(LDFLAGS)' -o $(BIN)/rigbench-cli ./cmd/rigbench-cli
	CGO_ENABLED=0 $(GO) build -o $(BIN)/rigbench-sim ./cmd/rigbench-sim

cli: deps
	$(GO) build -ldflags='$(LDFLAGS)' -o $(BIN)/rigbench-cli ./cmd/rigbench-cli

sim:
	CGO_ENABLED=0 $(GO) build -o $(BIN)/rigbench-sim ./cmd/rigbench-sim

run: build
	$(BIN)/rigbench

test:
	@scripts/deps.sh test
	@echo ">> go vet"
	$(GO) vet ./...
	@echo ">> go test $(TESTFLAGS) ./..."
	$(GO) test $(TESTFLAGS) ./...
	@echo ">> the app's journey tests (Fyne's test driver runs fyne.Do inline, which the race detector flags, so without -race)"
	$(GO) test -count=1 ./ui/...
	@echo ">> the simulator against the published RTX 3060 run, and steady-state windows against its ground truth (about 5 minutes; timing-sensitive, so without -race)"
	$(GO) test -count=1 -timeout 15m -run 'TestReferenceRun|TestWindowLengthDoesNotMatter' -v ./engine/bench

bench: deps
	$(GO) test -run '^$$' -bench . -benchmem ./...
	@echo ">> adaptive windows against fixed 30 s ones on the default matrix, and the 95% interval's coverage over 100 noisy cells (issue 15; minutes)"
	$(GO) test -count=1 -timeout 30m -run 'TestAdaptiveMatrix|TestCoverage' -v ./engine/bench -adaptive-matrix -coverage-cells 100

# The reliability suite (a few minutes; README's Reliability section): kill -9,
# hostile servers, two launches, a full disk, a locked history, signals.
soak: cli
	$(GO) build -o $(BIN)/rigbench-soak ./cmd/rigbench-soak
	$(BIN)/rigbench-soak -cli $(BIN)/rigbench-cli

lint:
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1; }

# Screenshots go to build/screenshots (1280×800 and 900×600, light and
# dark); screenshots-docs replaces the ones the docs show. The tour is built
# only into its own binary (-tags tour, bin/rigbench-tour): it runs external
# programs to grab the screen, which the shipping app must not.
tour: deps
	$(GO) build -tags tour -ldflags='$(LDFLAGS)' -o $(BIN)/rigbench-tour ./cmd/rigbench

screenshots: tour
	@scripts/deps.sh screenshots
	RIGBENCH_BIN=$(BIN)/rigbench-tour scripts/screenshots.sh

screenshots-docs: tour
	@scripts/deps.sh screenshots
	DOCS=1 RIGBENCH_BIN=$(BIN)/rigbench-tour scripts/screenshots.sh

# A Linux desktop package: build/RigBench.tar.xz holds the app, its desktop
# entry and icon (name, app id, icon and categories from FyneApp.toml) and
# a Makefile: `make user-install` (~/.local) or `sudo make install`.
# fyne package bumps Build in FyneApp.toml; the file is put back after, so a
# package build leaves the checkout as it was.
package: build
	cp FyneApp.toml $(BIN)/FyneApp.toml.orig
	$(FYNE) package --target linux --exe $(BIN)/rigbench --release; s=$$?; cp $(BIN)/FyneApp.toml.orig FyneApp.toml; exit $$s
	mkdir -p build
	mv RigBench.tar.xz build/
	@echo ">> build/RigBench.tar.xz: unpack it and run 'make user-install' inside (or 'sudo make install')"

clean:
	rm -rf $(BIN) build
