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

.PHONY: all run build cli sim test test-quick test-windows cross bench lint deps tour screenshots screenshots-docs package package-windows clean soak

all: build

deps:
	@scripts/deps.sh build

# scripts/gobuild.sh says what the build is doing while it does (each
# package as it compiles, a line every 30 s during a long cgo one): a first
# build is minutes of compiling Fyne's and go-nvml's C code.
build: deps
	@GO='$(GO)' scripts/gobuild.sh $(BIN)/rigbench ./cmd/rigbench -ldflags='$(LDFLAGS)'
	@GO='$(GO)' scripts/gobuild.sh $(BIN)/rigbench-cli ./cmd/rigbench-cli -ldflags='$(LDFLAGS)'
	CGO_ENABLED=0 $(GO) build -o $(BIN)/rigbench-sim ./cmd/rigbench-sim

cli: deps
	@GO='$(GO)' scripts/gobuild.sh $(BIN)/rigbench-cli ./cmd/rigbench-cli -ldflags='$(LDFLAGS)'

sim:
	CGO_ENABLED=0 $(GO) build -o $(BIN)/rigbench-sim ./cmd/rigbench-sim

run: build
	$(BIN)/rigbench

# Windows and macOS (issue 43). The CLI cross-builds without cgo for
# Windows x64 and macOS (arm64 and amd64); the app for Windows x64 with
# Debian's mingw-w64 for Fyne's cgo. The app for macOS is not built here:
# Fyne's GLFW and Cocoa driver is cgo against the macOS SDK, which only a
# Mac's Xcode has (build it there with `make build`), and without cgo
# Fyne's own widgets do not compile for darwin (isScrollerPageOnTap is in a
# cgo file). What can be checked is: every package that does not import
# Fyne is vetted with GOOS=darwin, the CLI among them.
WIN_CC ?= x86_64-w64-mingw32-gcc
CROSS  ?= $(BIN)/cross
# The packages whose tests run as Windows binaries under Wine
# (scripts/wine-test.sh, -short): the run document, the reports, the
# history on real SQLite (modernc, pure Go), safefile, the client against
# the in-process simulator, and the small platform packages; plus
# engine/tune's sweep lock, engine/docker's owner processes and the CLI's
# journeys (scripts/windows-e2e.sh).
# Not run under Wine, and why:
#   engine/docker (but its owner-process tests, which run), engine/session,
#     engine/rig (but which SSH agent Windows asks): they start containers
#     in the Docker daemon and sshd on loopback; a Windows binary under Wine
#     reaches neither (Docker Desktop's named pipe does not exist here), and
#     go-winio's named-pipe dial hangs under Wine 8, so the agent's pipe is
#     not dialled.
#   engine/bench, engine/sim, engine/predict: their tests hold the simulator
#     to wall-clock ground truth; under Wine on two shared cores they would
#     measure the emulation, not RigBench (their logic is the same Go on
#     every platform and runs in the Linux passes).
#   ui/...: Fyne's cgo (OpenGL) test binary would need mingw's link and
#     OpenGL under Wine without a display; the app's Windows build is
#     checked by make cross.
#   cmd/rigbench-cli's own tests: they build and start Linux binaries (and
#     run as another user); scripts/windows-e2e.sh runs the Windows CLI's
#     journeys instead.
#   cmd/rigbench-soak: Linux-only (kill -9, SIGTERM, a full tmpfs); not
#     vetted for Windows either.
WINE_PKGS ?= ./engine/rundoc ./engine/report ./store ./internal/safefile ./internal/cputime ./internal/homedir ./engine/client

cross:
	@scripts/deps.sh cross
	@echo ">> the CLI for Windows x64 and macOS arm64/amd64 (no cgo), in $(CROSS)"
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) build -o $(CROSS)/windows-amd64/rigbench-cli.exe ./cmd/rigbench-cli
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) build -o $(CROSS)/darwin-arm64/rigbench-cli ./cmd/rigbench-cli
	GOOS=darwin GOARCH=amd64 CGO_ENABLED=0 $(GO) build -o $(CROSS)/darwin-amd64/rigbench-cli ./cmd/rigbench-cli
	@echo ">> the app for Windows x64 (Fyne's cgo through $(WIN_CC); a first build is minutes)"
	GOOS=windows GOARCH=amd64 CGO_ENABLED=1 CC=$(WIN_CC) $(GO) build -ldflags=-H=windowsgui -o $(CROSS)/windows-amd64/rigbench.exe ./cmd/rigbench
	@echo ">> go vet for Windows: every package but the app (built above; vet would need cgo) and the Linux-only soak tool"
	GOOS=windows GOARCH=amd64 CGO_ENABLED=0 $(GO) vet $$(GOOS=windows CGO_ENABLED=0 $(GO) list ./... 2>/dev/null | grep -v -e '/cmd/rigbench$$' -e '/cmd/rigbench-soak$$')
	@echo ">> go vet for macOS: every package that does not import Fyne, nor its tests (cmd/rigbench-cli's agree with the app's views; it was built above). The app needs a Mac's toolchain, see above"
	GOOS=darwin GOARCH=arm64 CGO_ENABLED=0 $(GO) vet $$(GOOS=darwin CGO_ENABLED=0 $(GO) list -e -f '{{if not (or .Error .DepsErrors)}}{{.ImportPath}} {{join .Deps " "}} {{join .TestImports " "}} {{join .XTestImports " "}}{{end}}' ./... 2>/dev/null | grep -v -e 'fyne.io/fyne' -e 'rigbench/ui' | cut -d' ' -f1)

