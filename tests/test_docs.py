"""The README and the docs pages: relative links resolve to files (and their anchors to
headings), and the README's quickstart is ``examples/quickstart.py`` verbatim (which
``tests/test_examples.py`` runs). The site build itself (``mkdocs build --strict``) is in
``make lint``."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.S | re.M)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.M)


def _prose(text: str) -> str:
    """The text outside code blocks and code spans (links there are examples, not links)."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def links(text: str) -> list[str]:
    return LINK.findall(_prose(text))


def _plain(heading: str) -> str:
    heading = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    return heading.replace("`", "").replace("*", "")


def github_slug(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", _plain(heading).strip().lower())
    return text.replace(" ", "-")


def mkdocs_slug(heading: str) -> str:
    """Python-Markdown's toc slugify, the one mkdocs uses by default."""
    text = unicodedata.normalize("NFKD", _plain(heading)).encode("ascii", "ignore").decode()
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


def anchors(page: Path) -> set[str]:
    """Anchors that resolve on GitHub and on the docs site alike."""
    headings = HEADING.findall(FENCE.sub("", page.read_text(encoding="utf-8")))
    return {github_slug(h) for h in headings} & {mkdocs_slug(h) for h in headings}


def broken_links(page: Path) -> list[str]:
    problems = []
    for target in links(page.read_text(encoding="utf-8")):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: ...
            continue
        path, _, fragment = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.is_file():
            problems.append(f"{target}: no file {resolved}")
        elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
            problems.append(f"{target}: no heading #{fragment} in {resolved.name}")
    return problems


def test_link_checker_finds_links_and_their_problems(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other page\n\n## A section (stage `x`)\n")
    page = tmp_path / "page.md"
    page.write_text(
        "[ok](other.md) [anchor](other.md#a-section-stage-x) [web](https://example.com)\n"
        "![img](missing.png) [bad anchor](other.md#nowhere) [self](#title)\n"
        "`[in code](nope.md)`\n```\n[in a block](nope.md)\n```\n# Title\n"
    )
    assert broken_links(page) == [
        f"missing.png: no file {tmp_path / 'missing.png'}",
        "other.md#nowhere: no heading #nowhere in other.md",
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page: Path) -> None:
    assert broken_links(page) == []


def test_readme_links_to_every_docs_page() -> None:
    linked = {t.partition("#")[0] for t in links((ROOT / "README.md").read_text())}
    for page in ("concepts", "configuration", "pipeline", "integrations", "oracle", "benchmarks"):
        assert f"docs/{page}.md" in linked


def test_readme_quickstart_is_the_example() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("<!-- quickstart:start -->\n", 1)[1].split("<!-- quickstart:end -->")[0]
    code = block.removeprefix("```python\n").removesuffix("```\n")
    assert code == (ROOT / "examples" / "quickstart.py").read_text(encoding="utf-8"), (
        "README quickstart and examples/quickstart.py differ"
    )


def test_readme_stays_a_front_page() -> None:
    assert (ROOT / "README.md").stat().st_size <= 20_000


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_tracker_references(page: Path) -> None:
    assert re.findall(r"\bissues? #?\d+", page.read_text(encoding="utf-8"), re.I) == []
