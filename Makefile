# Lets — `make run` starts the app, `make test` runs every test.
# Both install what they need first (idempotent, quick when present).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
GO ?= go
export PATH := $(PATH):/usr/local/go/bin:$(HOME)/go/bin

# System packages for windows (GTK/WebKit), MIDI (ALSA), and the real parts
# tests start: Xvfb and DBus for windows and the tray, Chromium for pages.
APT_PACKAGES := libgtk-3-dev libwebkit2gtk-4.1-dev libasound2-dev pkg-config gcc \
	xvfb dbus dbus-x11 chromium imagemagick x11-utils git
GUI_TAGS := desktop,production,webkit2_41
BIN := build/bin/lets
# A count, not a duration: duration-based -fuzztime hits a race in Go 1.26's fuzz
# coordinator (golang/go#75804) that fails runs with "context deadline exceeded".
FUZZTIME ?= 20000x
TEST_TIMEOUT ?= 20m

# Tests that need ../shared must find it when it is there (CI has it).
ifneq ($(wildcard ../shared/conformance),)
export LETS_REQUIRE_SHARED := 1
endif

.PHONY: all run build deps go-deps generate generate-check lint vet test unit fuzz bench clean

all: build

## run: install what is needed, build, and start Lets
run: deps build
	./$(BIN)

## build: the app binary with the desktop build tags
build: go-deps
	$(GO) build -tags $(GUI_TAGS) -o $(BIN) .
	@echo "Built $(BIN)"

## deps: system packages (apt, via sudo when not root), Node.js, Go modules
deps:
	@command -v $(GO) >/dev/null || { echo "Go is not installed. Install Go 1.26 or newer from your package manager or go.dev, then run make again."; exit 1; }
	@missing=""; \
	for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	command -v node >/dev/null || missing="$$missing nodejs"; \
	if [ -n "$$missing" ]; then \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO="sudo"; \
	  echo "Installing system packages:$$missing (this happens once)"; \
	  $$SUDO apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	else \
	  echo "System packages: all present."; \
	fi
	@$(MAKE) --no-print-directory go-deps

go-deps:
	@$(GO) mod download

## generate: rebuild shell/dist and frontend/dist from TypeScript (esbuild Go API)
generate:
	$(GO) generate ./...

## generate-check: fail when a committed bundle differs from a fresh build
generate-check:
	$(GO) test -count=1 -run 'TestCommittedBundlesAreFresh' ./app/internal/bundler/

lint: vet
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	@echo "gofmt: clean"

vet:
	$(GO) vet ./...

## test: set-up, bundle check, vet, all tests, then every fuzz target briefly
test: deps generate-check lint unit fuzz
	@echo "make test: all passed"

unit:
	LETS_REQUIRE_TOOLS=1 $(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./...

## fuzz: run each fuzz target for FUZZTIME executions (default 20000x)
fuzz:
	@targets=$$(grep -rl --include='*_test.go' '^func Fuzz' . | sort); \
	count=0; \
	for f in $$targets; do \
	  dir=$$(dirname "$$f"); \
	  for name in $$(grep -oE '^func Fuzz[A-Za-z0-9_]+' "$$f" | sed 's/^func //'); do \
	    echo "fuzz $$dir $$name ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) "./$$dir" > /tmp/lets-fuzz.log 2>&1 || { cat /tmp/lets-fuzz.log; exit 1; }; \
	    count=$$((count+1)); \
	  done; \
	done; \
	echo "fuzz: $$count targets ran without finding a failure"

## bench: every benchmark, with allocations
bench:
	$(GO) test -run '^$$' -bench . -benchmem -timeout 30m ./...

clean:
	rm -rf build/bin
