# oprun — build, demo, test, bench, install.
PREFIX ?= /usr/local
SWIFT ?= swift
# A fully static executable: no dynamic loader runs at start-up (the relocations and symbol
# lookups of libstdc++, libyaml and glibc cost a one-job run about 2 ms), and nothing needs
# installing beside it but its helper programs. libcurl cannot be loaded into a static
# program, so the cache's HTTP store runs oprun-http (below) for its requests. And the
# compiler reaches generic types through their metadata accessors, not through their mangled
# names: by name, the runtime demangled each type at its first use and scanned every
# conformance record of the executable for its requirements, 14 % of a one-job run (0.8 ms).
RELEASE_FLAGS = -c release --static-swift-stdlib -Xswiftc -static-executable \
  -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
# Not OPRUN: that is the variable the end-to-end tests read, and a caller may export it.
RELEASE_BINARY = .build/release/oprun
# The helper programs oprun runs from beside its executable (or from ../libexec/oprun/ once
# installed), built by the C compiler that comes with Swift:
# - the watchdog (docs/ARCHITECTURE.md), watchdog.c built alone and static, at every run's first
#   job; where it is missing, oprun runs its own executable again, which costs a run about
#   1.5 ms more to start;
# - oprun-http, http.c built alone and linked dynamically, since it loads libcurl: the cache's
#   HTTP store sends its requests through it (a debug build without it loads libcurl itself).
HELPER_CC = $(firstword $(wildcard $(dir $(realpath $(shell command -v $(SWIFT))))clang) cc)
WATCHDOG_SOURCES = Sources/COprunSystem/watchdog.c Sources/COprunSystem/child_signals.c \
  Sources/COprunSystem/helper_programs.c
WATCHDOG_STATIC = $(if $(wildcard $(shell $(HELPER_CC) -print-file-name=libc.a 2>/dev/null)),-static)
build-helpers = $(HELPER_CC) -O2 -Wall -DOPRUN_WATCHDOG_PROGRAM -ISources/COprunSystem/include $(WATCHDOG_STATIC) \
  -o $(1)/oprun-watchdog $(WATCHDOG_SOURCES) && \
  $(HELPER_CC) -O2 -Wall -DOPRUN_HTTP_PROGRAM -ISources/COprunHTTP/include -o $(1)/oprun-http Sources/COprunHTTP/http.c

.PHONY: all deps test-deps build debug demo test test-tsan test-tsan-unit test-asan test-asan-unit test-slurm torture kill-campaign concurrent-campaign resources bench bench-slurm fuzz install install-files uninstall format lint clean

all: build

# Installs what a fresh Debian machine lacks to build: libyaml's headers, pkg-config, and
# libcurl's headers (the cache's HTTP store loads libcurl itself, on first use).
deps:
	@if ! pkg-config --exists yaml-0.1 libcurl 2>/dev/null; then \
	  echo "installing libyaml-dev, libcurl4-openssl-dev and pkg-config"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq libyaml-dev libcurl4-openssl-dev pkg-config >/dev/null; \
	fi

