"""Write validator/harness/unicode_tables.py: what `re` decides over every code point, per Unicode version.

    python scripts/unicode_tables.py PYTHON [PYTHON ...]   # one interpreter per Unicode version to cover
    python scripts/unicode_tables.py --check               # exit 1 if this Python's version is not covered

Each PYTHON is asked, through `re` itself, which code points have a case (_sre.unicode_iscased) and which
`\\d` and `\\s` match in a str pattern, and which Unicode version it carries. The module holds the cased
code points of all versions together (a superset of each: regex_classes.py asks `re` which of them a
case-insensitive literal matches) and each version's classes as they are.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODULE = REPO / "validator" / "harness" / "unicode_tables.py"
# \w is left to a scan: its table, some 700 ranges a version, would take the Action's image past its bound
CLASSES = {"digit": r"\d", "space": r"\s"}

ASK = """
import _sre, json, re, sys, unicodedata
points = [p for p in range(0x110000) if not 0xD800 <= p < 0xE000]  # no UTF-8 text holds a surrogate
every = "".join(map(chr, points))
answer = {"version": unicodedata.unidata_version, "cased": [p for p in points if _sre.unicode_iscased(p)]}
for name, escape in json.loads(sys.argv[1]).items():
    answer[name] = [points[m.start()] for m in re.finditer(escape, every)]
print(json.dumps(answer))
"""

HEADER = '''"""What `re` decides over every code point, for the Unicode versions listed: written by scripts/unicode_tables.py.

regex_classes.py reads these instead of asking `re` about each of the 1.1 million code points (about 80 ms for
the code points with a case, 30 for the first class) when the running Python's Unicode version is listed.
CASED is the union of the versions' code points with a case (`re`'s _sre.unicode_iscased), as ranges: a
superset of each, among which `re` itself decides what a case-insensitive literal matches. CLASSES holds, per
version, the code points `\\\\d` and `\\\\s` match in a str pattern, as "low-high" ranges, exactly.
"""

'''


def ranges(points: list[int]) -> list[tuple[int, int]]:
    merged: list[list[int]] = []
    for point in sorted(set(points)):
        if merged and point == merged[-1][1] + 1:
            merged[-1][1] = point
        else:
            merged.append([point, point])
    return [(low, high) for low, high in merged]


def asked(python: str) -> dict:
    done = subprocess.run(
        [python, "-c", ASK, json.dumps(CLASSES)], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def written(points: list[int]) -> str:
    return " ".join(f"{low}-{high}" for low, high in ranges(points))


def module_text(answers: list[dict]) -> str:
    versions = sorted({answer["version"] for answer in answers})
    cased = "".join(
        f"    ({low}, {high}),\n"
        for low, high in ranges([p for answer in answers for p in answer["cased"]])
    )
    classes = "".join(
        f'    "{answer["version"]}": {{\n'
        + "".join(f'        "{name}": "{written(answer[name])}",\n' for name in CLASSES)
        + "    },\n"
        for answer in sorted(answers, key=lambda answer: answer["version"])
    )
    listed = ", ".join(map(json.dumps, versions)) + "," * (len(versions) == 1)
    return (
        HEADER
        + f"UNICODE_VERSIONS = ({listed})\n"
        + f"CASED = (\n{cased})\n"
        + f"CLASSES = {{\n{classes}}}\n"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pythons", nargs="*", help="an interpreter for each Unicode version")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if args.check:
        answer = asked(sys.executable)
        sys.path.insert(0, str(REPO))
        from validator.harness import unicode_tables as table

        cased = {p for low, high in table.CASED for p in range(low, high + 1)}
        held = table.CLASSES.get(answer["version"], {})
        if not cased >= set(answer["cased"]) or any(
            held.get(name) != written(answer[name]) for name in CLASSES
        ):
            print(f"{MODULE.name} does not hold Unicode {answer['version']}", file=sys.stderr)
            return 1
        return 0
    if not args.pythons:
        parser.error("name at least one Python, or pass --check")
    answers = {answer["version"]: answer for answer in map(asked, args.pythons)}
    MODULE.write_text(module_text(list(answers.values())))
    print(f"wrote {MODULE.relative_to(REPO)}: Unicode {', '.join(sorted(answers))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
