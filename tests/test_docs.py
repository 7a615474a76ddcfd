"""The manual's links lead somewhere: every relative markdown link in README.md and
docs/**.md names a file that exists, and every anchor (`page.md#anchor`, `#anchor`)
names a heading of that page, as GitHub makes anchors from headings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# [text](target) and ![alt](target); a target ends at whitespace or ")"
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
FENCE = re.compile(r"^```.*?^```", re.DOTALL | re.MULTILINE)
HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$", re.MULTILINE)


def links(page: Path) -> list[str]:
    """The page's link targets outside code."""
    return LINK.findall(CODE.sub("", page.read_text()))


def relative_links(page: Path) -> list[str]:
    """The page's link targets outside code that point into the repository."""
    return [target for target in links(page)
            if not re.match(r"^[a-z][a-z0-9+.-]*:", target) and not target.startswith("#")]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: a link counts as its text; lowercase; every character
    but letters, digits, spaces, ``-`` and ``_`` dropped (backticks too, not their text);
    spaces become ``-``.

    >>> slug("The Python client (`wizard/client/`)")
    'the-python-client-wizardclient'
    >>> slug("Client → server")
    'client--server'
    """
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of a page's headings (outside fenced code); a repeated heading gets
    ``-1``, ``-2``, ... as on GitHub."""
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", page.read_text())):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_names_an_existing_file(page: Path) -> None:
    missing = [target for target in relative_links(page)
               if not (page.parent / target.split("#", 1)[0]).exists()]
    assert not missing, f"{page.relative_to(ROOT)} links to missing files: {missing}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_anchor_names_a_heading_of_its_page(page: Path) -> None:
    broken = []
    for target in links(page):
        if "#" not in target or re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue
        path, anchor = target.split("#", 1)
        linked = (page.parent / path) if path else page
        if linked.suffix == ".md" and linked.exists() and anchor not in anchors(linked):
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)} links to missing anchors: {broken}"


def test_anchors_are_githubs() -> None:
    assert slug("OI agent (`scripts/bench_model.py --agent oi`)") == (
        "oi-agent-scriptsbench_modelpy---agent-oi")
    assert slug("Training (`wizard/training/`, `train` extra)") == (
        "training-wizardtraining-train-extra")
    assert slug("Strength and speed: the current figures") == (
        "strength-and-speed-the-current-figures")
    assert "the-inference-pool-wizardaipool" in anchors(ROOT / "docs" / "pool.md")
    ops = anchors(ROOT / "docs" / "operations.md")
    assert "metrics-metrics" in ops and "prometheusyml" not in ops  # a comment in a code block


def test_the_link_pattern_finds_links_and_skips_code() -> None:
    page = ROOT / "docs" / "README.md"
    assert "rules.md" in relative_links(page) and "measurements/ai.md" in relative_links(page)
    assert LINK.findall("see [a](b.md#c) and ![img](d.png) `[x](nowhere.md)`") == [
        "b.md#c", "d.png", "nowhere.md"]  # the code span is removed before, in relative_links


def test_the_reference_pages_link_their_measurements() -> None:
    for area in ("ai", "performance"):
        reference = (ROOT / "docs" / f"{area}.md").read_text()
        assert f"(measurements/{area}.md" in reference, area
