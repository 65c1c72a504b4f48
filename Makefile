# Two set-up commands for a new user: `make demo` and `make test`. Everything else builds on them.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-test
DEMO_STAMP := $(VENV)/.installed

.PHONY: demo test test-fast lint unit bench fuzz bot clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(DEMO_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(DEMO_STAMP)

## make demo: diagnose the bundled FLUX example (no Discord token needed)
demo: $(DEMO_STAMP)
	@# exit 1 means "findings", which is what the demo expects; 2 or worse is a real failure
	$(BIN)/oomcheck check examples/flux_lora_24gb_gc_off.yaml examples/flux_lora_24gb_oom.log; \
	  status=$$?; [ $$status -le 1 ]

## make test: lint, type-check and run the whole suite
test: lint unit

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	@# --no-cache: a cache would be a folder in the checkout, and a whole run takes well under a second
	$(BIN)/lint-imports --no-cache

unit: $(STAMP)
	$(BIN)/python -m pytest -q

## make test-fast: the suite alone (no lint), on every core; `loadgroup` keeps an xdist_group on one
## worker, so a module that builds something once (the packaging wheel) builds it once
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -n auto --dist loadgroup

## make bench: speed and memory figures, as ratios against baselines measured in the same run
bench: $(STAMP)
	$(BIN)/python -m benchmarks.run

## make fuzz: coverage-guided fuzzing of the engine for FUZZ_SECONDS (not part of CI)
FUZZ_SECONDS ?= 60
fuzz: $(STAMP)
	$(BIN)/python -m pip install --quiet atheris
	$(BIN)/python benchmarks/fuzz_engine.py -max_total_time=$(FUZZ_SECONDS) tests/hostile/fixtures

## make bot: run the Discord bot (needs DISCORD_TOKEN in the environment or .env)
bot: $(DEMO_STAMP)
	$(BIN)/oomcheck bot

clean:
	rm -rf $(VENV) build dist *.egg-info .pytest_cache .mypy_cache .ruff_cache
