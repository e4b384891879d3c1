"""How the options a user typed combine with the configuration file into what a command runs with.

Precedence, as in ruff: built-in defaults, then the configuration file
(.lbnorm.toml or [tool.lbnorm] in pyproject.toml, found upward from the
current directory; --config names one, --isolated ignores them), then the
command line.
"""

import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import click

from ..core.settings import Settings
from ..findings.selection import RuleSelection, SelectionError
from ..io.config import find_config, limits_of, read_config
from ..io.limits import Limits
from ..io.loaders import load_builtin_profile, load_profile_file
from ..io.workspace import Workspace, choose_workspace

if TYPE_CHECKING:
    from ..core.profile import Profile


class Effective(NamedTuple):
    """Everything a command needs from the configuration file and the options together."""

    settings: Settings
    workspace: Workspace
    config_path: Path | None

    @property
    def limits(self) -> Limits:
        return limits_of(self.settings)

    @property
    def strict(self) -> bool:
        return bool(self.settings.strict)

    def selection(self) -> RuleSelection:
        """The rule selection, every code it names checked against the rules. The rules the command has loaded
        are asked first (the default selection, LB, names them all): the check's and the audit's rule modules
        are imported only for a code none of them matches, which keeps them out of an audit's start-up."""
        s = self.settings
        selection = RuleSelection(
            select=s.selected(),
            ignore=s.ignored(),
            warn=s.warn,
            error=s.error,
            per_file_ignores=tuple(s.per_file_ignores.items()),
            shown_from=_cwd_in(self.workspace),
        )
        for more in ("check", "audit"):
            try:
                return selection.validate()
            except SelectionError:
                _load_rules(more)
        try:
            return selection.validate()
        except SelectionError as exc:
            raise click.UsageError(str(exc)) from None

    def profile(self) -> "Profile | None":
        """The maintainer's profile (option or configuration), or None: each submission names a built-in one."""
        if self.settings.profile and self.settings.profile_file:
            raise click.UsageError(
                "give either a profile or a profile file, not both "
                f"(the configuration {self.config_path or ''} may set one of them)"
            )
        if self.settings.profile_file:
            return load_profile_file(Path(self.settings.profile_file))
        return load_builtin_profile(self.settings.profile) if self.settings.profile else None


def _load_rules(which: str) -> None:
    """Register the check's rules, or every rule (the check's and the audit's)."""
    from ..check.rules import all_rules, check_rules

    (check_rules if which == "check" else all_rules)()


def _cwd_in(workspace: Workspace) -> str:
    """The current directory relative to the workspace ('' at its top or outside it)."""
    relative = os.path.relpath(os.getcwd(), workspace.root)
    return "" if relative == "." or relative.startswith(os.pardir) else Path(relative).as_posix()


OWN_TASKS_HINT = (
    "for your own tasks pass --profile-file (`lbnorm profile derive RESULTS_FILE` drafts one)"
)


def effective(
    options: Settings, config_file: Path | None, isolated: bool, root: Path | None
) -> Effective:
    """Defaults < configuration file < command line."""
    cwd = Path(os.getcwd())
    if options.profile and options.profile_file:
        raise click.UsageError("give either --profile or --profile-file, not both")
    if root is not None and not root.is_dir():
        raise click.UsageError(f"--root {root} is not a directory")
    path = None if isolated else (config_file or _discovered_config(cwd))
    if config_file is not None and not isolated and not config_file.is_file():
        raise click.UsageError(f"--config {config_file}: no such file")
    base = read_config(path) if path else Settings()
    if base.profile and options.profile_file:
        base = base._replace(profile=None)  # the command line's choice replaces the file's
    if base.profile_file and options.profile:
        base = base._replace(profile_file=None)
    return Effective(base.overlay(options), choose_workspace(root, cwd), path)


def _discovered_config(cwd: Path) -> Path | None:
    """The configuration found upward from cwd, except in a GitHub Actions workflow.

    There the checkout may be the change under test (a pull request, a merge queue's
    candidate, a pushed branch), and so may any configuration file in it: a change
    must not choose the rules it is judged by. --config reads one deliberately (the
    Action reads one only when the workflow pins its sha256).
    """
    found = find_config(cwd)
    # Every event (pull_request, merge_group, push, ...) checks out a tree a change may have written.
    if found is not None and (
        os.environ.get("GITHUB_ACTIONS") or os.environ.get("GITHUB_EVENT_NAME")
    ):
        click.echo(
            f"lbnorm: {found} is not read in a GitHub Actions workflow (the change under test "
            "could edit it); pass --config to read it deliberately",
            err=True,
        )
        return None
    return found


def command_line_settings(
    *,
    tolerance=None,
    profile=None,
    profile_file=None,
    strict=False,
    audit_samples=None,
    select=(),
    extend_select=(),
    ignore=(),
    extend_ignore=(),
    warn_codes=(),
    error_codes=(),
    **limits,
) -> Settings:
    """Settings from the options a user typed (flags not given stay None)."""

    def joined(groups):
        return tuple(code for group in groups for code in group)

    return Settings(
        tolerance=tolerance,
        profile=profile,
        profile_file=str(profile_file) if profile_file else None,
        strict=True if strict else None,
        audit_samples=audit_samples,
        select=joined(select) or None,
        extend_select=joined(extend_select),
        ignore=joined(ignore) or None,
        extend_ignore=joined(extend_ignore),
        warn=joined(warn_codes),
        error=joined(error_codes),
        limits={k: v for k, v in limits.items() if v is not None},
        source="the command line",
    )


def limits_from(**limits: int | None) -> Limits:
    """Limits from the limit options alone (commands that read no configuration file); None: the default."""
    return Limits(**{name: value for name, value in limits.items() if value is not None})


def profile_for_options(name: str | None, file: Path | None) -> "Profile | None":
    """The maintainer's profile from --profile / --profile-file, or None when neither is given."""
    if name and file:
        raise click.UsageError("give either --profile or --profile-file, not both")
    if file:
        return load_profile_file(file)
    return load_builtin_profile(name) if name else None
