"""Every tracked file says what the product does, not how it came to be, and cites nothing outside it.

Who found a defect, in which round of testing, under which issue number, belongs in the
project's issue tracker; the repository describes behaviour and its reasons. Citations
point at pages under docs/ or at public sources, so a plain clone holds everything a
reader is sent to: the source keys a profile cites (S1, S7a...) are the rows of
docs/reference/normalization.md's source table. The patterns are narrow on purpose, so ordinary words such as an HTTP session or rounding never match.
"""

from __future__ import annotations

import re
import subprocess

import pytest
from support.common import REPO

ORDINAL = (
    r"(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth"
    r"|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth"
    r"|twenty[- ]\w+|thirtieth|\d+(?:st|nd|rd|th))"
)

FORBIDDEN = {
    "a development session": re.compile(
        rf"\b{ORDINAL} session\b|\b(?:this|last|earlier|previous|next) sessions?\b"
        r"|\bsessions? before\b",
        re.I,
    ),
    "a round of testing": re.compile(
        rf"\b{ORDINAL} round\b|\bround (?:one|two|three|four|five)\b"
        r"|\b(?:earlier|previous|last|each) rounds?\b|\bround by round\b",
        re.I,
    ),
    "who tested it": re.compile(
        r"\bred[- ]?team|\boutside (?:testers?|red|reviews?|reviewers?|judges?|sweeps?|attacks?)\b"
        r"|\bfound by (?:an outside|a (?:second )?(?:outside|red|docs)|outside)\b"
        r"|\b(?:an?|the|another|earlier) testers?(?:'s?)?\b"
        r"|\((?:review|reviewer)\b[^)]*\)|^\W*Review:|\brepro r\d+\b",
        re.I,
    ),
    "an issue number": re.compile(
        r"\bissues? #?\d+\b|\b(?:PR|pull request|closes|fixes|fixed|see)\s+#\d+\b|\(#\d+\)"
        r"|\bthe issue's\b|\bthe issue names\b",
        re.I,
    ),
    "a change's history": re.compile(
        r"\bwas fixed\b|\bfixed the same day\b|\bpreviously\b|\bnow (?:told|a finding|findings)\b"
        r"|\bonce (?:kept|passed|let|took|made)\b",
        re.I,
    ),
    "a specification outside the repository": re.compile(
        r"shared/(?:spec|seeds|style)\b|/work/|\bspec(?:ification)? section\b"
        r"|\bspec (?:[AB]\.)?\d+(?:\.\d+)*\b|\bthe spec's\b",
        re.I,
    ),
}

# This file holds the patterns themselves.
EXEMPT = {"tests/acceptance/test_no_history.py"}
TEXT_SUFFIXES = {
    ".py",
    ".md",
    ".yml",
    ".yaml",
    ".toml",
    ".txt",
    ".cfg",
    ".sh",
    ".json",
    ".j2",
    ".ini",
    "",
}


def tracked_text_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode()
    files = []
    for name in filter(None, listed.split("\0")):
        path = REPO / name
        if name in EXEMPT or not path.is_file() or path.suffix not in TEXT_SUFFIXES:
            continue
        if "/data/" in name or name.endswith(".jsonl"):  # recorded harness outputs, not prose
            continue
        files.append(name)
    return files


def test_the_listing_sees_the_repository():
    files = tracked_text_files()
    assert "README.md" in files and "CHANGELOG.md" in files
    assert any(name.startswith("validator/") for name in files)


@pytest.mark.parametrize("kind", sorted(FORBIDDEN))
def test_no_tracked_file_tells_history_or_cites_outside(kind):
    pattern = FORBIDDEN[kind]
    hits = []
    for name in tracked_text_files():
        text = (REPO / name).read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            match = pattern.search(line)
            if match:
                hits.append(f"{name}:{number}: {match.group(0)!r}")
    assert not hits, f"{kind} in {len(hits)} line(s):\n" + "\n".join(hits[:60])


