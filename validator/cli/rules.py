"""`lbnorm rules`: every rule, or the rules of one id or family, with their documentation."""

from __future__ import annotations

import click


@click.command()
@click.argument("codes", nargs=-1)
@click.option(
    "--output-format",
    type=click.Choice(["text", "markdown", "json"]),
    default="text",
    show_default=True,
)
def rules(codes: tuple[str, ...], output_format: str) -> None:
    """Explain rules: all of them, or those matching CODES (an id such as LB601, or a family such as LB6)."""
    import json

    from ..check.rules import all_rules

    wanted = tuple(code.strip().upper() for code in codes)
    everything = sorted(all_rules(), key=lambda r: r.id)
    listed = [r for r in everything if not wanted or r.id.startswith(wanted)]
    if not listed:
        raise click.UsageError(
            f"no rule matches {' '.join(codes)}; `lbnorm rules` lists them all "
            f"({everything[0].id}-{everything[-1].id})"
        )
    if output_format == "json":
        click.echo(
            json.dumps(
                [
                    {"id": r.id, "name": r.name, "severity": r.severity, "doc": r.doc}
                    for r in listed
                ],
                indent=2,
            )
        )
    elif output_format == "markdown":
        click.echo("| id | name | severity | what it checks |\n|---|---|---|---|")
        for r in listed:
            text = " ".join(r.doc.split()).replace("|", "\\|")
            click.echo(f"| {r.id} | {r.name} | {r.severity} | {text} |")
    else:
        for r in listed:
            click.echo(f"{r.id} {r.name} ({r.severity})")
            click.echo("".join(f"    {line}\n" for line in r.doc.splitlines()))
            if wanted:
                click.echo(_example(r.id, r.severity, r.name) + _knobs(r.id, r.severity))


def _example(rule_id: str, severity: str, name: str) -> str:
    """The finding the rule's example case gets (findings/rule_examples.json, kept current by a test)."""
    import json

    from ..io.loaders import package_files

    examples = json.loads((package_files() / "findings" / "rule_examples.json").read_text("utf-8"))
    example = examples.get(rule_id)
    if example is None:
        return ""
    where = f"{example['line']}:{example['column']}" if example["line"] else "-"
    at = (
        f" (at {example['json_path']})"
        if example["json_path"] and example["json_path"] != "$"
        else ""
    )
    return (
        f"    Example ({example['case']}):\n"
        f"      {example['file']}\n"
        f"        {where:<8} {severity:<7} {rule_id} {name}  {example['message']}{at}\n\n"
    )


def _knobs(rule_id: str, severity: str) -> str:
    """How a maintainer turns the rule off or changes its severity, on the command line and in the configuration."""
    from ..findings.selection import ALWAYS_REPORTED

    if rule_id in ALWAYS_REPORTED:
        return "    Always reported: a file that could not be judged never passes (--ignore and --warn leave it).\n"
    other = "--error" if severity == "warning" else "--warn"
    return (
        f'    Turn it off: --ignore {rule_id}  (or ignore = ["{rule_id}"] under [tool.lbnorm])\n'
        f"    Change its severity: {other} {rule_id}\n"
        f"    Only this rule: --select {rule_id}\n"
    )
