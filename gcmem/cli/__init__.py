"""The ``gcmem`` command line. Each command group lives in its own module of this package."""

import typer

from gcmem.cli.config import config_app
from gcmem.cli.ledger import ledger_app
from gcmem.cli.main import app
from gcmem.cli.oracle import oracle_app
from gcmem.cli.pipeline import register as register_pipeline

app.add_typer(config_app, name="config", help="Show settings and their reference.")
app.add_typer(ledger_app, name="ledger", help="Read the supersession ledger.")
app.add_typer(
    oracle_app, name="oracle", help="Fine-tune, calibrate and evaluate the conflict oracle."
)
register_pipeline(app)


def main() -> None:
    """The console script: configuration and model-loading problems end in one clear line
    (exit 2), not a traceback."""
    from gcmem.oracle.base import OracleError
    from gcmem.settings import SettingsError

    try:
        app(prog_name="gcmem")
    except (OracleError, SettingsError) as exc:
        typer.secho(str(exc), fg="red", err=True)
        raise SystemExit(2) from None


__all__ = ["app", "main"]
