"""The documentation works as written: every shell example runs, every link resolves.

Shell examples are the ```sh / ```bash / ```console blocks of README.md and
the pages under docs/. Each page's examples run in order, one line at a time, in a fresh
folder holding a copy of examples/, with `lbnorm` on PATH; a line ends in
`# exits N` when it is meant to fail. A block that cannot run here (it
installs packages, needs a GPU or a git hosting service) has an HTML comment
`<!-- not run ... -->` on the line before it: its lbnorm commands are still
parsed against the real command line, so a renamed option breaks the test.
YAML blocks are checked for what they are: pre-commit configs against
.pre-commit-hooks.yaml and the release, workflows against action.yml,
profiles against the schema.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
import yaml
from support.common import REPO

from validator.authoring.profile_check import check_profile_file
from validator.cli import cli

PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
SHELL = {"sh", "bash", "shell", "console"}
NOT_RUN = "<!-- not run"
# The rev placeholder a release fills (tests/unit/test_workflows.py fills it).
RELEASE = "RELEASE_SHA"
FENCE = re.compile(r"^```(?P<lang>[\w-]*)\n(?P<body>.*?)^```", re.S | re.M)
LINK = re.compile(r"(?<!!)\[[^\]]*\]\((?P<target>[^)\s]+)\)")


def blocks(page: Path) -> list[tuple[str, str, int, bool]]:
    """(language, body, line, marked not run) of each fenced block."""
    text = page.read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        found.append((match["lang"], match["body"], line, before.startswith(NOT_RUN)))
    return found


def commands(body: str) -> list[tuple[str, int]]:
    """Command lines of a shell block (comments and blank lines skipped) and the exit code each expects."""
    out = []
    for line in body.replace("\\\n", " ").splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        expected = re.search(r"#\s*exits (\d+)", line)
        out.append((line, int(expected[1]) if expected else 0))
    return out


def lbnorm_arguments(line: str) -> list[list[str]]:
    """The arguments of every `lbnorm ...` command on a line (`a && b` holds two)."""
    words = shlex.split(line, comments=True)
    found, current = [], None
    for word in words:
        if word in ("&&", "||", ";", "|"):
            current = None
        elif word == "lbnorm" and current is None:
            current = []
            found.append(current)
        elif current is not None:
            current.append(word)
    return found


def parse_with_the_real_cli(args: list[str]) -> None:
    """Resolve subcommands and options exactly as `lbnorm` would, without running anything."""
    command, name, ctx = cli, "lbnorm", None
    while True:
        ctx = command.make_context(name, list(args), parent=ctx)
        if not isinstance(command, click.Group):
            return
        name, command, args = command.resolve_command(ctx, [*ctx._protected_args, *ctx.args])


def workspace(tmp_path: Path) -> tuple[Path, dict]:
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "lbnorm"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m validator "$@"\n')
    wrapper.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", PYTHONPATH=str(REPO))
    return tmp_path, env


@pytest.mark.slow  # runs every shell example of every page as a process
@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_shell_example_runs_as_written(page, tmp_path):
    folder, env = workspace(tmp_path)
    for lang, body, line, not_run in blocks(page):
        if lang not in SHELL:
            continue
        for command, expected in commands(body):
            for args in lbnorm_arguments(command):
                parse_with_the_real_cli(args)
            if not_run:
                continue
            proc = subprocess.run(
                ["bash", "-c", command],
                cwd=folder,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert proc.returncode == expected, (
                f"{page.name}:{line}: `{command}` exited {proc.returncode}, expected {expected}\n"
                f"{proc.stdout}\n{proc.stderr}"
            )


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_yaml_examples_fit_what_they_configure(page, tmp_path):
    hooks = {hook["id"] for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    inputs = yaml.safe_load((REPO / "action.yml").read_text())["inputs"]
    for lang, body, line, _ in blocks(page):
        if lang != "yaml":
            continue
        data = yaml.safe_load(body)
        where = f"{page.name}:{line}"
        if isinstance(data, dict) and "repos" in data:
            for repo in data["repos"]:
                assert repo["rev"] == RELEASE, (
                    f"{where}: rev {repo['rev']} is not the release {RELEASE}"
                )
                assert {h["id"] for h in repo["hooks"]} <= hooks, (
                    f"{where}: a hook id lbnorm does not ship"
                )
        elif isinstance(data, dict) and "jobs" in data:
            for job in data["jobs"].values():
                for step in job["steps"]:
                    if "OWNER/lbnorm@" in step.get("uses", ""):
                        assert set(step.get("with", {})) <= set(inputs), (
                            f"{where}: an input action.yml lacks"
                        )
                        assert "files" in step["with"], f"{where}: 'files' is required"
        elif isinstance(data, dict) and "profile_format" in data:
            profile = tmp_path / f"line{line}.yaml"
            profile.write_text(body)
            assert check_profile_file(profile) == [], f"{where}: not a valid profile"


def test_the_readme_quick_start_output_is_what_check_prints():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    shown = next(
        body
        for lang, body, _, _ in blocks(REPO / "README.md")
        if lang == "" and "ok: 1 file" in body
    )
    proc = subprocess.run(
        [sys.executable, "-m", "validator", "check", "-v", "examples/pythia-1b/submission.json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert proc.returncode == 0 and proc.stdout == shown
    quick = text[
        text.index("## Quick start") : text.index("\n## ", text.index("## Quick start") + 1)
    ]
    assert (
        len(commands(next(body for lang, body, _, _ in blocks(REPO / "README.md") if lang == "sh")))
        == 2
    )
    assert "pip install . && lbnorm check -v examples/pythia-1b/submission.json" in quick


def anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {
        re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        for heading in re.findall(r"^#+ (.*)$", text, re.M)
    }


def link_problems(page: Path, repo: Path = REPO) -> list[str]:
    """Links that point at nothing, at a heading that does not exist, or out of the repository other than to a
    public web page (https, the sources a page cites)."""
    problems = []
    prose = re.sub(
        r"`[^`\n]*`", "", FENCE.sub("", page.read_text(encoding="utf-8"))
    )  # code is not a link
    for match in LINK.finditer(prose):
        target = match["target"]
        if target.startswith("https://"):
            continue
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
            problems.append(f"{page.name}: {target} leaves the repository")
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        docs = repo / "docs"
        if not (resolved.is_relative_to(repo) and resolved.exists()):
            problems.append(f"{page.name}: {target} does not exist")
        elif page.is_relative_to(docs) and not resolved.is_relative_to(docs):
            problems.append(f"{page.name}: {target} leaves the docs site; write the path as code")
        elif anchor and resolved.suffix == ".md" and anchor not in anchors(resolved):
            problems.append(f"{page.name}: no heading #{anchor} in {path or page.name}")
    return problems


@pytest.mark.parametrize(
    "page", PAGES + [REPO / "examples" / "README.md"], ids=lambda p: p.relative_to(REPO).as_posix()
)
def test_every_link_resolves(page):
    assert link_problems(page) == []


def test_the_link_check_catches_what_it_is_for(tmp_path):
    page = tmp_path / "page.md"
    (tmp_path / "other.md").write_text("# Other page\n")
    page.write_text(
        "[a](http://example.org) [b](nowhere.md) [c](other.md#missing) [d](other.md#other-page)\n"
        "[a public source](https://example.org)\n"
        "![an image](other.md) `[not](a-link.md)` [e](../outside.md)\n"
    )
    assert link_problems(page, repo=tmp_path) == [
        "page.md: http://example.org leaves the repository",
        "page.md: nowhere.md does not exist",
        "page.md: no heading #missing in other.md",
        "page.md: ../outside.md does not exist",
    ]
    (tmp_path / "docs").mkdir()
    (tmp_path / "examples").mkdir()
    inside = tmp_path / "docs" / "page.md"
    inside.write_text("[f](../examples/) [g](page.md)\n")
    assert link_problems(inside, repo=tmp_path) == [
        "page.md: ../examples/ leaves the docs site; write the path as code"
    ]


def test_the_docs_index_lists_every_page():
    index = (REPO / "docs" / "index.md").read_text(encoding="utf-8")
    linked = {m["target"].partition("#")[0] for m in LINK.finditer(index)}
    pages = {p.relative_to(REPO / "docs").as_posix() for p in (REPO / "docs").rglob("*.md")}
    family_pages = {
        p for p in pages if p.startswith("reference/rules/") and p != "reference/rules/index.md"
    }
    assert pages - {"index.md"} - family_pages <= linked


@pytest.mark.slow  # the maintainers' workflow end to end through the Action entrypoint
def test_the_maintainers_workflow_passes_a_submission_through_the_action_entrypoint(tmp_path):
    """docs/maintainers.md end to end: its commands, then its workflow's inputs, as the runner hands them over."""
    folder, env = workspace(tmp_path)
    page = REPO / "docs" / "maintainers.md"
    for lang, body, _, not_run in blocks(page):
        if lang in SHELL and not not_run:
            for command, expected in commands(body):
                assert (
                    subprocess.run(
                        ["bash", "-c", command], cwd=folder, env=env, capture_output=True
                    ).returncode
                    == expected
                ), command
    workflow = next(
        yaml.safe_load(body)
        for lang, body, _, _ in blocks(page)
        if lang == "yaml" and "jobs:" in body
    )
    [step] = [
        s for s in workflow["jobs"]["lbnorm"]["steps"] if "OWNER/lbnorm@" in s.get("uses", "")
    ]
    digest = subprocess.run(
        ["sha256sum", step["with"]["profile_file"]],
        cwd=folder,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()[0]
    model = folder / "submissions" / "example-org" / "tiny-model"
    shutil.copytree(folder / "examples" / "lm-eval-output" / "example-org__tiny-model", model)
    init = subprocess.run(
        [
            "lbnorm",
            "submission",
            "init",
            str(model.relative_to(folder)),
            "--profile-file",
            step["with"]["profile_file"],
        ],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
    )
    assert init.returncode == 0, init.stderr
    (folder / "out.txt").touch()
    inputs = {f"INPUT_{key.upper()}": str(value) for key, value in step["with"].items()}
    proc = subprocess.run(
        [sys.executable, "-m", "validator", "action"],
        cwd=folder,
        capture_output=True,
        text=True,
        env={
            **env,
            **inputs,
            "INPUT_PROFILE_SHA256": digest,
            "GITHUB_WORKSPACE": str(folder),
            "GITHUB_OUTPUT": str(folder / "out.txt"),
        },
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "passed=true" in (folder / "out.txt").read_text()
    assert "num_choices 5 of the profile is what the log scored" in proc.stdout
    tampered = folder / ".lbnorm" / "profile.yaml"
    tampered.write_text(tampered.read_text().replace("num_choices: 5", "num_choices: 2"))
    refused = subprocess.run(
        [sys.executable, "-m", "validator", "action"],
        cwd=folder,
        capture_output=True,
        text=True,
        env={
            **env,
            **inputs,
            "INPUT_PROFILE_SHA256": digest,
            "GITHUB_WORKSPACE": str(folder),
            "GITHUB_OUTPUT": str(folder / "out.txt"),
        },
    )
    assert (
        refused.returncode == 3 and "update the pin" in refused.stdout
    )  # the pin holds against an edited profile


def test_the_example_run_is_what_make_example_run_writes_today(tmp_path):
    """examples/lm-eval-output is committed and written by tests/support/harness_logs.py, which the audit's tests keep
    teaching what lm-eval writes (its configs' doc_to_text and doc_to_target came later): the guides must run on
    what the writer makes today, not on an older shape."""
    repo = tmp_path / "repo"
    (repo / "tests" / "support").mkdir(parents=True)
    for name in ("__init__.py", "harness_logs.py"):
        (repo / "tests" / "support" / name).symlink_to(REPO / "tests" / "support" / name)
    shutil.copy(REPO / "tests" / "support" / "make_example_run.py", repo / "tests" / "support")
    subprocess.run(
        [sys.executable, str(repo / "tests" / "support" / "make_example_run.py")],
        check=True,
        capture_output=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=600,
    )
    made, committed = repo / "examples" / "lm-eval-output", REPO / "examples" / "lm-eval-output"
    names = sorted(
        {p.relative_to(made).as_posix() for p in made.rglob("*") if p.is_file()}
        | {p.relative_to(committed).as_posix() for p in committed.rglob("*") if p.is_file()}
    )
    differing = [
        name
        for name in names
        if not (made / name).is_file()
        or not (committed / name).is_file()
        or (made / name).read_bytes() != (committed / name).read_bytes()
    ]
    assert not differing, (
        f"remake it ({sys.executable} tests/support/make_example_run.py): {differing}"
    )
