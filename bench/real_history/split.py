"""The dev / held-out split of the mined repositories, fixed before any rule was chosen.

Rules for line, config and code handling may be chosen by looking at the ``dev`` repositories'
transitions and failures; the ``heldout`` repositories are only run and reported. Each half mixes
languages and kinds (Rust/Go/Python/JavaScript; CLI, HTTP client, web framework, server).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

Split = Literal["all", "dev", "heldout"]
SPLITS: tuple[Split, ...] = ("all", "dev", "heldout")

DEV_REPOS = frozenset(
    {
        "BurntSushi/ripgrep",
        "axios/axios",
        "caddyserver/caddy",
        "encode/httpx",
        "expressjs/express",
        "pallets/click",
    }
)
HELDOUT_REPOS = frozenset(
    {
        "helm/helm",
        "pallets/flask",
        "psf/requests",
        "sindresorhus/got",
        "spf13/cobra",
        "tiangolo/typer",
    }
)


def select(records: Sequence[dict[str, Any]], split: Split) -> list[dict[str, Any]]:
    """The records of one half (``all``: every record; a repository in neither half, e.g. one
    mined later, counts as held out)."""
    if split == "all":
        return list(records)
    if split == "dev":
        return [r for r in records if r["repo"] in DEV_REPOS]
    return [r for r in records if r["repo"] not in DEV_REPOS]
