"""Write validator/harness/cased_code_points.py: every code point with a case, in each Unicode version given.

    python scripts/cased_code_points.py PYTHON [PYTHON ...]   # one interpreter per Unicode version to cover
    python scripts/cased_code_points.py --check               # exit 1 if this Python's version is not covered

Each PYTHON is asked which code points `re`'s engine gives a case (_sre.unicode_iscased) and which Unicode
version it carries; the module holds the union, as ranges, and the versions. A union is a superset of each
version's set, which is all regex_classes.py needs: it asks `re` itself which of them a case-insensitive
literal matches, and asks every code point where the running Python's version is not listed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODULE = REPO / "validator" / "harness" / "cased_code_points.py"

ASK = """
import _sre, json, unicodedata
cased = [point for point in range(0x110000) if _sre.unicode_iscased(point)]
print(json.dumps({"version": unicodedata.unidata_version, "cased": cased}))
"""

HEADER = '''"""Every code point with a case (`re`'s _sre.unicode_iscased) in the Unicode versions listed, as ranges.

Written by scripts/cased_code_points.py, one Python per version; regex_classes.py reads it instead of asking
each of the 1.1 million code points (80 ms a process) when the running Python's version is listed. The
ranges are the versions' union: a superset of each, among which `re` itself decides.
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


def asked(python: str) -> tuple[str, list[int]]:
    done = subprocess.run([python, "-c", ASK], capture_output=True, text=True, check=True)
    answer = json.loads(done.stdout)
    return answer["version"], answer["cased"]


def module_text(versions: list[str], points: list[int]) -> str:
    rows = "".join(f"    ({low}, {high}),\n" for low, high in ranges(points))
    return (
        HEADER
        + f"UNICODE_VERSIONS = ({', '.join(map(json.dumps, versions))}{',' * (len(versions) == 1)})\n"
        + f"RANGES = (\n{rows})\n"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "pythons", nargs="*", help="an interpreter for each Unicode version to cover"
    )
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    if args.check:
        sys.path.insert(0, str(REPO))
        from validator.harness import cased_code_points as table

        version, cased = asked(sys.executable)
        covered = {p for low, high in table.RANGES for p in range(low, high + 1)}
        if version not in table.UNICODE_VERSIONS or not covered >= set(cased):
            print(
                f"{MODULE.name} does not cover Unicode {version}; write it again", file=sys.stderr
            )
            return 1
        return 0
    if not args.pythons:
        parser.error("name at least one Python, or pass --check")
    versions, points = [], []
    for python in args.pythons:
        version, cased = asked(python)
        versions.append(version)
        points += cased
    MODULE.write_text(module_text(sorted(set(versions)), points))
    print(f"wrote {MODULE.relative_to(REPO)}: Unicode {', '.join(sorted(set(versions)))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
