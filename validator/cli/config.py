"""`lbnorm config`: the effective configuration, and where each part came from."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..check.checker import DEFAULT_TOLERANCE
from ..core.settings import LIMIT_KEYS, Settings
from ..io.limits import describe_size
from .configuration import effective
from .options import DEFAULT_PROFILE, config_options


@click.command("config")
@config_options
@click.option(
    "--output-format", type=click.Choice(["toml", "json"]), default="toml", show_default=True
)
def config(config_file: Path | None, isolated: bool, root: Path | None, output_format: str) -> None:
    """Print the effective configuration: defaults, then the configuration file (if any).

    Settings live in `.lbnorm.toml` or under [tool.lbnorm] in pyproject.toml,
    found upward from the current directory (stopping at the top of the git
    repository); command-line options override them. See docs/configuration.md.
    """
    run = effective(Settings(), config_file, isolated, root)
    s, limits = run.settings, run.limits
    values = {
        "profile": s.profile,
        "profile-file": s.profile_file,
        "tolerance": s.tolerance if s.tolerance is not None else DEFAULT_TOLERANCE,
        "strict": bool(s.strict),
        "audit-samples": s.audit_samples is not False,
        "select": list(s.selected()),
        "ignore": list(s.ignored()),
        "warn": list(s.warn),
        "error": list(s.error),
        "per-file-ignores": {glob: list(codes) for glob, codes in s.per_file_ignores.items()},
        **{key: getattr(limits, name) for key, name in LIMIT_KEYS.items()},
    }
    if output_format == "json":
        click.echo(
            json.dumps(
                {
                    "config_file": str(run.config_path) if run.config_path else None,
                    "workspace": str(run.workspace.root),
                    "settings": values,
                },
                indent=2,
            )
        )
        return
    click.echo(f"# configuration file: {run.config_path or 'none (defaults)'}")
    click.echo(f"# workspace: {run.workspace.describe()}")
    click.echo("[tool.lbnorm]")
    for key, value in values.items():
        if key == "per-file-ignores":
            continue
        if value is None:
            unset = (
                f"each submission names a built-in one; default {DEFAULT_PROFILE}"
                if key == "profile"
                else "none"
            )
            click.echo(f"# {key}: not set ({unset})")
            continue
        comment = f"  # {describe_size(value)}" if key in ("max-file-size", "max-log-size") else ""
        click.echo(f"{key} = {json.dumps(value)}{comment}")
    click.echo("\n[tool.lbnorm.per-file-ignores]")
    for glob, codes in values["per-file-ignores"].items():
        click.echo(f"{json.dumps(glob)} = {json.dumps(codes)}")
