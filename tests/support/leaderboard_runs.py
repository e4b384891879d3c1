"""Runs for `lbnorm leaderboard`: the example pythia-1b results with MuSR's murder-mysteries score changed (its
group aggregate and stderr kept consistent, so `check` passes them), each under its own model."""

from __future__ import annotations

import json
import math

from support.common import REPO

EXAMPLE = REPO / "examples" / "pythia-1b" / "results_2025-01-27T10-10-36.877664.json"


def write_run(folder, model: str, murder_mysteries: float) -> None:
    """A results file in `folder` for `model`; `murder_mysteries` must be k/250 (LB403 otherwise)."""
    results = json.loads(EXAMPLE.read_text(encoding="utf-8"))
    task = results["results"]["leaderboard_musr_murder_mysteries"]
    results["results"]["leaderboard_musr"]["acc_norm,none"] += (
        (murder_mysteries - task["acc_norm,none"]) * 250 / 756
    )  # the group pools its 756 docs, 250 of them this task's
    task["acc_norm,none"] = murder_mysteries
    task["acc_norm_stderr,none"] = math.sqrt(murder_mysteries * (1 - murder_mysteries) / 249)
    results["model_name"] = model
    results["model_name_sanitized"] = model.replace("/", "__")
    results["config"]["model_args"] = f"pretrained={model},trust_remote_code=False"
    folder.mkdir(parents=True)
    (folder / EXAMPLE.name).write_text(json.dumps(results, indent=2), encoding="utf-8")
