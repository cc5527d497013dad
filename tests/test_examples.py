"""Each example runs offline, as documented (`make example-*` = `python examples/<file>`), and
its own checks pass: the plain retriever's context held the stale value, gcmem's did not, and
every current value survived. The fleet example runs the pipeline on the embedded bus."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.slow, pytest.mark.model]


def _run(script: str, nli_model_path: str) -> subprocess.CompletedProcess[str]:
    # a fresh environment: none of the caller's gcmem settings leak in
    env = {k: v for k, v in os.environ.items() if not k.startswith("GCMEM_")}
    env.update(
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        GCMEM_NLI_MODEL=nli_model_path,
        GCMEM_DEVICE="cpu",
        # the checkout's gcmem, whichever one the interpreter has installed
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    )
    return subprocess.run(
        [sys.executable, str(ROOT / "examples" / script)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.parametrize(
    "script", ["langchain_rag.py", "llamaindex_query_engine.py", "agent_fleet.py"]
)
def test_example_runs_offline(script: str, nli_model_path: str) -> None:
    proc = _run(script, nli_model_path)
    out = proc.stdout
    assert proc.returncode == 0, f"{script} failed:\n{out[-4000:]}\n{proc.stderr[-4000:]}"
    assert "all checks passed" in out
    assert "STALE" in out  # the plain context it printed held a stale value
    # what gcmem did about it is shown: a drop with its reason, or the conflict note it
    # attached where κ is not confident enough to decide
    assert "gcmem excised" in out or "gcmem's note" in out


def test_readme_quickstart_prints_the_current_value_and_the_drop(nli_model_path: str) -> None:
    """examples/quickstart.py is the README's quickstart (tests/test_docs.py); its output is
    the one the README shows."""
    proc = _run("quickstart.py", nli_model_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    lines = proc.stdout.splitlines()
    assert lines[:2] == [
        "The payments service runs on port 8080.",
        "The project is licensed under Apache-2.0.",
    ]
    assert lines[2].startswith("dropped: The payments service runs on port 8000. (supersession: ")
    assert len(lines) == 3