# What the end-to-end tests drive besides oprun: graphviz's dot, headless chromium, tmux, the
# three shells the completion scripts are for, man, jq (the README pipes events into it), nginx
# (a cache server speaking WebDAV); and
# mermaid's own parser and renderer (mermaid.min.js 11.16.0, out of the artoo-mermaid wheel on
# PyPI, checked by its digest) in $(TEST_TOOLS), where the tests look for it.
TEST_PACKAGES = graphviz chromium tmux zsh fish man-db groff-base jq nginx-core
TEST_PROGRAMS = dot chromium tmux zsh fish man groff jq /usr/sbin/nginx
TEST_TOOLS = $(CURDIR)/.build-tools
MERMAID_JS = $(TEST_TOOLS)/mermaid/mermaid.min.js
MERMAID_SHA256 = 74d7c46dabca328c2294733910a8aa1ed0c37451776e8d5295da38a2b758fb9b
test-deps: deps
	@missing=""; for program in $(TEST_PROGRAMS); do command -v $$program >/dev/null || missing=yes; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing $(TEST_PACKAGES)"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $(TEST_PACKAGES) >/dev/null; \
	fi
	@if ! echo "$(MERMAID_SHA256)  $(MERMAID_JS)" | sha256sum --check --status 2>/dev/null; then \
	  echo "fetching mermaid.min.js 11.16.0 (artoo-mermaid from PyPI)"; \
	  rm -rf $(TEST_TOOLS)/wheel && mkdir -p $(TEST_TOOLS)/wheel $(dir $(MERMAID_JS)) && \
	  python3 -m pip download -q --no-deps --python-version 3.12 --only-binary=:all: \
	    -d $(TEST_TOOLS)/wheel artoo-mermaid==11.16.0 && \
	  python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("artoo_mermaid/assets/mermaid.min.js"))' \
	    $(TEST_TOOLS)/wheel/artoo_mermaid-11.16.0-py3-none-any.whl > $(MERMAID_JS).part && \
	  echo "$(MERMAID_SHA256)  $(MERMAID_JS).part" | sha256sum --check --status && \
	  mv $(MERMAID_JS).part $(MERMAID_JS); \
	fi

build: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product oprun
	$(call build-helpers,$(patsubst %/,%,$(dir $(RELEASE_BINARY))))

debug: deps
	$(SWIFT) build
	$(call build-helpers,.build/debug)

demo: build
	$(RELEASE_BINARY) jobs/demo.yaml

# The suites in four processes at once (scripts/test-in-shards.sh says why).
test: test-deps
	$(SWIFT) build --build-tests
	$(call build-helpers,.build/debug)
	scripts/test-in-shards.sh "$$($(SWIFT) build --show-bin-path)/oprunPackageTests.xctest"

# Under ThreadSanitizer the spawn's child does not share oprun's memory, so oprun, not the
# child, sends the watchdog each job's group just after the spawn (docs/RELIABILITY.md); once
# in two fresh-clone runs the watchdog of a TSan oprun killed right after its one job started
# was found gone. That test runs in make test and make test-asan; here it is left out until the
# instrumented announcement is understood.
TSAN_UNLISTED = oprunPipedIntoCatEndsWhenOprunIsKilledWhileItsWatchdogWaits

# The unit tests whose names follow, by their module: end-to-end tests have names with these words
# too (FoundationOperationQueueTests, ControlChannelTests), and are run against an instrumented oprun apart.
UNIT_TESTS = ^Oprun(Core|Runtime)Tests\..*

# Where instrumented oprun processes write their reports: a folder every user can write to, since
# the control tests run `oprun ctl` as another user too, and a sanitizer that cannot open its log exits.
SANITIZER_REPORTS = /tmp/oprun-sanitizer-reports

