# ddnn-planner: the one build/test entry point.
#
#   make serve   install tools, release build, serve dist/ on http://127.0.0.1:8080/
#   make build   install tools, release build into dist/
#   make test    install tools, fmt, clippy (native + wasm32), cargo test (native),
#                wasm tests in headless Chromium, release build, browser e2e tests
#   make dev     trunk serve (debug build, live reload) on http://127.0.0.1:8080/
#   make bench   native benchmarks (cargo bench) and the in-browser edit benchmark
#   make clean   remove target/, dist/ and e2e scratch files
#
# Every step prints a "==> step" header; any failing step stops make with a non-zero exit.

SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:
.NOTPARALLEL:
MAKEFLAGS += --no-builtin-rules --no-print-directory

ROOT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
WASM_TARGET := wasm32-unknown-unknown
HOST := 127.0.0.1
PORT := 8080

# node_modules/.bin comes first: Trunk must run the npm `binaryen` wasm-opt (version 132),
# not Debian bookworm's wasm-opt 108, which corrupts wasm-bindgen 0.2.130 output (it
# re-points the `__wbindgen_externrefs` table export at the funcref table, so the page
# dies with "WebAssembly.Table.set(): Argument 1 is invalid for table").
export PATH := $(ROOT)/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)
# ...and Trunk refuses any other wasm-opt version (offline, so it cannot download one).
export TRUNK_TOOLS_WASM_OPT ?= version_$(firstword $(subst ., ,$(shell node -p "require('$(ROOT)/package.json').devDependencies.binaryen" 2>/dev/null)))
# Trunk must not phone home for its own update check (Trunk.toml already sets offline).
export TRUNK_SKIP_VERSION_CHECK := true
# Asset paths are relative (Trunk.toml public_url = "./"), so dist/ works under
# any path; SERVE_BASE is only where `make serve` mounts it.
SERVE_BASE ?= /

# wasm-bindgen-test-runner: drive the Debian chromium through chromedriver, headless.
# The runner itself adds the Chrome args `headless`, `no-sandbox` and
# `disable-dev-shm-usage`; tests/webdriver.json adds the browser binary and the
# remaining flags (see the comment in the wasm-test recipe).
CHROMEDRIVER ?= /usr/bin/chromedriver
WASM_TEST_ENV := \
	CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
	CHROMEDRIVER=$(CHROMEDRIVER) \
	WASM_BINDGEN_TEST_WEBDRIVER_JSON=$(ROOT)/tests/webdriver.json \
	WASM_BINDGEN_TEST_TIMEOUT=120

# $(call step,Title) prints a header line.
step = @printf '\n==> %s\n' "$(1)"

.PHONY: help tools serve dev build release test fmt clippy clippy-native clippy-wasm \
        test-native test-wasm e2e bench clean

help:
	@sed -n '2,11p' $(firstword $(MAKEFILE_LIST)) | sed 's/^# \{0,1\}//'

tools:
	$(call step,install tools (.ci/install-tools))
	@$(ROOT)/.ci/install-tools

# ---------------------------------------------------------------------------- build

build: tools release

release:
	$(call step,trunk build --release (wasm-opt $(TRUNK_TOOLS_WASM_OPT)) -> dist/)
	trunk build --release
	@ls -la dist

serve: build
	$(call step,serve dist/ at http://$(HOST):$(PORT)$(SERVE_BASE))
	@echo "Open http://$(HOST):$(PORT)$(SERVE_BASE) in a browser (Ctrl-C stops the server)."
	node tests/e2e/server.mjs --dir dist --host $(HOST) --port $(PORT) --base $(SERVE_BASE)

dev: tools
	$(call step,trunk serve (debug, live reload) at http://$(HOST):$(PORT)/)
	trunk serve --address $(HOST) --port $(PORT)

# ---------------------------------------------------------------------------- test

test: tools fmt clippy-native clippy-wasm test-native test-wasm release e2e
	$(call step,all checks passed)

fmt:
	$(call step,cargo fmt --check)
	cargo fmt --all -- --check

clippy: clippy-native clippy-wasm

clippy-native:
	$(call step,cargo clippy (native) --all-targets -D warnings)
	cargo clippy --all-targets -- -D warnings

clippy-wasm:
	$(call step,cargo clippy --target $(WASM_TARGET) --all-targets -D warnings)
	cargo clippy --target $(WASM_TARGET) --all-targets -- -D warnings

test-native:
	$(call step,cargo test (native))
	cargo test

# wasm-bindgen-test-runner reads `webdriver.json` from the current directory, or the file
# named by WASM_BINDGEN_TEST_WEBDRIVER_JSON; it merges those capabilities with its own
# Chrome args (headless, no-sandbox, disable-dev-shm-usage). WASM_BINDGEN_USE_BROWSER=1
# runs tests in the browser even where a test file has no
# `wasm_bindgen_test_configure!(run_in_browser)`.
# chromedriver leaves a ~12 MB Chromium profile in $$TMPDIR per test binary, so the run
# gets its own TMPDIR, removed afterwards whatever the outcome.
WASM_TEST_TMP := $(ROOT)/target/wasm-test-tmp
test-wasm:
	$(call step,cargo test --target $(WASM_TARGET) --tests (headless Chromium via chromedriver))
	@rm -rf $(WASM_TEST_TMP) && mkdir -p $(WASM_TEST_TMP)
	status=0; TMPDIR=$(WASM_TEST_TMP) $(WASM_TEST_ENV) WASM_BINDGEN_USE_BROWSER=1 \
	  cargo test --target $(WASM_TARGET) --tests || status=$$?; \
	rm -rf $(WASM_TEST_TMP); exit $$status

e2e:
	$(call step,browser end-to-end tests (node tests/e2e/run.mjs on dist/))
	node tests/e2e/run.mjs
	$(call step,the same build served under a sub-path (/some/dir/): smoke and share specs)
	BASE_PATH=/some/dir/ node tests/e2e/run.mjs smoke share

# ---------------------------------------------------------------------------- misc

bench: tools
	$(call step,cargo bench --bench zeng (native timings))
	cargo bench --bench zeng
	cargo bench --bench cynthia
	$(call step,trunk build --release, then the in-browser edit benchmark)
	trunk build --release
	node tests/e2e/bench.mjs

clean:
	$(call step,clean)
	cargo clean
	rm -rf dist tests/e2e/.tmp
