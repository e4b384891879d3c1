"""Every rule's finding, as the example folders make it, reads in a glance and cites nothing internal.

A message states what is wrong and the fix in one line of at most SHORT_MESSAGE_CHARS characters; the rest
(formulas, per-subtask values, the reasons behind a rule) is the finding's details and `lbnorm rules ID`.
"""

from __future__ import annotations

import re

from test_examples import CASES, run_case

from validator.check.rules import all_rules
from validator.findings.registry import (
    SHORT_MESSAGE_CHARS,
    make_finding,
    read_length,
    split_message,
)

CITATIONS = re.compile(
    r"\bS\d+(\.\d+)*\b|\bissue\s*#?\d+|(^|\s)#\d+\b|\bdocs/|\bspec/|\.md\b|\bspec(ification)? section\b|\bsession\b",
    re.IGNORECASE,
)


def test_every_rule_s_findings_are_short_and_cite_nothing_internal():
    seen = set()
    for case in CASES:
        _, _, _, report = run_case(case, reuse=True)
        for finding in report["findings"]:
            seen.add(finding["rule"])
            message = finding["message"]
            # a path counts as its last part: the folders depend on where the repository is checked out
            assert read_length(message) <= SHORT_MESSAGE_CHARS, (
                case.name,
                finding["rule"],
                message,
            )
            assert "\n" not in message
            for text in (message, finding.get("details") or ""):
                assert not CITATIONS.search(text), (case.name, finding["rule"], text)
    assert seen >= {rule.id for rule in all_rules() if rule.id not in ("LB110",)}


def test_a_long_message_keeps_what_is_wrong_and_the_fix_and_moves_the_rest_to_details():
    wrong, middle, fix = (
        "x: reported 9.99, recomputed 2.29",
        "formula " * 30,
        "report the recomputed value",
    )
    finding = make_finding("LB601", "s.json", f"{wrong}; {middle.strip()}; {fix}")
    assert finding.message == f"{wrong}; {fix}" and finding.details == middle.strip()
    assert split_message("short; enough") == ("short; enough", None)
    head, rest = split_message("word " * 100)
    assert len(head) <= SHORT_MESSAGE_CHARS and rest
