# cclab: `make demo` runs a scenario, `make test` runs every check. Everything installs into ./.venv from PyPI
# and crates.io (pins in pyproject.toml and Cargo.toml); rebuilds happen only when their inputs change.

PYTHON   ?= python3.11
CARGO    ?= cargo
VENV     := .venv
BIN      := $(VENV)/bin
DEMO_CMD ?= $(BIN)/cclab reproduce seed-000 --out out/demo
RUST_SRC := Cargo.toml Cargo.lock $(shell find crates -name '*.rs' -o -name Cargo.toml)

SHELL := bash
.SHELLFLAGS := -eo pipefail -c

# Cargo and maturin see the same interpreter, so pyo3 is configured once.
export PYO3_PYTHON := $(abspath $(BIN)/python)

.PHONY: install browser demo test lint bench bench-compare bench-history bench-real wheel figures fuzz fuzz-ci

# Bytecode for cclab's own modules: where PYTHONDONTWRITEBYTECODE is set (as on the build machines) Python would
# compile each of them again on every command, ~15 % of a one-packet `cclab run`'s instructions. Only changed
# files are compiled again; a stale file is still compiled in memory, as before.
install: $(VENV)/.built
	$(BIN)/python -m compileall -q python/cclab

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Pinned runtime + dev dependencies, read from pyproject.toml (single source).
$(VENV)/.deps: pyproject.toml | $(BIN)/python
	$(BIN)/python -c 'import tomllib; p = tomllib.load(open("pyproject.toml", "rb"))["project"]; \
	  print("\n".join(p["dependencies"] + p["optional-dependencies"]["dev"]))' > $(VENV)/requirements.txt
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r $(VENV)/requirements.txt
	touch $@

# Editable install: the extension is built into python/cclab/, the Python sources are used in place.
$(VENV)/.built: $(VENV)/.deps $(RUST_SRC)
	VIRTUAL_ENV=$(abspath $(VENV)) $(BIN)/maturin develop --release --quiet 2>&1 \
	  | { grep -v -e '^Requirement already satisfied' -e '^Ignoring ' -e '^Looking in' || true; }
	touch $@

demo: install
	$(DEMO_CMD)

# The headless browser the report test drives (playwright uses it through executable_path: its own browser
# download is not needed). Debian's package; installed once, with root, from the distribution's registry.
CHROMIUM ?= /usr/bin/chromium
browser:
	@test -x $(CHROMIUM) || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; }

test: install browser
	$(CARGO) clippy --workspace --all-targets --quiet -- -D warnings
	$(CARGO) test --workspace --profile ci
	$(MAKE) --no-print-directory fuzz-ci
	$(BIN)/pytest -q tests/python

lint: install
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --quiet -- -D warnings
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --no-deps --workspace --quiet
	$(BIN)/ruff check python tests/python
	$(BIN)/ruff format --check python tests/python

