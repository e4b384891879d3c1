"""Write the rules reference (docs/reference/rules/) from the rules lbnorm registers.

Each rule's docstring is its documentation: this script asks `lbnorm rules` for
every rule (JSON for the id, name, severity and text; the text output for the
example finding and the settings that change it) and writes one page per rule
family plus an index. tests/acceptance/test_docs_site.py runs it with --check, so the
committed pages cannot drift from the code.

    python scripts/rules_reference.py          # rewrite the pages
    python scripts/rules_reference.py --check  # exit 1 if a page is not current
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "docs" / "reference" / "rules"

# Id prefixes -> (page name, title, what the family asks). The sample-log family is two pages.
FAMILIES = {
    ("LB1",): ("input", "LB1xx: Input files", "Can the files be read at all, within the budgets?"),
    ("LB2",): (
        "submission",
        "LB2xx: Submission",
        "Is the submission well formed, and what does it point at?",
    ),
    ("LB3",): (
        "tasks",
        "LB3xx: Tasks",
        "Are the tasks in the results the ones the leaderboard scores?",
    ),
    ("LB4",): (
        "values",
        "LB4xx: Values",
        "Are the numbers possible, and consistent with each other?",
    ),
    ("LB5",): ("runs", "LB5xx: Run conditions", "Was the run the one the leaderboard asks for?"),
    ("LB6",): (
        "scores",
        "LB6xx: Scores",
        "Do the reported numbers match the ones recomputed from the results?",
    ),
    ("LB70",): (
        "sample-logs",
        "LB70x: Sample logs, records and scores",
        "Do the per-sample logs hold every sample, and give the numbers of the results file?",
    ),
    ("LB71", "LB72"): (
        "sample-log-checks",
        "LB71x-LB72x: Sample logs, scorers, prompts and DROP",
        "Were the samples scored, prompted and answered as the run declares?",
    ),
}


def lbnorm(*args: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "validator", "rules", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def details(prefixes: tuple[str, ...]) -> dict[str, str]:
    """Rule id -> what `lbnorm rules LBn` prints for it: the text, the example finding, the settings."""
    chunks = re.split(r"^(?=LB\d{3} )", lbnorm(*prefixes), flags=re.M)
    found = {}
    for chunk in filter(None, chunks):
        rule_id = chunk[:5]
        found[rule_id] = chunk
    return found


def first_sentence(doc: str) -> str:
    text = " ".join(doc.split("\n\n", 1)[0].split())
    return text.replace("|", "\\|")


def rule_section(rule: dict, chunk: str) -> str:
    doc_lines = len(rule["doc"].splitlines())
    rest = chunk.splitlines()[1 + doc_lines :]
    extra = "\n".join(line.removeprefix("    ") for line in rest).strip("\n")
    parts = [
        f"## {rule['id']} {rule['name']}",
        f"Severity: **{rule['severity']}**",
        rule["doc"].strip(),
    ]
    if extra:
        parts.append(f"```text\n{extra}\n```")
    return "\n\n".join(parts) + "\n"


def pages() -> dict[Path, str]:
    rules = json.loads(lbnorm("--output-format", "json"))
    written: dict[Path, str] = {}
    index = [
        "# Rules",
        "",
        "Every finding lbnorm reports carries a stable rule id. This reference is generated from",
        "the rules' own documentation (`python scripts/rules_reference.py`); `lbnorm rules ID`",
        "prints the same text in a terminal. Which fields of a submission change these checks,",
        "and why none can soften a verdict: the page *Fields a submitter controls*",
        "(`docs/submitter-fields.md`).",
        "",
        "| id | name | severity | what it checks |",
        "|---|---|---|---|",
    ]
    for prefixes, (name, title, question) in FAMILIES.items():
        members = [r for r in rules if r["id"].startswith(prefixes)]
        if not members:
            continue
        chunks = details(prefixes)
        body = [f"# {title}", "", question, ""]
        body += [rule_section(r, chunks[r["id"]]) for r in members]
        written[OUT / f"{name}.md"] = "\n".join(body)
        for r in members:
            anchor = f"{r['id']}-{r['name']}".lower()
            index.append(
                f"| [{r['id']}]({name}.md#{anchor}) | {r['name']} | {r['severity']} "
                f"| {first_sentence(r['doc'])} |"
            )
    known = tuple(prefix for prefixes in FAMILIES for prefix in prefixes)
    unknown = [r["id"] for r in rules if not r["id"].startswith(known)]
    if unknown:
        raise SystemExit(f"rules of no known family: {unknown}; add the family to FAMILIES")
    written[OUT / "index.md"] = "\n".join(index) + "\n"
    return written


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for path, text in pages().items():
        if check:
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                stale.append(path.relative_to(REPO).as_posix())
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if stale:
        print(f"not current: {', '.join(stale)}; run python scripts/rules_reference.py")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
