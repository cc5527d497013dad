# The two set-up commands: `make demo` and `make test`. Both create .venv on first use.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

# Offline machines carry the NLI checkpoint next to the project; elsewhere the configured
# default (a hub id) is used through the same code path.
SHARED_NLI := $(abspath ../shared/models/nli-minilm-l6)
ifneq ($(wildcard $(SHARED_NLI)/config.json),)
export GCMEM_NLI_MODEL ?= $(SHARED_NLI)
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
endif

.PHONY: venv demo test lint typecheck unit bench-smoke clean docs example-langchain example-llamaindex example-fleet

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# constraints.txt pins torch to the CPU wheel; without it pip pulls a multi-GB CUDA build.
	$(BIN)/pip install --quiet -c constraints.txt -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

demo: venv
	$(BIN)/gcmem demo

# Offline examples (examples/README.md): each prints the stale context a plain retriever gives
# and what gcmem gives, and exits 1 if gcmem's context still holds a stale value.
example-langchain: venv
	$(BIN)/python examples/langchain_rag.py

example-llamaindex: venv
	$(BIN)/python examples/llamaindex_query_engine.py

example-fleet: venv
	$(BIN)/python examples/agent_fleet.py

# Code style, the layer contract (pyproject.toml, [tool.importlinter]) and the docs site:
# `mkdocs build --strict` fails on a broken internal link or anchor and on a docs page
# missing from mkdocs.yml's nav.
lint: venv
	$(BIN)/ruff check gcmem tests bench examples
	$(BIN)/ruff format --check gcmem tests bench examples
	$(BIN)/lint-imports
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

typecheck: venv
	$(BIN)/mypy

docs: venv
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve

unit: venv
	$(BIN)/pytest -q

test: lint typecheck unit

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache site