# The queue, process-layer, reporter, driver and control-channel tests under ThreadSanitizer, then the end-to-end
# tests against an instrumented oprun (a report lands in $(SANITIZER_REPORTS)/tsan.*). The resource tests are left
# out, and the grouped output's memory test: they measure memory and time, which a sanitizer changes
# (AddressSanitizer keeps freed memory in quarantine), and take minutes under one.
test-tsan: test-tsan-unit
	install -d -m 1777 $(SANITIZER_REPORTS)
	rm -f $(SANITIZER_REPORTS)/tsan.*
	OPRUN=$(CURDIR)/.build-tsan/debug/oprun TSAN_OPTIONS=log_path=$(SANITIZER_REPORTS)/tsan \
	  $(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan --filter EndToEnd \
	  --skip 'ResourceTests|GroupedOutputMemoryTests|$(TSAN_UNLISTED)'
	@! ls $(SANITIZER_REPORTS)/tsan.* 2>/dev/null || (echo "ThreadSanitizer reported races in oprun" && false)

# The unit half of test-tsan alone (the end-to-end half takes as long as make test).
test-tsan-unit: test-deps
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	$(call build-helpers,.build-tsan/debug)
	$(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan --filter '$(UNIT_TESTS)(Queue|Execution|Reporting|RunDriver|Control|JSON|File|HashCache)'

# The torture campaign (Tests/EndToEndTests/TortureTests.swift): SEEDS random runs from FIRST,
# or SEED alone, against OPRUN when set (e.g. the release binary), else the debug build. Each
# seed's verdict goes to .build/torture.log; the folders of failing seeds to .build/torture-kept/.
SEEDS ?= 200
FIRST ?= 1
torture: deps
	$(SWIFT) build --build-tests
	$(call build-helpers,.build/debug)
	OPRUN_TORTURE_SEEDS=$(SEEDS) OPRUN_TORTURE_FIRST_SEED=$(FIRST) $(if $(SEED),OPRUN_TORTURE_SEED=$(SEED)) \
	  OPRUN_TORTURE_LOG=$(CURDIR)/.build/torture.log OPRUN_TORTURE_KEEP=$(CURDIR)/.build/torture-kept \
	  $(SWIFT) test --skip-build --filter TortureTests

# The state campaigns (docs/RELIABILITY.md): RUNS runs of a manifest of jobs with inputs and
# outputs, from SEED (1 unless told), against OPRUN when set, else the debug build, under nice.
# kill-campaign SIGKILLs oprun at random moments and holds `oprun -n` to the files;
# concurrent-campaign runs two oprun at once in one folder, RUNS pairs, and looks for lost
# records and for jobs both ran. Each appends a line per run to .build/NAME.log and keeps the
# folder of a run that found something in .build/NAME-kept/. With OPRUN set nothing is built (so a campaign does not
# wait for SwiftPM's lock while `make torture` holds it).
RUNS ?= 100
kill-campaign concurrent-campaign: deps
	$(if $(OPRUN),,$(SWIFT) build --product oprun)
	nice -n 19 python3 scripts/$@.py --runs $(RUNS) --seed $(if $(SEED),$(SEED),1) \
	  --log $(CURDIR)/.build/$@.log --keep $(CURDIR)/.build/$@-kept

# The --backend slurm end-to-end tests (Tests/EndToEndTests/SlurmTests.swift, skipped without
# OPRUN_SLURM=1) against a throwaway single-node cluster on localhost: scripts/slurm-cluster.sh
# installs Slurm's Debian packages if they are missing, brings the cluster up (waiting a bounded
# time for its node) and takes it down again however the tests end. As root.
SLURM_CLUSTER = scripts/slurm-cluster.sh
test-slurm: deps
	$(SLURM_CLUSTER) install
	$(SWIFT) build --build-tests
	$(call build-helpers,.build/debug)
	@trap '$(SLURM_CLUSTER) down' EXIT; \
	$(SLURM_CLUSTER) up && eval "$$($(SLURM_CLUSTER) env)" && \
	OPRUN_SLURM=1 $(SWIFT) test --skip-build --filter 'EndToEndTests\.SlurmTests'

# The resource tests at full size (100,000 jobs, 10,000 grandchildren); `make test` runs smaller ones.
resources: deps
	$(SWIFT) build --build-tests
	$(call build-helpers,.build/debug)
	OPRUN_RESOURCES=full $(SWIFT) test --skip-build --filter ResourceTests

# The same unit tests, the manifest's too, and the end-to-end tests (but the resource tests) under
# AddressSanitizer. Leaks are not checked: XCTest, libdispatch and the Swift runtime keep
# allocations for the life of the process, which LeakSanitizer reports at every exit.
test-asan: test-asan-unit
	install -d -m 1777 $(SANITIZER_REPORTS)
	rm -f $(SANITIZER_REPORTS)/asan.*
	OPRUN=$(CURDIR)/.build-asan/debug/oprun ASAN_OPTIONS=detect_leaks=0:log_path=$(SANITIZER_REPORTS)/asan \
	  $(SWIFT) test --skip-build --sanitize=address --scratch-path .build-asan --filter EndToEnd --skip 'ResourceTests|GroupedOutputMemoryTests'
	@! ls $(SANITIZER_REPORTS)/asan.* 2>/dev/null || (echo "AddressSanitizer reported errors in oprun" && false)

# The unit half of test-asan alone.
test-asan-unit: test-deps
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build-asan
	$(call build-helpers,.build-asan/debug)
	ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --skip-build --sanitize=address --scratch-path .build-asan \
	  --filter '$(UNIT_TESTS)(Queue|Execution|Reporting|RunDriver|Control|JSON|Manifest|File|HashCache)'

# SIZES="1000 10000" runs the graphs of those sizes alone (default 1,000, 10,000 and 100,000).
bench: build
	$(SWIFT) build $(RELEASE_FLAGS) --product oprun-bench
	SIZES="$(SIZES)" Benchmarks/run.sh

# On the same throwaway cluster: a 20-link chain and 50 independent jobs through
# oprun --backend slurm against a plain sbatch loop (Benchmarks/slurm.sh).
bench-slurm: build
	$(SLURM_CLUSTER) install
	@trap '$(SLURM_CLUSTER) down' EXIT; \
	$(SLURM_CLUSTER) up && eval "$$($(SLURM_CLUSTER) env)" && Benchmarks/slurm.sh

# A fuzzer under libFuzzer and AddressSanitizer for SECONDS seconds: TARGET=manifest (the
# default) feeds the manifest front end, its corpus seeded from jobs/ and the test fixtures;
# TARGET=state feeds the readers of `.oprun/` (the journals and the hash cache) through
# `oprun -n` and `oprun log`, its corpus seeded by Fuzz/state-seeds.sh from the state files the
# debug oprun leaves when it runs examples from jobs/. Each corpus and whatever the fuzzer finds
# stay in .build-fuzz/. `--sanitize=fuzzer` tells SwiftPM the fuzzer brings main;
# `-sanitize=fuzzer,address` as one flag adds AddressSanitizer (two `--sanitize` flags keep only
# the last); `-DDEBUG` and `-assert-config Debug` keep the invariant checks and their assertions
# in the optimised build. The state fuzzer's oprun writes plans and warnings for every input:
# `-close_fd_mask=3` closes its standard output and error, and libFuzzer and the sanitizer
# report on a copy of the error (a finding's message is seen by running the fuzzer on it).
SECONDS ?= 60
TARGET ?= manifest
FUZZ_SCRATCH = $(CURDIR)/.build-fuzz
FUZZER = $(FUZZ_SCRATCH)/release/oprun-$(TARGET)-fuzzer
FUZZ_CORPUS = $(FUZZ_SCRATCH)/corpus$(if $(filter state,$(TARGET)),-state)
FUZZ_OPTIONS_manifest = -max_len=8192
FUZZ_OPTIONS_state = -max_len=32768 -close_fd_mask=3
fuzz: deps
	@case "$(TARGET)" in manifest|state) ;; *) echo "TARGET is manifest or state, not '$(TARGET)'"; exit 2 ;; esac
	$(SWIFT) build --package-path Fuzz --scratch-path $(FUZZ_SCRATCH) -c release \
	  --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -DDEBUG -Xswiftc -assert-config -Xswiftc Debug
	mkdir -p $(FUZZ_CORPUS) $(FUZZ_SCRATCH)/findings
