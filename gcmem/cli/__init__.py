"""The ``gcmem`` command line. Each command group lives in its own module of this package."""

from gcmem.cli.bench import bench_app
from gcmem.cli.main import app

app.add_typer(bench_app, name="bench", help="Benchmarks (run from a source checkout).")

__all__ = ["app"]