# The figures docs/seeds.md embeds: every case at the report's sizes (--full; ~25 min on 2 cores), PNGs only.
figures: install
	$(BIN)/cclab reproduce all --full --out out/full
	mkdir -p docs/seeds/figures
	cp out/full/seed-00*/*.png docs/seeds/figures/

# Figures per CPU-second for a fixed suite (paths, BDP sweep, qlog on/off, 1,000-flow dumbbell against one flow with
# the same share and one flow alone on its path);
# `make bench BENCH_ARGS="--flows 10000"` for the 10,000-flow dumbbell; BENCH_ARGS="--scenario F.toml --out DIR" runs one
# file and writes its outputs (compare them before/after a speed-up). Not a timed test: it prints, never fails on speed.
# The suite runs BENCH_REPEAT rounds; the targets read each case's cheapest round (a shared machine only adds time),
# and each ratio target's two cases then run in BENCH_PAIRS back-to-back pairs (~1 min idle at 7).
BENCH_ARGS ?=
BENCH_REPEAT ?= 3
BENCH_PAIRS ?= 7
bench:
	$(CARGO) run --release --quiet -p cclab-sim --bin cclab-bench -- --repeat $(BENCH_REPEAT) --pairs $(BENCH_PAIRS) $(BENCH_ARGS)
	uptime

# The suite, then the TCP path cases and the dumbbell at 1, 100 and 1,000 NewReno flows in ns-3 (Debian's 3.37
# packages, installed here) and the CPU ratio per case (~2 min more, most of it ns-3's 1,000 flows).
NS3_LIBS := ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control
bench-compare: bench
	dpkg -s libns3-dev libgsl-dev pkg-config >/dev/null 2>&1 || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ns3 libns3-dev libgsl-dev pkg-config g++; }
	mkdir -p target
	g++ -O2 -o target/ns3-bulk bench/ns3/bulk.cc $$(pkg-config --cflags --libs $(NS3_LIBS))
	g++ -O2 -o target/ns3-dumbbell bench/ns3/dumbbell.cc $$(pkg-config --cflags --libs $(NS3_LIBS))
	$(CARGO) run --release --quiet -p cclab-sim --bin cclab-bench -- --ns3 target/ns3-bulk --ns3-dumbbell target/ns3-dumbbell
	uptime

# Today's simulator against the code issue #14 was measured on (commit 0477482, built in a temporary worktree), the
# 1 GB, 10 Gbit/s / 50 us case interleaved in rounds: the speed-up on this machine, whatever its speed
# (bench/history.sh says why). Needs the clone's history.
HISTORY_ROUNDS ?= 7
bench-history:
	bench/history.sh $(HISTORY_ROUNDS)
	uptime

# Real mode on this machine: cclab's loopback QUIC vs quinn 0.11 (quinn-bulk), and the emulator's timing.
bench-real:
	$(CARGO) build --release -p cclab-real --bin cclab-real-bench
	$(CARGO) build --release -p quinn-bulk
	target/release/cclab-real-bench --quinn target/release/quinn-bulk

# One abi3 wheel (CPython >= 3.10 ABI) in target/wheels/.
wheel: $(VENV)/.deps
	$(BIN)/maturin build --release

# Fuzzing on stable Rust: cargo-fuzz (pinned, --locked) builds libFuzzer with the system C++ compiler; no
# sanitizer (-s none), debug assertions and overflow checks on (-a). Each run's new inputs go to a scratch
# directory; the committed seeds in fuzz/corpus/<target>/ are read, never written. The two targets whose input is
# scenario TOML (scenario, simulation) take its keys and values from fuzz/scenario.dict.
CARGO_FUZZ_VERSION := 0.13.2
CARGO_FUZZ := target/fuzz-tools/bin/cargo-fuzz
FUZZ_TARGETS := quic_decode units scenario trace endpoints simulation qlog_read
FUZZ_SECONDS ?= 60
FUZZ_CI_SECONDS ?= 5
FUZZ_SCRATCH := target/fuzz-scratch

$(CARGO_FUZZ):
	$(CARGO) install cargo-fuzz --locked --version =$(CARGO_FUZZ_VERSION) --root target/fuzz-tools

# `make fuzz` runs every target for FUZZ_SECONDS (default 60 s each) and stops at the first crash or hang.
fuzz: $(CARGO_FUZZ)
	cd fuzz && for t in $(FUZZ_TARGETS); do mkdir -p ../$(FUZZ_SCRATCH)/$$t && \
	  ../$(CARGO_FUZZ) run -s none -a $$t ../$(FUZZ_SCRATCH)/$$t corpus/$$t -- \
	    $$(case $$t in scenario|simulation) echo -dict=scenario.dict;; esac) \
	    -max_total_time=$(FUZZ_SECONDS) -timeout=10 -print_final_stats=1 || exit 1; done

# What `make test` runs: replays every committed seed, then runs each target for FUZZ_CI_SECONDS from a fixed
# seed (-seed=1), so every CI run explores the same inputs first; `make fuzz` explores freely.
fuzz-ci: $(CARGO_FUZZ)
	cd fuzz && ../$(CARGO_FUZZ) build -s none -a && for t in $(FUZZ_TARGETS); do \
	  rm -rf ../$(FUZZ_SCRATCH)/$$t && mkdir -p ../$(FUZZ_SCRATCH)/$$t && \
	  { ../$(CARGO_FUZZ) run -s none -a $$t ../$(FUZZ_SCRATCH)/$$t corpus/$$t -- \
	      $$(case $$t in scenario|simulation) echo -dict=scenario.dict;; esac) \
	      -max_total_time=$(FUZZ_CI_SECONDS) -seed=1 -timeout=10 > ../$(FUZZ_SCRATCH)/$$t.log 2>&1 \
	    || { cat ../$(FUZZ_SCRATCH)/$$t.log; exit 1; }; } && \
	  sed -n "s/^Done/fuzz $$t: done/p" ../$(FUZZ_SCRATCH)/$$t.log; done