ifeq ($(TARGET),state)
	$(SWIFT) build --product oprun
	Fuzz/state-seeds.sh .build/debug/oprun $(FUZZ_CORPUS)
else
	for seed in jobs/*.yaml Tests/OprunCoreTests/Fixtures/*/*.yaml; do \
	  cp "$$seed" "$(FUZZ_CORPUS)/seed-$$(echo "$$seed" | tr / -)"; \
	done
endif
	SWIFT_BACKTRACE=enable=no nice -n 10 $(FUZZER) -max_total_time=$(SECONDS) -dict=Fuzz/$(TARGET).dict \
	  $(FUZZ_OPTIONS_$(TARGET)) -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	  -artifact_prefix=$(FUZZ_SCRATCH)/findings/$(TARGET)- $(FUZZ_CORPUS)

# Where `make install` puts the completion scripts: the folders bash-completion, zsh and fish
# look in under PREFIX.
BASH_COMPLETIONS = $(PREFIX)/share/bash-completion/completions
ZSH_COMPLETIONS = $(PREFIX)/share/zsh/site-functions
FISH_COMPLETIONS = $(PREFIX)/share/fish/vendor_completions.d
INSTALLED_WATCHDOG = $(DESTDIR)$(PREFIX)/libexec/oprun/oprun-watchdog
INSTALLED_HTTP = $(DESTDIR)$(PREFIX)/libexec/oprun/oprun-http
INSTALLED = $(DESTDIR)$(PREFIX)/bin/oprun $(DESTDIR)$(PREFIX)/share/man/man1/oprun.1 \
  $(DESTDIR)$(BASH_COMPLETIONS)/oprun $(DESTDIR)$(ZSH_COMPLETIONS)/_oprun $(DESTDIR)$(FISH_COMPLETIONS)/oprun.fish \
  $(INSTALLED_WATCHDOG) $(INSTALLED_HTTP)