# The Windows pass of make test: WINE_PKGS' tests as Windows binaries under
# Wine, tune's lock, docker's owner processes, rig's agent choice, and the
# CLI's journeys.
# Measured on the 2-core VM (warm build cache, load 5): 1 min 49 s, of
# which the CLI's journeys take about 40 s. make cross takes 5 s on a warm
# cache; its first build of the Windows app compiles Fyne's C code with
# mingw, 8 min 55 s on the same VM under load (once per build cache).
test-windows:
	@scripts/deps.sh test
	GO='$(GO)' scripts/wine-test.sh $(WINE_PKGS)

# The test files `go test -race` leaves out without a word (//go:build
# !race): the app's journeys (Fyne's test driver runs fyne.Do inline, which
# the race detector flags) and the simulator's timing tests (the detector
# slows them past their ground truth). Passes 2 and 3 of `make test` run
# them without -race; scripts/check-test-split.sh fails the build when one
# of them is run by no pass.
NORACE_FILES := $(shell grep -rlE --include='*_test.go' '^//go:build !race$$' . 2>/dev/null | sed 's|^\./||' | sort)
NORACE_PKGS  := $(patsubst %/,./%,$(sort $(dir $(NORACE_FILES))))

test:
	@scripts/deps.sh test
	@echo ">> every test file tagged !race is run by a pass without -race (scripts/check-test-split.sh)"
	@scripts/check-test-split.sh
	@echo ">> go vet"
	$(GO) vet ./...
	@echo ">> pass 1 of 3: go test -race, every package. The race detector leaves out the $(words $(NORACE_FILES)) test files tagged !race, in $(NORACE_PKGS): passes 2 and 3 run them"
	$(GO) test $(TESTFLAGS) ./...
	@echo ">> pass 2 of 3, without -race: ./ui/..., the app's journey tests ($(filter ./ui%,$(NORACE_PKGS))'s !race files; Fyne's test driver runs fyne.Do inline, which the race detector flags)"
	$(GO) test -count=1 ./ui/...
	@echo ">> pass 3 of 3, without -race: ./engine/bench's TestReferenceRun and TestWindowLengthDoesNotMatter, the simulator against the published RTX 3060 run and steady-state windows against its ground truth (about 5 minutes; timing-sensitive). Its third !race test, TestAdaptiveMatrix, is make bench's"
	$(GO) test -count=1 -timeout 15m -run 'TestReferenceRun|TestWindowLengthDoesNotMatter' -v ./engine/bench
	@echo ">> and ./engine/predict's !race tests: predictions against measured demo runs of every simulator profile (about 3 minutes; timing-sensitive)"
	$(GO) test -count=1 -timeout 15m ./engine/predict
	@echo ">> Windows and macOS: cross-builds and vet (make cross), then the Windows tests under Wine (make test-windows)"
	@$(MAKE) --no-print-directory cross test-windows GO='$(GO)'

# The fast part of the suite, for a first check of a change: every package
# once, without -race and with -short, which skips the tests that take
# minutes, start containers in the Docker daemon or hold the simulator to
# wall-clock timings (each says why it skips; go test -short -v lists them).
# Under 3 minutes on a warm build cache; `make test` is still the gate.
test-quick:
	@scripts/deps.sh test
	@scripts/check-test-split.sh
	@echo ">> go test -short, every package without -race: skips the long, Docker and wall-clock timing tests (make test runs them)"
	$(GO) test -short -count=1 -timeout 10m ./...

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
	@scripts/check-test-split.sh
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

# The app for Windows: build/RigBench.exe, with the icon, name, app id and
# version of FyneApp.toml embedded (fyne package --target windows,
# cross-compiled with $(WIN_CC)). It is one file: copy it anywhere and run
# it; Docker Desktop (WSL 2 engine) launches vLLM. fyne reads FyneApp.toml
# beside the main package, so a copy with the icon's path made relative to
# cmd/rigbench is put there and removed after (fyne bumps its Build): the
# checkout is left as it was, as by make package. CGO_ENABLED=0 is the
# fyne tool's own build (pure Go, for this machine); fyne turns cgo on for
# the app's build, which takes CC from the environment.
package-windows:
	@scripts/deps.sh cross
	sed 's|^Icon *= *"\(.*\)"|Icon = "../../\1"|' FyneApp.toml > cmd/rigbench/FyneApp.toml
	cd cmd/rigbench && CGO_ENABLED=0 CC=$(WIN_CC) $(FYNE) package --target windows --release; s=$$?; rm -f FyneApp.toml; exit $$s
	mkdir -p build
	mv cmd/rigbench/RigBench.exe build/RigBench.exe
	@echo ">> build/RigBench.exe: the app for Windows x64"

clean:
	rm -rf $(BIN) build
