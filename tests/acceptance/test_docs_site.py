"""The documentation site: its generated pages are current, and it builds with `mkdocs build --strict`.

The rules reference is written from the rules' docstrings by scripts/rules_reference.py and the
command-line reference by mkdocs-click from the click commands, so neither can drift from the code.
A strict build fails on a broken link, a missing anchor or a page left out of the navigation.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest
import yaml
from support.common import REPO, run_cli

SCRIPTS = REPO / "scripts"


def test_the_rules_reference_is_what_the_rules_say(monkeypatch, capsys):
    """The script's --check, with each `lbnorm rules` it asks for run by run_cli."""
    spec = importlib.util.spec_from_file_location("rules_reference", SCRIPTS / "rules_reference.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)

    def lbnorm(*args: str) -> str:
        proc = run_cli("rules", *args)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    monkeypatch.setattr(script, "lbnorm", lbnorm)
    assert script.main(["--check"]) == 0, capsys.readouterr().out


def test_every_page_is_in_the_navigation():
    def listed(entries) -> set[str]:
        found = set()
        for entry in entries:
            value = next(iter(entry.values())) if isinstance(entry, dict) else entry
            found |= listed(value) if isinstance(value, list) else {value}
        return found

    config = yaml.load((REPO / "mkdocs.yml").read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
    pages = {p.relative_to(REPO / "docs").as_posix() for p in (REPO / "docs").rglob("*.md")}
    assert listed(config["nav"]) == pages


def test_no_page_is_longer_than_a_person_reads():
    """About 3,000 words at most: a longer page is split by topic."""
    long = {
        p.relative_to(REPO).as_posix(): len(p.read_text(encoding="utf-8").split())
        for p in [REPO / "README.md", *(REPO / "docs").rglob("*.md")]
    }
    assert {page: words for page, words in long.items() if words > 3_200} == {}


@pytest.mark.slow  # a whole MkDocs build
def test_the_site_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs extra (pip install '.[docs]') builds the site")
    pytest.importorskip("material", reason="the docs extra installs the Material theme")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(REPO), "NO_MKDOCS_2_WARNING": "1"},
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert (
        (tmp_path / "site" / "reference" / "cli" / "index.html").read_text().count("lbnorm survey")
    )
