# Lets — `make run` starts the app, `make test` runs every test.
# Both install what they need first (idempotent, quick when present).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
GO ?= go
export PATH := $(PATH):/usr/local/go/bin:$(HOME)/go/bin

# What `make run` needs, and nothing else: gcc and g++ for cgo (the MIDI
# driver, rtmidi, is C++), pkg-config, GTK 3 and WebKitGTK 4.1 for the
# native windows (Wails, built with GUI_TAGS), ALSA for MIDI, and git, which
# `lets install` runs. app/cli/doctor.go tells end users the runtime side of the
# same list.
RUN_APT_PACKAGES := gcc g++ pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev libasound2-dev git
# What `make test` adds: chromium for the browser tests (chromedp) and
# python3 for the runner's python language, desktop-file-utils for the
# package test (desktop-file-validate), and for the real native window
# under a virtual display: xvfb (Xvfb), x11-utils (xwininfo), imagemagick
# (import, the screenshot) and dbus-daemon (dbus-run-session). Node.js (the node:test
# TypeScript tests, the runner's javascript, tsc) is installed by command,
# not by package name, so a NodeSource nodejs that ships npm is left alone.
# app/cli/doctor_test.go checks that every package here has a user.
TEST_APT_PACKAGES := chromium python3 desktop-file-utils xvfb x11-utils imagemagick dbus-daemon dunst openbox wmctrl xfce4-panel
GUI_TAGS := desktop,production,webkit2_41
BIN := build/bin/lets
CORE_BIN := build/bin/lets-core
WINDOW_BIN := build/bin/lets-window
# The `lets` front (app/front): answers `lets hook` itself and hands every
# other command to lets-core. Built without cgo, it starts in about 10 ms.
FRONT_PKG := ./app/front/lets
# The version `make package` stamps into the binary and the .deb.
PACKAGE_VERSION := $(shell sed -n 's/.*"productVersion": *"\([^"]*\)".*/\1/p' wails.json)

# The TypeScript checker, pinned, installed into a gitignored tool folder.
TOOLS := build/tools
TYPESCRIPT_VERSION := 5.9.3
NODE_TYPES_VERSION := 20.19.43
# The accessibility engine the browser tests run in every page (issue #26;
# backend/testenv/axe finds it in build/tools/node_modules/axe-core).
AXE_CORE_VERSION := 4.14.1
# Inside node_modules, so removing that folder also forgets the install.
TOOLS_STAMP := $(TOOLS)/node_modules/.lets-typescript-$(TYPESCRIPT_VERSION)-types-node-$(NODE_TYPES_VERSION)-axe-core-$(AXE_CORE_VERSION)
TSC := $(TOOLS)/node_modules/.bin/tsc
TSCONFIGS := shell/tsconfig.json shell/tsconfig.test.json frontend/tsconfig.json frontend/tsconfig.test.json uniques/_graph/tsconfig.json uniques/_graph/tsconfig.test.json
# staticcheck, pinned, built from the Go module proxy into the same ignored
# folder. Its error-string check (ST1005) is off: our errors begin with the
# product's name, "Lets …", which is a proper noun, not a capital by mistake.
STATICCHECK_VERSION := v0.8.2
STATICCHECK := $(TOOLS)/bin/staticcheck
STATICCHECK_STAMP := $(TOOLS)/bin/.staticcheck-$(STATICCHECK_VERSION)
STATICCHECK_CHECKS := inherit,-ST1005
# Real Claude Code and the real MCP client for the offline end-to-end tests
# (issue #13), pinned, in their own npm prefix under the same ignored folder.
# backend/testenv/testutil finds them there (testutil.Claude, testutil.MCPSDK).
CLAUDE_TOOLS := $(TOOLS)/claude
CLAUDE_CODE_VERSION := 2.1.332
MCP_SDK_VERSION := 1.32.2
CLAUDE_TOOLS_STAMP := $(CLAUDE_TOOLS)/node_modules/.lets-claude-code-$(CLAUDE_CODE_VERSION)-mcp-sdk-$(MCP_SDK_VERSION)
# The real Codex CLI for its offline end-to-end tests (issue #25), pinned, in
# its own npm prefix (backend/testenv/testutil.Codex finds it there).
CODEX_TOOLS := $(TOOLS)/codex
CODEX_VERSION := 0.169.0
CODEX_TOOLS_STAMP := $(CODEX_TOOLS)/node_modules/.lets-codex-$(CODEX_VERSION)

# A test that cannot run (no ../shared, no chromium, no 127.0.0.2, …) fails
# with the reason under these, instead of skipping: see backend/testenv/testutil.
TEST_ENV := LETS_REQUIRE_TOOLS=1 LETS_REQUIRE_SHARED=1

