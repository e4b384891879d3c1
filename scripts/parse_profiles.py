"""Write the parsed copy of each built-in profile (validator/profiles/parsed/<name>.json) from its YAML.

    python scripts/parse_profiles.py           # write the copies that differ, remove those of no profile
    python scripts/parse_profiles.py --check   # write nothing; exit 1, naming them, if any copy is stale

A run reads a built-in profile from its copy, which spares it importing PyYAML; a copy made from
another text than the YAML's is not used (validator/io/loaders.py: parsed_profile).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from validator.io.loaders import (  # noqa: E402
    PARSED_PROFILES,
    builtin_profile_names,
    builtin_profile_text,
    builtin_profile_yaml,
    package_files,
    parsed_profile_copy,
)


def copies() -> dict[Path, str]:
    """Each built-in profile's copy: its path, and the JSON it should hold."""
    folder = package_files() / PARSED_PROFILES
    written = {}
    for name in builtin_profile_names():
        copy = parsed_profile_copy(name, builtin_profile_text(name), builtin_profile_yaml(name))
        written[folder / f"{name}.json"] = json.dumps(copy, indent=1, ensure_ascii=False) + "\n"
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a copy is stale"
    )
    args = parser.parse_args()
    expected = copies()
    folder = package_files() / PARSED_PROFILES
    orphans = sorted(set(folder.glob("*.json")) - set(expected))
    stale = [
        path
        for path, text in expected.items()
        if not path.is_file() or path.read_text(encoding="utf-8") != text
    ]
    if args.check:
        for path in stale:
            print(
                f"{path.relative_to(REPO)}: not its YAML's parsed copy; run python scripts/parse_profiles.py"
            )
        for path in orphans:
            print(
                f"{path.relative_to(REPO)}: the copy of no built-in profile; run python scripts/parse_profiles.py"
            )
        return 1 if stale or orphans else 0
    folder.mkdir(exist_ok=True)
    for path in stale:
        path.write_text(expected[path], encoding="utf-8", newline="\n")
    for path in orphans:
        path.unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
