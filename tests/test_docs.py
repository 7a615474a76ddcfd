"""The manual's links lead somewhere: every relative markdown link in README.md and
docs/**.md names a file that exists (anchors are not checked)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# [text](target) and ![alt](target); a target ends at whitespace or ")"
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)


def relative_links(page: Path) -> list[str]:
    """The page's link targets outside code that point into the repository."""
    text = CODE.sub("", page.read_text())
    return [target for target in LINK.findall(text)
            if not re.match(r"^[a-z][a-z0-9+.-]*:", target) and not target.startswith("#")]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_names_an_existing_file(page: Path) -> None:
    missing = [target for target in relative_links(page)
               if not (page.parent / target.split("#", 1)[0]).exists()]
    assert not missing, f"{page.relative_to(ROOT)} links to missing files: {missing}"


def test_the_link_pattern_finds_links_and_skips_code() -> None:
    page = ROOT / "docs" / "README.md"
    assert "rules.md" in relative_links(page) and "measurements/ai.md" in relative_links(page)
    assert LINK.findall("see [a](b.md#c) and ![img](d.png) `[x](nowhere.md)`") == [
        "b.md#c", "d.png", "nowhere.md"]  # the code span is removed before, in relative_links


def test_the_reference_pages_link_their_measurements() -> None:
    for area in ("ai", "performance"):
        reference = (ROOT / "docs" / f"{area}.md").read_text()
        assert f"(measurements/{area}.md" in reference, area