# Every package whose code or tests start goroutines, run again under the
# race detector, browser tests included (their wall-clock timing checks are
# benchmarks, not tests). backend/testenv/testutil's
# TestRaceCoversEveryPackageWithGoroutines fails when a package that starts
# goroutines is missing here. One exception, named in that test: the
# command line, app/cli. Its own code and tests pass under -race, but its desktop
# tests run Lets' tray, and fyne.io/systray v1.12.2 (the newest) has a data
# race of its own (the menu version is written under one lock and read
# under another), which fails the race-built Lets those tests start. The
# process package, app/lets, is covered: its own tests do not start the tray.
RACE_PACKAGES := ./app/lets/... ./app/notify/... ./app/tray/... ./app/window/... ./backend/... ./frontend/... ./shell/... ./uniques/...
# A count, not a duration: duration-based -fuzztime hits a race in Go 1.26's fuzz
# coordinator (golang/go#75804) that fails runs with "context deadline exceeded".
FUZZTIME ?= 20000x
TEST_TIMEOUT ?= 20m

.PHONY: all run build deps deps-test go-deps tools codex-tools staticcheck-tool generate generate-check lint vet staticcheck tsc \
	test unit race bench-once fuzz bench clean package

all: build

## run: install what is needed, build, and start Lets
run: deps build
	./$(BIN)

## build: the app, three programs side by side: lets (a small front that
## runs `lets hook` itself, as Claude Code runs it on every tool call, and
## hands every other command to lets-core), lets-core (the whole app,
## without the desktop tags, so commands start fast) and lets-window (the
## native windows, with the desktop tags: GTK and WebKit)
build: go-deps
	$(GO) build -o $(CORE_BIN) .
	CGO_ENABLED=0 $(GO) build -o $(BIN) $(FRONT_PKG)
	$(GO) build -tags $(GUI_TAGS) -o $(WINDOW_BIN) .
	@echo "Built $(BIN), $(CORE_BIN) and $(WINDOW_BIN)"

# apt_install installs the Debian packages in $(1) that are missing (via sudo
# when not root); $(2) is added to the list as is (programs found missing).
define apt_install
	missing="$(2)"; \
	for p in $(1); do \
	  dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	missing=$$(echo $$missing); \
	if [ -n "$$missing" ]; then \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO="sudo"; \
	  echo "Installing system packages: $$missing (this happens once)"; \
	  $$SUDO apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	else \
	  echo "System packages: all present ($(strip $(1)))."; \
	fi
endef

## deps: what building and running needs (apt via sudo when not root, Go modules)
deps:
	@command -v $(GO) >/dev/null || { echo "Go is not installed. Install Go 1.26 or newer from your package manager or go.dev, then run make again."; exit 1; }
	@$(call apt_install,$(RUN_APT_PACKAGES),)
	@$(MAKE) --no-print-directory go-deps

## deps-test: deps plus what the tests add (Chromium, Python, Node.js, tsc,
## Claude Code and the MCP SDK)
deps-test: deps
	@node=""; command -v node >/dev/null || node="nodejs"; \
	command -v npm >/dev/null || node="$$node npm"; \
	$(call apt_install,$(TEST_APT_PACKAGES),$$node)
	@$(MAKE) --no-print-directory tools claude-tools codex-tools staticcheck-tool

go-deps:
	@$(GO) mod download

## tools: the pinned TypeScript checker and axe-core in build/tools (npm; once per version)
tools: $(TOOLS_STAMP)

$(TOOLS_STAMP):
	@command -v npm >/dev/null || { echo "npm is missing: run \`make deps-test\` (it installs Node.js and npm)."; exit 1; }
	rm -rf $(TOOLS)/node_modules
	mkdir -p $(TOOLS)
	npm install --prefix $(TOOLS) --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
		typescript@$(TYPESCRIPT_VERSION) @types/node@$(NODE_TYPES_VERSION) axe-core@$(AXE_CORE_VERSION)
	touch $@

## staticcheck-tool: the pinned staticcheck in build/tools/bin (Go module
## proxy; once per version)
staticcheck-tool: $(STATICCHECK_STAMP)

$(STATICCHECK_STAMP):
	@echo "Building staticcheck $(STATICCHECK_VERSION) into $(TOOLS)/bin (this happens once)"
	mkdir -p $(TOOLS)/bin
	GOBIN=$(CURDIR)/$(TOOLS)/bin $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	touch $@

## claude-tools: Claude Code and the MCP TypeScript SDK, pinned, in
## build/tools/claude (npm; once per version) for the end-to-end tests
claude-tools: $(CLAUDE_TOOLS_STAMP)

