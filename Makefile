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

.PHONY: install browser demo test lint bench bench-compare bench-real wheel figures

install: $(VENV)/.built

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
	$(BIN)/pytest -q tests/python

lint: install
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --quiet -- -D warnings
	$(BIN)/ruff check python tests/python
	$(BIN)/ruff format --check python tests/python

# The figures docs/seeds.md embeds: every case at the report's sizes (--full; ~25 min on 2 cores), PNGs only.
figures: install
	$(BIN)/cclab reproduce all --full --out out/full
	mkdir -p docs/seeds/figures
	cp out/full/seed-00*/*.png docs/seeds/figures/

# Figures per CPU-second for a fixed suite (paths, BDP sweep, qlog on/off, 1,000-flow dumbbell against one flow);
# `make bench BENCH_ARGS="--flows 10000"` for the 10,000-flow dumbbell. Not a timed test: it prints, never fails on speed.
BENCH_ARGS ?=
bench:
	$(CARGO) run --release --quiet -p cclab-sim --bin cclab-bench -- $(BENCH_ARGS)
	uptime

# The suite, then the TCP path cases in ns-3 (Debian's 3.37 packages, installed here) and the CPU ratio per case.
NS3_LIBS := ns3-core ns3-network ns3-internet ns3-point-to-point ns3-applications ns3-traffic-control
bench-compare: bench
	dpkg -s libns3-dev libgsl-dev pkg-config >/dev/null 2>&1 || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ns3 libns3-dev libgsl-dev pkg-config g++; }
	mkdir -p target
	g++ -O2 -o target/ns3-bulk bench/ns3/bulk.cc $$(pkg-config --cflags --libs $(NS3_LIBS))
	$(CARGO) run --release --quiet -p cclab-sim --bin cclab-bench -- --ns3 target/ns3-bulk
	uptime

# Real mode on this machine: cclab's loopback QUIC vs quinn 0.11 (quinn-bulk), and the emulator's timing.
bench-real:
	$(CARGO) build --release -p cclab-real --bin cclab-real-bench
	$(CARGO) build --release -p quinn-bulk
	target/release/cclab-real-bench --quinn target/release/quinn-bulk

# One abi3 wheel (CPython >= 3.10 ABI) in target/wheels/.
wheel: $(VENV)/.deps
	$(BIN)/maturin build --release
