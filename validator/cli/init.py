"""`lbnorm init`: the five-minute path for a leaderboard repository.

Writes the two workflows (the check on every pull request, the comment with its
verdict) and `.pre-commit-config.yaml` into the git repository it runs in,
pinned to the installed release of lbnorm (or the one named), with the profile
pinned by name or by its sha256. It never overwrites a file without --force,
and writes nothing unless it can write everything.
"""

from __future__ import annotations

from pathlib import Path

import click

from ..core.errors import ConfigError
from ..core.release import NotARelease, Release, installed_release
from ..core.version import __version__
from ..io.safe_text import one_line


@click.command("init")
@click.option(
    "--files",
    default="submissions/**/*.json",
    show_default=True,
    help="The submissions the workflow checks: a glob relative to the repository.",
)
@click.option(
    "--profile", "profile_name", help="A built-in profile [default: open-llm-leaderboard-v2]."
)
@click.option(
    "--profile-file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Your own profile in the repository; pinned by its sha256.",
)
@click.option(
    "--repository", help="The release's OWNER/NAME on GitHub (default: the installed release's)."
)
@click.option("--tag", help="The release's tag vX.Y.Z (default: the installed release's).")
@click.option(
    "--commit", help="The 40-hex commit the tag points to (default: the installed release's)."
)
@click.option(
    "--root",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="The repository's top folder [default: the git repository around the current directory].",
)
@click.option("--force", is_flag=True, help="Overwrite files that exist.")
def init(
    files: str,
    profile_name: str | None,
    profile_file: Path | None,
    repository: str | None,
    tag: str | None,
    commit: str | None,
    root: Path | None,
    force: bool,
) -> None:
    """Write the workflows and the pre-commit configuration that run lbnorm in this repository."""
    from ..authoring.repository_init import Choices, profile_pin, rendered_files
    from ..io.loaders import builtin_profile_names, load_builtin_profile, load_profile_file

    release = _release(repository, tag, commit)
    root = root or _repository_root(Path.cwd())
    if profile_name and profile_file:
        raise click.UsageError("give --profile or --profile-file, not both")
    if not files.strip() or not files.isprintable() or files != files.strip():
        raise click.BadParameter(
            "a glob on one line, without blanks around it", param_hint="--files"
        )
    if profile_file:
        load_profile_file(profile_file)  # a profile check refuses is not pinned
        relative, digest = profile_pin(root, profile_file)
        choices = Choices(files=files, profile=None, profile_file=relative, profile_sha256=digest)
    else:
        name = profile_name or "open-llm-leaderboard-v2"
        if name not in builtin_profile_names():
            raise click.BadParameter(
                f"{name!r} is no built-in profile; one of {', '.join(builtin_profile_names())}",
                param_hint="--profile",
            )
        load_builtin_profile(name)
        choices = Choices(files=files, profile=name)
    planned = rendered_files(release, choices)
    existing = [path for path in planned if (root / path).exists()]
    if existing and not force:
        raise click.UsageError(
            f"{existing[0]} exists in {root}; pass --force to overwrite it (nothing was written)"
        )
    for path, (text, purpose) in planned.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        click.echo(f"wrote {path}: {purpose}")
    pin = (
        f"profile_file {one_line(choices.profile_file)} pinned by sha256 {choices.profile_sha256}"
        if choices.profile_file
        else f"profile {choices.profile}"
    )
    click.echo(
        f"pinned to {release.repository} {release.tag} (commit {release.commit}); "
        f"submissions {one_line(files)}; {pin}"
    )
    click.echo(
        "next: commit these files; `pre-commit install` runs the hooks before each commit"
        + ("; when the profile changes, run `lbnorm init --force` again" if profile_file else "")
    )


def _release(repository: str | None, tag: str | None, commit: str | None) -> Release:
    installed = installed_release()
    given = (repository, tag, commit)
    if installed is None and not all(given):
        raise click.UsageError(
            f"lbnorm {__version__} is not a release, so it cannot say which one to pin: install a "
            "release (pip install lbnorm), or name one with --repository OWNER/NAME --tag vX.Y.Z "
            "--commit SHA (its GitHub release page lists them)"
        )
    try:
        return Release(
            repository or installed.repository,  # type: ignore[union-attr]
            tag or installed.tag,  # type: ignore[union-attr]
            commit or installed.commit,  # type: ignore[union-attr]
        )
    except NotARelease as exc:
        raise click.UsageError(str(exc)) from None


def _repository_root(start: Path) -> Path:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    raise ConfigError(
        f"{start} is not inside a git repository; run lbnorm init in your leaderboard repository "
        "or pass --root"
    )
