"""MkDocs hooks (mkdocs.yml `hooks:`): prepare what the generated pages read.

`lbnorm`'s click group imports each command's module on first use, so a fresh
process has only the eagerly registered commands. mkdocs-click documents the
commands a group holds, so every command is loaded before the pages are built.
"""

from __future__ import annotations


def on_config(config, **kwargs):
    import click

    from validator.cli import cli

    ctx = click.Context(cli, info_name="lbnorm")
    for name in cli.list_commands(ctx):
        cli.get_command(ctx, name)
    return config
