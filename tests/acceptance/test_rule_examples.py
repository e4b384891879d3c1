"""`lbnorm rules LB601` shows an example finding: validator/findings/rule_examples.json, made from tests/examples.

Each rule's example is the first finding of that rule in its negative example
case (tests/examples/negative/<id>_*). This test remakes them and compares, so
the shipped examples never drift from what lbnorm reports. To remake the file:
    python tests/acceptance/test_rule_examples.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, when run as a script

from test_examples import CASES, EXAMPLES, run_case  # noqa: E402

SHIPPED = Path(__file__).resolve().parents[2] / "validator" / "findings" / "rule_examples.json"


def current_examples() -> dict[str, dict]:
    examples: dict[str, dict] = {}
    for case in CASES:
        if case.parent.name != "negative" or not case.name.startswith("LB"):
            continue
        rule_id = case.name[:5]
        if rule_id in examples:
            continue
        _, _, _, report = run_case(case, reuse=True)
        prefix = case.relative_to(EXAMPLES).as_posix() + "/"
        finding = next((f for f in report["findings"] if f["rule"] == rule_id), None)
        if finding:
            examples[rule_id] = {
                "case": f"tests/examples/{prefix.rstrip('/')}",
                "file": finding["file"].removeprefix(prefix),
                "line": finding["line"],
                "column": finding["column"],
                "json_path": finding["json_path"],
                "message": finding["message"],
            }
    return examples


def test_the_shipped_rule_examples_are_what_lbnorm_reports_today():
    assert json.loads(SHIPPED.read_text()) == current_examples(), (
        f"remake them: {sys.executable} {__file__}"
    )


if __name__ == "__main__":
    SHIPPED.write_text(
        json.dumps(current_examples(), indent=1, ensure_ascii=False, sort_keys=True) + "\n"
    )
