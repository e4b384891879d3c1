"""The wheel carries every module, schema and profile (a source-tree test run cannot see a missing one)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile

from support.common import REPO


def test_the_wheel_contains_the_whole_package(tmp_path):
    # Built from a copy: a build in the tree itself rewrites validator/core/_build_version.py and leaves build/
    # and lbnorm.egg-info/ behind, under the feet of a running test process (and of Dask workers importing it).
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(REPO / name, source / name)
    for name in (
        "validator",
        "schemas",
        "examples/workflows",
    ):  # validator/schemas is a relative symlink to ../schemas: kept as one
        shutil.copytree(
            REPO / name,
            source / name,
            symlinks=True,
            ignore=shutil.ignore_patterns("__pycache__", "_build_version.py"),
        )
    environment = {
        **os.environ,
        "SETUPTOOLS_SCM_PRETEND_VERSION": "1.2.3",
    }  # the copy has no git metadata: the version a release tag would give
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--wheel-dir",
            str(tmp_path),
            str(source),
        ],
        check=True,
        capture_output=True,
        timeout=300,
        env=environment,
    )
    wheel = next(tmp_path.glob("lbnorm-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {p.relative_to(REPO).as_posix() for p in (REPO / "validator").rglob("*.py")}
    expected |= {
        f"validator/profiles/{p.name}" for p in (REPO / "validator" / "profiles").glob("*.yaml")
    }
    expected |= {  # each built-in profile's parsed copy: without it a run imports PyYAML
        f"validator/profiles/parsed/{p.name}"
        for p in (REPO / "validator" / "profiles" / "parsed").glob("*.json")
    }
    expected |= {f"validator/schemas/{p.name}" for p in (REPO / "schemas").glob("*.json")}
    expected |= {  # what `lbnorm init` writes
        f"validator/authoring/templates/{p.name}"
        for p in (REPO / "examples" / "workflows").glob("*.y*ml")
    }
    assert expected - names == set()
    assert any(name.endswith("entry_points.txt") for name in names)
    # The license travels with the wheel, and the metadata names it, its home and what it is for.
    license_file = next(name for name in names if name.endswith(".dist-info/licenses/LICENSE"))
    archive = zipfile.ZipFile(wheel)
    assert archive.read(license_file) == (REPO / "LICENSE").read_bytes()
    assert b"Apache License" in archive.read(license_file)[:200]
    metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    for field in (
        "License-Expression: Apache-2.0",
        "License-File: LICENSE",
        "Author: ",
        "Keywords: ",
    ):
        assert field in metadata, field
    assert metadata.count("Project-URL: ") >= 4 and metadata.count("Classifier: ") >= 8
    # The installed wheel says the version its metadata holds (written at build time, never looked up).
    assert "\nVersion: 1.2.3\n" in metadata
    installed = tmp_path / "installed"
    archive.extractall(installed)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {
        "PYTHONPATH": str(installed)
    }
    version = subprocess.run(
        [sys.executable, "-m", "validator", "--version"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert version.stdout == "lbnorm, version 1.2.3\n", version.stderr
