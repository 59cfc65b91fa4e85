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

.PHONY: install demo test lint bench bench-real wheel figures

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

test: install
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

bench:
	$(CARGO) run --release -p cclab-sim --bin cclab-bench

# Real mode on this machine: cclab's loopback QUIC vs quinn 0.11 (quinn-bulk), and the emulator's timing.
bench-real:
	$(CARGO) build --release -p cclab-real --bin cclab-real-bench -p quinn-bulk
	target/release/cclab-real-bench --quinn target/release/quinn-bulk

# One abi3 wheel (CPython >= 3.10 ABI) in target/wheels/.
wheel: $(VENV)/.deps
	$(BIN)/maturin build --release
