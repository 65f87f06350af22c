# ddnn-planner: the one build/test entry point.
#
#   make serve   install tools, release build, serve dist/ on http://127.0.0.1:8080/
#   make build   install tools, release build into dist/
#   make test    install tools, fmt, clippy (native + wasm32), cargo test (native; it
#                replays every fuzz seed and finding), wasm tests in headless Chromium,
#                release build, JS package + its node test, browser e2e tests
#   make fuzz-smoke  every fuzz target 10 s, looking for new findings (.ci/run runs it
#                after make test: random inputs, so not part of the repeatable checks)
#   make fuzz    every fuzz target for 10 minutes or 10^6 runs (docs/reliability.md)
#   make js      the JS package for documentation pages (wasm-pack) into target/js-pkg
#   make test-js its node test (tests/js/node.test.mjs) on target/js-pkg
#   make dev     trunk serve (debug build, live reload) on http://127.0.0.1:8080/
#   make bench   benchmarks (native + in-browser) and the README's performance table
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
# Leptos type-erases every component's view (`--cfg erase_components`): the
# page's wasm is ~30 KB gzip smaller and its build faster, at the cost of one
# dynamic call per component. Every wasm32 build here (trunk, clippy, the wasm
# tests, wasm-pack) uses the same flags, so none rebuilds another's crates.
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS := --cfg erase_components
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
step = @printf '\n==> %s  [%s]\n' "$(1)" "$$(date +%T)"

.PHONY: help tools serve dev build release test fmt clippy clippy-native clippy-wasm \
        test-native fuzz-smoke fuzz test-wasm js test-js e2e bench clean

help:
	@sed -n '2,15p' $(firstword $(MAKEFILE_LIST)) | sed 's/^# \{0,1\}//'

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

# The JS package (src/js.rs, docs/js-package.md): one wasm-pack build, target web, which
# serves both node (initSync) and browsers. wasm-pack needs `crate-type = ["cdylib"]` in
# the manifest it builds, and a cdylib in Cargo.toml breaks every LTO build of the page
# for wasm32 ("failed to get bitcode from object file for LTO"), so this writes a copy of
# Cargo.toml for the same crate (src/lib.rs) as a cdylib, without the binaries, into
# target/js-crate and builds that, sharing target/. --mode no-install: wasm-pack never
# downloads a tool; it uses the wasm-bindgen-cli that .ci/install-tools put in ~/.cargo/bin
# (Cargo.lock's version) and node_modules/.bin/wasm-opt (binaryen 132, first on PATH).
JS_PKG := $(ROOT)/target/js-pkg
JS_CRATE := $(ROOT)/target/js-crate
js:
	$(call step,wasm-pack build (this crate as a cdylib, --features js) -> target/js-pkg)
	@[[ "$$(command -v wasm-opt)" == "$(ROOT)/node_modules/.bin/wasm-opt" ]] || \
	  { echo "wasm-opt on PATH is $$(command -v wasm-opt), not node_modules/.bin's; run .ci/install-tools" >&2; exit 1; }
	@mkdir -p $(JS_CRATE)
	awk -v root="$(ROOT)" ' \
	  /^\[/ { skip = ($$0 == "[[bin]]" || $$0 == "[[bench]]") } \
	  skip || /^default-run/ { next } \
	  /^path = "src\/lib.rs"$$/ { print "path = \"" root "/src/lib.rs\""; print "crate-type = [\"cdylib\"]"; next } \
	  { print }' Cargo.toml > $(JS_CRATE)/Cargo.toml
	cp Cargo.lock $(JS_CRATE)/Cargo.lock
	cp docs/js-package.md $(JS_CRATE)/README.md
	CARGO_TARGET_DIR=$(ROOT)/target wasm-pack build --target web --mode no-install --profile web \
	  --out-dir $(JS_PKG) --out-name ddnn_planner --no-gitignore $(JS_CRATE) -- --features js
	@ls -la $(JS_PKG)

# ---------------------------------------------------------------------------- test

test: tools fmt clippy-native clippy-wasm test-native test-wasm release js test-js e2e
	$(call step,all checks passed)

fmt:
	$(call step,cargo fmt --check)
	cargo fmt --all -- --check

clippy: clippy-native clippy-wasm

# The fuzz targets' checks (tests/fuzz/checks.rs) are linted here through the
# suite that replays them; libFuzzer's entry (targets.rs) with fuzz-smoke,
# which builds libFuzzer anyway.
clippy-native:
	$(call step,cargo clippy (native) --all-targets -D warnings)
	cargo clippy --all-targets -- -D warnings

# Twice: the page (all targets), then the JS package's library (--features js).
clippy-wasm:
	$(call step,cargo clippy --target $(WASM_TARGET) --all-targets -D warnings; again --lib --features js)
	cargo clippy --target $(WASM_TARGET) --all-targets -- -D warnings
	cargo clippy --target $(WASM_TARGET) --lib --features js -- -D warnings