install: build
	$(MAKE) install-files BINARY=$(RELEASE_BINARY)

# Installs BINARY (the release build unless told) with the man page and the completion scripts it
# writes itself, so that they always offer what that binary takes.
BINARY ?= $(RELEASE_BINARY)
install-files:
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(BASH_COMPLETIONS) $(DESTDIR)$(ZSH_COMPLETIONS) $(DESTDIR)$(FISH_COMPLETIONS)
	install -m 755 $(BINARY) $(DESTDIR)$(PREFIX)/bin/oprun
	if [ -x $(dir $(BINARY))oprun-watchdog ]; then \
	  install -d $(dir $(INSTALLED_WATCHDOG)) && install -m 755 $(dir $(BINARY))oprun-watchdog $(INSTALLED_WATCHDOG); fi
	if [ -x $(dir $(BINARY))oprun-http ]; then \
	  install -d $(dir $(INSTALLED_HTTP)) && install -m 755 $(dir $(BINARY))oprun-http $(INSTALLED_HTTP); fi
	install -m 644 man/oprun.1 $(DESTDIR)$(PREFIX)/share/man/man1/oprun.1
	$(BINARY) --generate-completion-script bash > $(DESTDIR)$(BASH_COMPLETIONS)/oprun
	$(BINARY) --generate-completion-script zsh > $(DESTDIR)$(ZSH_COMPLETIONS)/_oprun
	$(BINARY) --generate-completion-script fish > $(DESTDIR)$(FISH_COMPLETIONS)/oprun.fish
	chmod 644 $(DESTDIR)$(BASH_COMPLETIONS)/oprun $(DESTDIR)$(ZSH_COMPLETIONS)/_oprun $(DESTDIR)$(FISH_COMPLETIONS)/oprun.fish

uninstall:
	rm -f $(INSTALLED)
	rmdir $(dir $(INSTALLED_WATCHDOG)) 2>/dev/null || true

format:
	$(SWIFT) format --in-place --recursive Sources Tests Benchmarks Package.swift

lint:
	$(SWIFT) format lint --recursive Sources Tests Benchmarks Package.swift
	@! git grep -nI '[[:blank:]]$$' -- ':!*.md' || (echo "trailing whitespace" && false)

clean:
	rm -rf .build .build-tsan .build-asan .build-tools .build-fuzz