$(CLAUDE_TOOLS_STAMP):
	@command -v npm >/dev/null || { echo "npm is missing: run \`make deps-test\` (it installs Node.js and npm)."; exit 1; }
	rm -rf $(CLAUDE_TOOLS)/node_modules
	mkdir -p $(CLAUDE_TOOLS)
	npm install --prefix $(CLAUDE_TOOLS) --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
		@anthropic-ai/claude-code@$(CLAUDE_CODE_VERSION) @modelcontextprotocol/sdk@$(MCP_SDK_VERSION)
	DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 $(CLAUDE_TOOLS)/node_modules/.bin/claude --version
	touch $@

## codex-tools: the Codex CLI, pinned, in build/tools/codex (npm; once per
## version) for the end-to-end tests
codex-tools: $(CODEX_TOOLS_STAMP)

$(CODEX_TOOLS_STAMP):
	@command -v npm >/dev/null || { echo "npm is missing: run \`make deps-test\` (it installs Node.js and npm)."; exit 1; }
	rm -rf $(CODEX_TOOLS)/node_modules
	mkdir -p $(CODEX_TOOLS)
	npm install --prefix $(CODEX_TOOLS) --no-save --no-package-lock --no-audit --no-fund --loglevel=error @openai/codex@$(CODEX_VERSION)
	$(CODEX_TOOLS)/node_modules/.bin/codex --version
	touch $@

## generate: rebuild shell/dist and frontend/dist from TypeScript (esbuild Go API)
generate:
	$(GO) generate ./...

## generate-check: fail when a committed bundle differs from a fresh build
generate-check:
	$(GO) test -count=1 -run 'TestCommittedBundlesAreFresh' ./app/internal/bundler/

lint: vet staticcheck
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	@echo "gofmt: clean"

vet:
	$(GO) vet ./...

staticcheck: staticcheck-tool
	$(STATICCHECK) -checks '$(STATICCHECK_CHECKS)' ./...
	@echo "staticcheck: clean"

## tsc: type-check the TypeScript (strict; the product and its node:test files)
tsc: tools
	@for c in $(TSCONFIGS); do \
	  echo "tsc --noEmit -p $$c"; \
	  $(TSC) --noEmit -p "$$c"; \
	done
	@echo "tsc: no type errors"

## test: set-up, bundle check, lint, types, all tests, race, benchmarks once, fuzz
test: deps-test generate-check lint tsc unit race bench-once fuzz
	@echo "make test: all passed"

unit:
	$(TEST_ENV) $(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./...

## race: the concurrent packages again under the race detector
race:
	$(TEST_ENV) $(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) $(RACE_PACKAGES)

## bench-once: every benchmark for one iteration, so none can rot (one
## package at a time: some check timing and must not share the CPU)
bench-once:
	$(TEST_ENV) $(GO) test -p 1 -count=1 -run '^$$' -bench . -benchtime 1x -timeout $(TEST_TIMEOUT) ./...

## fuzz: run each fuzz target for FUZZTIME executions (default 20000x)
fuzz:
	@targets=$$(grep -rl --include='*_test.go' '^func Fuzz' . | sort); \
	count=0; \
	for f in $$targets; do \
	  dir=$$(dirname "$$f"); \
	  for name in $$(grep -oE '^func Fuzz[A-Za-z0-9_]+' "$$f" | sed 's/^func //'); do \
	    echo "fuzz $$dir $$name ($(FUZZTIME))"; \
	    $(TEST_ENV) $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) "./$$dir" > /tmp/lets-fuzz.log 2>&1 || { cat /tmp/lets-fuzz.log; exit 1; }; \
	    count=$$((count+1)); \
	  done; \
	done; \
	echo "fuzz: $$count targets ran without finding a failure"

## bench: every benchmark, with allocations, holding their timing budgets
## (LETS_BENCH_BUDGETS=1: run it on a quiet machine)
bench:
	LETS_BENCH_BUDGETS=1 $(GO) test -run '^$$' -bench . -benchmem -timeout 30m ./...

## package: a Debian package (build/bin/lets_<version>_<arch>.deb) with the
## binary, the desktop entry and the icons; the version is wails.json's
package: go-deps
	@command -v dpkg-deb >/dev/null || { echo "dpkg-deb is missing: make package needs Debian's dpkg."; exit 1; }
	$(GO) build -ldflags "-X github.com/lets-app/lets/app/cli.Version=$(PACKAGE_VERSION)" -o build/bin/package/lets-core .
	CGO_ENABLED=0 $(GO) build -o build/bin/package/lets $(FRONT_PKG)
	$(GO) build -tags $(GUI_TAGS) -ldflags "-X github.com/lets-app/lets/app/cli.Version=$(PACKAGE_VERSION)" -o build/bin/package/lets-window .
	build/linux/package.sh build/bin/package/lets $(PACKAGE_VERSION) build/bin/lets_$(PACKAGE_VERSION)_$$(dpkg --print-architecture).deb

clean:
	rm -rf build/bin $(TOOLS)
