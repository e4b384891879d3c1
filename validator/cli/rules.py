"""`lbnorm rules`: every rule with its id, severity and documentation."""

from __future__ import annotations

import click


@click.command()
@click.option("--output-format", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True)
def rules(output_format: str) -> None:
    """List every check with its id, severity and documentation."""
    import json

    from ..check.rules import all_rules

    listed = all_rules()
    if output_format == "json":
        click.echo(json.dumps([{"id": r.id, "name": r.name, "severity": r.severity, "doc": r.doc}
                               for r in listed], indent=2))
    elif output_format == "markdown":
        click.echo("| id | name | severity | what it checks |\n|---|---|---|---|")
        for r in listed:
            text = " ".join(r.doc.split()).replace("|", "\\|")
            click.echo(f"| {r.id} | {r.name} | {r.severity} | {text} |")
    else:
        for r in listed:
            click.echo(f"{r.id} {r.name} ({r.severity})")
            click.echo("".join(f"    {line}\n" for line in r.doc.splitlines()))
