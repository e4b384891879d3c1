"""The wheel carries every module, schema and profile (a source-tree test run cannot see a missing one)."""

from __future__ import annotations

import subprocess
import sys
import zipfile

from conftest import REPO


def test_the_wheel_contains_the_whole_package(tmp_path):
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(tmp_path),
                    str(REPO)], check=True, capture_output=True, timeout=300)
    wheel = next(tmp_path.glob("lbnorm-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {p.relative_to(REPO).as_posix() for p in (REPO / "validator").rglob("*.py")}
    expected |= {f"validator/profiles/{p.name}" for p in (REPO / "validator" / "profiles").glob("*.yaml")}
    expected |= {f"validator/schemas/{p.name}" for p in (REPO / "schemas").glob("*.json")}
    assert expected - names == set()
    assert any(name.endswith("entry_points.txt") for name in names)