test-native:
	$(call step,cargo test (native))
	cargo test

# libFuzzer on every parser and decoder (tests/fuzz/): a smoke run after `make test` in
# .ci/run, the long run (each target to 10^6 executions or 10 minutes) by hand; docs/reliability.md
# has the figures. FUZZ_SECONDS sets the smoke run's length per target.
FUZZ_SECONDS ?= 10
fuzz-smoke:
	$(call step,fuzz smoke run: clippy on the fuzz binary; every target $(FUZZ_SECONDS) s (tests/fuzz/run.sh))
	cargo clippy --features fuzz --bin fuzz -- -D warnings
	tests/fuzz/run.sh build
	tests/fuzz/run.sh smoke $(FUZZ_SECONDS)

fuzz:
	$(call step,fuzz: every target to 10^6 runs or 600 s, one at a time (tests/fuzz/run.sh))
	tests/fuzz/run.sh build
	tests/fuzz/run.sh long

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

test-js:
	$(call step,JS package in node (node --test tests/js/ on target/js-pkg))
	node --test tests/js/node.test.mjs

# Browser end-to-end tests: @playwright/test (playwright.config.mjs) on Debian's chromium,
# tests/e2e/specs on dist/ (DIST=... for another build; js-package on target/js-pkg), in
# three projects: desktop (every spec at 1280x800), subpath (smoke and share on the same
# build served under /some/dir/) and phone (the specs that hold at any width, at 390x844).
# E2E_ARGS passes arguments on, e.g. E2E_ARGS='--grep big-trace'; LONG_TASKS=report prints
# long tasks instead of failing on them. On a failure: test-results/e2e-report/ (the HTML
# report) and test-results/e2e/ (each failed test's trace and screenshots).
E2E_ARGS ?=
e2e:
	$(call step,browser end-to-end tests (playwright test: dist/ on / and under /some/dir/, js-package on target/js-pkg))
	playwright test $(E2E_ARGS)

# ---------------------------------------------------------------------------- misc

# Every figure of the README's performance table, from one run: the native benchmarks
# (tests/bench/*.rs), a release build, the in-browser benchmark on it (tests/e2e/bench.mjs),
# then the table itself (tests/bench/table.mjs, from target/bench/ and the sizes of dist/).
# `make bench BUILD=0` measures the dist/ already built instead of rebuilding it. A measure
# that fails still prints the table, then fails the target; a missed target does not.
BUILD ?= 1
BENCH_DIR := $(ROOT)/target/bench
bench: tools
	$(call step,cargo bench (native timings: tests/bench/zeng.rs, calibration.rs, cynthia.rs, spotdnn.rs, stash.rs, li.rs, trace.rs, uncertainty.rs; the work budget's worst cases: budget.rs))
	@rm -rf $(BENCH_DIR) && mkdir -p $(BENCH_DIR)
	BENCH_OUT=$(BENCH_DIR)/native.jsonl cargo bench --bench zeng --bench calibration --bench cynthia --bench spotdnn --bench stash --bench li --bench trace --bench uncertainty --bench budget
	$(call step,the core timed in headless Chromium (wasm32, the web profile: tests/suite/spotdnn_wasm_bench.rs, li_wasm_bench.rs, calibration_wasm_bench.rs, uncertainty_wasm_bench.rs))
	@rm -rf $(WASM_TEST_TMP) && mkdir -p $(WASM_TEST_TMP)
	status=0; TMPDIR=$(WASM_TEST_TMP) $(WASM_TEST_ENV) WASM_BINDGEN_USE_BROWSER=1 \
	  cargo test --profile web --target $(WASM_TARGET) --test suite wasm_bench -- --include-ignored --nocapture \
	  > $(BENCH_DIR)/wasm.log 2>&1 || status=$$?; \
	rm -rf $(WASM_TEST_TMP); sed -n 's/^BENCH //p' $(BENCH_DIR)/wasm.log > $(BENCH_DIR)/wasm.jsonl; \
	cat $(BENCH_DIR)/wasm.jsonl; exit $$status
ifneq ($(BUILD),0)
	$(call step,trunk build --release -> dist/)
	trunk build --release
endif
	$(call step,in-browser benchmark on dist/ (node tests/e2e/bench.mjs))
	status=0; BENCH_OUT=$(BENCH_DIR)/browser.json node tests/e2e/bench.mjs || status=$$?; \
	printf '\n==> %s\n' "the README's performance table (node tests/bench/table.mjs)"; \
	node tests/bench/table.mjs || status=$$?; \
	exit $$status

clean:
	$(call step,clean)
	cargo clean
	rm -rf dist tests/e2e/.tmp