@pytest.mark.parametrize(
    ("kind", "line"),
    [
        ("a development session", "measur·ed in the t·wenty-ninth s·ession"),
        ("a round of testing", "a r·ed t·eam's fourth r·ound"),
        ("who tested it", "found by an o·utside tester"),
        ("who tested it", "Found by an o·utside judge: the parent"),
        ("who tested it", "(found by an o·utside sweep)"),
        ("who tested it", "Found by a second o·utside r·eview: contexts"),
        ("who tested it", "Found by a docs r·eview: an input"),
        ("who tested it", "an internal error until an o·utside r·eview built one"),
        ("who tested it", "the r·ed-t·eaming notes"),
        ("who tested it", "a R·ed T·eam finding"),
        ("who tested it", "r·edt·eam"),
        ("an issue number", "see lbnorm i·ssue 14"),
        ("an issue number", "closes ·#52"),
        ("an issue number", "the parser fix (·#1480)"),
        ("a change's history", "a gap, f·ixed the same day"),
        ("a change's history", "--resume o·nce kept every row"),
        ("a change's history", "4 GiB of newlines o·nce took minutes"),
        ("who tested it", "a broken pipe was taken for success (r·eview, r10)."),
        ("who tested it", "clean rows (r·eview, r·epro r1)."),
        ("who tested it", "a full disk (r·eviewer)."),
        ("who tested it", '    """R·eview: a worker dying before it read its batch'),
        ("a specification outside the repository", "shar·ed/s·pec/normalization.md section 1"),
        ("a specification outside the repository", "the sizes of s·pec section 2.1"),
        ("a specification outside the repository", "the deep dive's flags (s·pec B.2.3)"),
        ("a specification outside the repository", "The s·pec's DROP run"),
    ],
)
def test_each_pattern_catches_what_it_names(kind, line):
    # written with "·" inside the words, so this file does not itself hold what it forbids
    assert FORBIDDEN[kind].search(line.replace("·", ""))


@pytest.mark.parametrize(
    "line",
    [
        "client = await filesystem.set_session()",
        "40.62 and 40.63 both round it to two decimals",
        "Round-robin rather than one command's repeats in a row",
        "a survey is cut into whole rounds of tasks",
        "org__mödel v2 #1 100%",
        "color: #222; background: #f6f8fa",
        "install s3fs for s3:// sources",
        "tests/examples/common/pythia-1b.json",
        "the test run's temporary folder",
        "module = importlib.util.module_from_spec(spec)",
        "spec.name, spec.n_effective",
        "a task found by the survey's own planner",
        "the files named as such (not found by a walk)",
        "a symlink whose target leads outside the workspace",
        "paths outside tests/ are product code",
        "a code reviewer (see CONTRIBUTING.md) reads every change",
        "each file is read once and kept for the run",
    ],
)
def test_ordinary_words_pass(line):
    assert not any(pattern.search(line) for pattern in FORBIDDEN.values())


def test_every_source_key_a_profile_cites_is_on_the_reference_page():
    import yaml

    page = (REPO / "docs" / "reference" / "normalization.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| (\S+) \| ", page.split("## Sources", 1)[1], flags=re.M))
    for path in sorted((REPO / "validator" / "profiles").glob("*.yaml")):
        profile = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert set(profile.get("sources", {})) <= listed, path.name
        cited = re.findall(r"\[(S\d+\w?)[,\]]", page)
        assert set(cited) <= listed


def test_every_page_the_product_cites_is_in_the_repository():
    """Code, profiles, messages and tests cite pages under docs/ by path: each must exist in a plain clone."""
    cited = re.compile(r"(?<![\w/])docs/[\w/.-]+?\.md")
    missing = []
    for name in tracked_text_files():
        if not name.startswith(
            ("validator/", "tests/", "scripts/", "bench/", "examples/", ".github/")
        ):
            continue
        text = (REPO / name).read_text(encoding="utf-8", errors="replace")
        missing += [
            f"{name}: {page}" for page in cited.findall(text) if not (REPO / page).is_file()
        ]
    assert not missing, "\n".join(missing)
