"""The ``gcmem`` command line. Each command group lives in its own module of this package."""

from gcmem.cli.bench import bench_app
from gcmem.cli.ledger import ledger_app
from gcmem.cli.main import app
from gcmem.cli.pipeline import register as register_pipeline

app.add_typer(bench_app, name="bench", help="Benchmarks (run from a source checkout).")
app.add_typer(ledger_app, name="ledger", help="Read the supersession ledger.")
register_pipeline(app)

__all__ = ["app"]
