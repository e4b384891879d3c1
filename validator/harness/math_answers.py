"""The answer lm-eval's leaderboard MATH takes from a solution: its process_docs, without running it.

lm_eval/tasks/leaderboard/math/utils.py (0.4.9 to 0.4.13) builds each doc as
{problem, solution, answer: remove_boxed(last_boxed_only_string(solution))},
and scores a generation against that answer. Both functions are ported as
they are, quirks kept (a "\\boxed " anywhere wins over the last "\\boxed{";
"\\fbox{...}" is found but never unboxed), since the audit must give what the
harness gave. The brace scan jumps from brace to brace: a solution is the
submitter's text. Pure: no I/O.
"""

from __future__ import annotations

import re

INVALID_ANSWER = "[invalidanswer]"
# How a config's process_docs source shows the leaderboard's (minerva_math's normalizes the answer too)
PROCESS_DOCS_MARK = 'remove_boxed(last_boxed_only_string(doc["solution"]))'
_BRACE = r"[{}]"  # compiled by re for the first MATH answer


def boxed_answer(solution: str) -> str:
    """remove_boxed(last_boxed_only_string(solution)), as the harness computes it."""
    return remove_boxed(last_boxed_only_string(solution))


def last_boxed_only_string(string: str) -> str:
    index = string.rfind("\\boxed")
    if "\\boxed " in string:
        return "\\boxed " + string.rpartition("\\boxed ")[2].partition("$")[0]
    if index < 0:
        index = string.rfind("\\fbox")
        if index < 0:
            return INVALID_ANSWER
    depth = 0
    for brace in re.compile(_BRACE).finditer(string, index):
        if brace.group() == "{":
            depth += 1
            continue
        depth -= 1
        if (
            depth == 0
        ):  # the harness checks only after a closing brace, so one before any opening one counts
            return string[index : brace.end()]
    return INVALID_ANSWER


def remove_boxed(text: str) -> str:
    if "\\boxed " in text:
        return text[len("\\boxed ") :] if text.startswith("\\boxed ") else INVALID_ANSWER
    return (
        text[len("\\boxed{") : -1]
        if text.startswith("\\boxed{") and text.endswith("}")
        else INVALID_ANSWER
    )
