"""``gcmem bench ...``: each benchmark module in ``bench/`` exposes a typer command ``cli``."""

from __future__ import annotations

import importlib

import typer

bench_app = typer.Typer(no_args_is_help=True)

# name -> module in the top-level ``bench`` package; each defines ``cli``.
BENCHMARKS: dict[str, str] = {}

for _name, _module in BENCHMARKS.items():
    bench_app.command(_name)(importlib.import_module(_module).cli)
