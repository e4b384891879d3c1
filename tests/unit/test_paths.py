"""Every file read must be a regular file inside the workspace."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from validator.io.paths import (
    PathRefused,
    confine,
    confine_in,
    confine_listed,
    expand,
    relative_reference,
)


@pytest.fixture
def workspace(tmp_path):
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (root / "sub" / "a.json").write_text("{}")
    (tmp_path / "secret.json").write_text("{}")
    return root


def test_a_regular_file_inside_is_accepted(workspace):
    assert confine(workspace, workspace / "sub" / "a.json").display == "sub/a.json"


@pytest.mark.parametrize(
    "make, reason",
    [
        (lambda ws: ws / ".." / "secret.json", "outside the workspace"),
        (lambda ws: ws / "sub", "is a directory"),
        (lambda ws: ws / "missing.json", "no such file"),
    ],
)
def test_escapes_directories_and_missing_files_are_refused(workspace, make, reason):
    with pytest.raises(PathRefused, match=reason):
        confine(workspace, make(workspace))


def test_a_folder_whose_name_starts_with_the_workspace_name_is_outside(workspace):
    # confine compares resolved paths as strings: "ws" must not hold "ws2/a.json"
    (workspace.parent / "ws2").mkdir()
    (workspace.parent / "ws2" / "a.json").write_text("{}")
    (workspace / "link.json").symlink_to(workspace.parent / "ws2" / "a.json")
    for path in (workspace.parent / "ws2" / "a.json", workspace / "link.json"):
        with pytest.raises(PathRefused, match="outside the workspace"):
            confine(workspace, path)


def test_the_workspace_itself_is_a_directory_not_a_file(workspace):
    with pytest.raises(PathRefused, match="is a directory"):
        confine(workspace, Path("."))


@pytest.mark.parametrize(
    "make_links, reason",
    [
        (
            lambda ws: (
                (ws / "loop.json", ws / "other.json"),
                (ws / "other.json", ws / "loop.json"),
            ),
            "symlink loop",
        ),
        (lambda ws: ((ws / "loop.json", ws / "loop.json"),), "symlink loop"),
        (lambda ws: ((ws / "loop.json", ws / "gone.json"),), "no such file"),
    ],
)
def test_symlink_loops_and_dangling_links_are_refused(workspace, make_links, reason):
    for link, target in make_links(workspace):
        link.symlink_to(target)
    with pytest.raises(PathRefused, match=reason):
        confine(workspace, Path("loop.json"))


def test_a_loop_followed_by_dotdot_cannot_carry_a_path_out(workspace):
    """Non-strict realpath (Python 3.11, 3.12) gives up on a loop and drops "loop/.." as text: loop/../link
    would look like <root>/link although link leads outside: a symlink loop is refused."""
    (workspace / "sub" / "loop").symlink_to("loop")
    (workspace / "sub" / "link.json").symlink_to(workspace.parent / "secret.json")
    with pytest.raises(PathRefused, match="symlink loop"):
        confine(workspace, Path("sub/loop/../link.json"))
    with pytest.raises(PathRefused, match="outside the workspace"):
        confine(workspace, Path("sub/link.json"))


def test_a_symlink_leading_out_is_refused(workspace):
    (workspace / "link.json").symlink_to(workspace.parent / "secret.json")
    with pytest.raises(PathRefused, match="outside the workspace"):
        confine(workspace, workspace / "link.json")


def test_a_symlink_inside_is_followed(workspace):
    (workspace / "link.json").symlink_to(workspace / "sub" / "a.json")
    assert confine(workspace, workspace / "link.json").path == workspace / "sub" / "a.json"


def test_a_fifo_is_refused_without_opening_it(workspace):
    os.mkfifo(workspace / "pipe.json")
    with pytest.raises(PathRefused, match="not a regular file"):
        confine(workspace, workspace / "pipe.json")


def _outcome(confining, *arguments):
    try:
        target = confining(*arguments)
    except PathRefused as exc:
        return "refused", str(exc)
    return target.display, target.path


@pytest.mark.parametrize(
    "name",
    [
        "sub/a.json",
        "link.json",
        "linked/a.json",
        "out.json",
        "sub/../../secret.json",
        "sub/../sub/a.json",
        "./sub/a.json",
        "sub//a.json",
        "sub",
        "sub/",
        "missing.json",
        "sub/a.json/x",
        "pipe.json",
        "loop.json",
        "/etc/passwd",
        "a\x00.json",
        "\udcff.json",
    ],
)
def test_confining_in_a_resolved_folder_gives_what_confine_gives(workspace, name):
    """The survey's confine_in takes a plain name without walking the root again; every other name goes
    through confine: the same file, display, refusal and message either way."""
    (workspace / "link.json").symlink_to(workspace / "sub" / "a.json")
    (workspace / "linked").symlink_to(workspace / "sub")
    (workspace / "out.json").symlink_to(workspace.parent / "secret.json")
    (workspace / "loop.json").symlink_to("loop.json")
    os.mkfifo(workspace / "pipe.json")
    root = os.path.realpath(workspace)
    assert _outcome(confine_in, root, name) == _outcome(confine, Path(root), Path(name))


@pytest.mark.parametrize(
    "name",
    [
        "a.json",
        "link.json",
        "out.json",
        "pipe.json",
        "loop.json",
        "missing.json",
        "dir",
        "../a.json",
    ],
)
@pytest.mark.parametrize("fenced", [False, True])
def test_a_name_listed_in_a_resolved_folder_gives_what_confine_gives(workspace, name, fenced):
    """The audit's confine_listed takes a regular file listed in the folder a results file resolved into with
    one lstat; a symlink, a FIFO or anything else goes through confine: the same file, display, refusal and
    message either way, under the root or a boundary."""
    folder = workspace / "sub"
    (folder / "link.json").symlink_to(folder / "a.json")
    (folder / "out.json").symlink_to(workspace.parent / "secret.json")
    (folder / "loop.json").symlink_to("loop.json")
    (folder / "dir").mkdir()
    os.mkfifo(folder / "pipe.json")
    root = Path(os.path.realpath(workspace))
    boundary = root / "sub" if fenced else None
    relative = Path("sub") / name
    assert _outcome(confine_listed, root, root / "sub", name, boundary) == _outcome(
        confine, root, relative, boundary
    )


def test_a_plain_name_in_a_resolved_folder_is_that_file(workspace):
    root = os.path.realpath(workspace)
    target = confine_in(root, "sub/a.json")
    assert (target.display, target.path) == ("sub/a.json", Path(root) / "sub" / "a.json")


@pytest.mark.parametrize(
    "reference, reason",
    [
        ("/etc/passwd", "absolute"),
        ("../../secret.json", "outside the workspace"),
        ("a\x00.json", "NUL"),
        ("C:\\\\x.json", "absolute"),
    ],
)
def test_references_in_submissions(workspace, reference, reason):
    with pytest.raises(PathRefused, match=reason):
        relative_reference(workspace, workspace / "sub" / "submission.json", reference)


def test_globs_directories_and_unmatched_patterns(workspace):
    (workspace / "sub" / "b.yaml").write_text("a: 1")
    (workspace / "sub" / "notes.txt").write_text("x")
    found = expand(workspace, ["sub/*.json", "sub", "none/*.json"], max_files=10)
    assert [p.as_posix() for p in found.paths] == ["sub/a.json", "sub/b.yaml"]
    assert found.unmatched == ["none/*.json"] and not found.too_many


def test_globs_never_follow_symlinked_folders_and_say_so(workspace):
    """Three links to '.' made glob.glob('**') walk 3**40 paths; the walk must not follow them."""
    for name in "xyz":
        os.symlink(".", workspace / "sub" / name)
    os.symlink("/", workspace / "sub" / "rootfs")
    found = expand(workspace, ["sub/**/*.json", "**/a.json", "sub"], max_files=10)
    assert [p.as_posix() for p in found.paths] == ["sub/a.json"]
    assert not found.unmatched and not found.too_many
    assert [p.as_posix() for p in found.skipped] == ["sub/rootfs", "sub/x", "sub/y", "sub/z"]


def test_globs_skip_hidden_names_unless_asked_and_say_so(workspace):
    (workspace / ".git").mkdir()
    (workspace / ".git" / "c.json").write_text("{}")
    (workspace / ".hidden").mkdir()
    (workspace / "sub" / ".d.json").write_text("{}")
    (workspace / "sub" / ".notes.txt").write_text("x")
    found = expand(workspace, ["**/*.json"], 10)
    assert found.paths == [Path("sub/a.json")]
    assert [p.as_posix() for p in found.skipped] == [
        ".hidden",
        "sub/.d.json",
    ]  # .git silently, .txt never checked
    assert expand(workspace, [".git/*.json"], 10).paths == [Path(".git/c.json")]


def test_only_checkable_files_count_against_the_limit(workspace):
    """20,001 junk files beside a submission must neither hide it nor pass the run."""
    for i in range(30):
        (workspace / "sub" / f"junk{i}.txt").write_text("x")
    found = expand(workspace, ["sub", "sub/*"], max_files=2)
    assert found.paths == [Path("sub/a.json")] and not found.too_many


def test_the_walk_stops_past_the_file_limit(workspace):
    for i in range(20):
        (workspace / "sub" / f"f{i}.json").write_text("{}")
    assert expand(workspace, ["sub/*.json"], max_files=5).too_many


def test_the_walk_stops_past_its_entry_budget(workspace):
    """Walking costs time per entry, checkable or not: a folder of junk fails the run, never truncates it."""
    for i in range(60):
        (workspace / "sub" / f"junk{i}.txt").write_text("x")
    assert expand(workspace, ["sub"], max_files=1).too_many
