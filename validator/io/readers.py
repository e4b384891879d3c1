"""Readers: recognise a parsed results document and turn it into HarnessResults.

Formats (docs/reference/results-formats.md):
- lm-eval 0.4.x: results[task]["metric,filter"], optional n-shot / n-samples;
- lm-eval 0.3:   results[task]["metric"], config.num_fewshot;
- lighteval and Open LLM Leaderboard v1: results["suite|task|shots"]["metric"].

Everything is keyed on the dict key, never on the alias (aliases carry a
version-dependent "  - " depth prefix).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.errors import DataError, FoldedKeys
from ..core.results import (
    ENTRY_INFO_KEYS,
    HarnessResults,
    SampleCount,
    TaskEntry,
    folded_message,
    metric_key_parts,
    sample_counts_evidence,
)

LM_EVAL_04 = "lm-eval 0.4.x"
LM_EVAL_03 = "lm-eval 0.3"
LIGHTEVAL = "lighteval / Open LLM Leaderboard v1"

# lm-eval 0.4 top-level keys that 0.3 never wrote.
_LM_EVAL_04_MARKERS = ("n-shot", "n-samples", "configs", "group_subtasks", "higher_is_better")
# lm-eval picks the model name from the first of these model_args keys.
_MODEL_ARG_KEYS = ("peft", "delta", "pretrained", "model", "path", "engine")


def read_results(doc: Any) -> HarnessResults:
    """Detect the format of a parsed results document and read it."""
    if not isinstance(doc, dict):
        raise DataError(
            f"top level is {_kind(doc)}, expected a JSON object with a 'results' object"
        )
    results = doc.get("results")
    if not isinstance(results, dict):
        raise DataError("no 'results' object at the top level; tried " + _formats_tried())
    for _name, matches, read in _READERS:
        if matches(doc, results):
            return read(doc, results)
    raise DataError("results entries match no known format; tried " + _formats_tried())


def _formats_tried() -> str:
    return (
        "lm-eval 0.4.x ('metric,filter' keys), lm-eval 0.3 (plain metric keys with 'versions'), "
        "lighteval / Open LLM Leaderboard v1 ('suite|task|shots' keys)"
    )


def _kind(value: Any) -> str:
    return {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number"
    )


# --- lm-eval 0.4.x -------------------------------------------------------------


def _is_lm_eval_04(doc: dict, results: dict) -> bool:
    if any(marker in doc for marker in _LM_EVAL_04_MARKERS):
        return True
    return any(isinstance(e, dict) and any("," in k for k in e) for e in results.values())


def _read_lm_eval_04(doc: dict, results: dict) -> HarnessResults:
    n_shot = doc.get("n-shot")
    n_shot = n_shot if isinstance(n_shot, dict) else {}
    entries = {}
    for key, entry in results.items():
        if not isinstance(entry, dict):
            raise DataError(f"results.{key} is {_kind(entry)}, expected an object of metrics")
        metrics: dict[tuple[str, str], Any] = {}
        raw_keys: dict[tuple[str, str], str] = {}
        for metric_key, value in entry.items():
            if metric_key in ENTRY_INFO_KEYS:
                continue
            parts = metric_key_parts(metric_key)
            if parts in raw_keys:
                raise FoldedKeys(
                    folded_message(key, raw_keys[parts], metric_key), ("results", key, metric_key)
                )
            metrics[parts] = value
            raw_keys[parts] = metric_key
        shots, shots_path = _lm_eval_shots(doc, n_shot, key)
        entries[key] = TaskEntry(
            key=key,
            name=key,
            metrics=metrics,
            num_fewshot=shots,
            num_fewshot_path=shots_path,
            raw_keys=raw_keys,
        )
    return HarnessResults(
        format=LM_EVAL_04,
        model=_lm_eval_model(doc),
        entries=entries,
        n_samples=_n_samples(doc.get("n-samples")),
        versions=_dict_or_empty(doc.get("versions")),
        config_versions=_config_versions(doc.get("configs")),
        limit=_dict_or_empty(doc.get("config")).get("limit"),
        limit_path=("config", "limit"),
        sample_counts_evidence=sample_counts_evidence(
            doc.get("n-samples"), doc.get("task_hashes"), doc.get("lm_eval_version")
        ),
    )


def _lm_eval_shots(doc: dict, n_shot: dict, key: str) -> tuple[Any, tuple]:
    """n-shot[task], else configs[task].num_fewshot (older files), with where it was read."""
    if key in n_shot:
        return n_shot[key], ("n-shot", key)
    config = _dict_or_empty(_dict_or_empty(doc.get("configs")).get(key))
    if "num_fewshot" in config:
        return config["num_fewshot"], ("configs", key, "num_fewshot")
    return None, ()


def _config_versions(configs: Any) -> dict[str, Any]:
    """configs.<task>.metadata.version: the version lm-eval's task YAML declared, beside `versions`."""
    found = {}
    for task, config in _dict_or_empty(configs).items():
        metadata = _dict_or_empty(_dict_or_empty(config).get("metadata"))
        if "version" in metadata:
            found[task] = metadata["version"]
    return found


def _n_samples(block: Any) -> dict[str, SampleCount]:
    if not isinstance(block, dict):
        return {}
    return {
        task: SampleCount(counts.get("original"), counts.get("effective"))
        if isinstance(counts, dict)
        else SampleCount(None, None, is_object=False)
        for task, counts in block.items()
    }


def _lm_eval_model(doc: dict) -> str | None:
    name = doc.get("model_name")
    if isinstance(name, str) and name:
        return name
    return _model_from_args(_dict_or_empty(doc.get("config")).get("model_args"))


def _model_from_args(model_args: Any) -> str | None:
    """lm-eval's rule: the first of peft/delta/pretrained/model/path/engine."""
    if isinstance(model_args, str):
        pairs = (part.split("=", 1) for part in model_args.split(",") if "=" in part)
        model_args = {k.strip(): v.strip() for k, v in pairs}
    if isinstance(model_args, dict):
        for key in _MODEL_ARG_KEYS:
            value = model_args.get(key)
            if isinstance(value, str) and value:
                return value
    return None


# --- lm-eval 0.3 ---------------------------------------------------------------


def _is_lm_eval_03(doc: dict, results: dict) -> bool:
    return (
        isinstance(doc.get("versions"), dict)
        and "config_general" not in doc
        and all(isinstance(e, dict) and "|" not in k for k, e in results.items())
    )


def _read_lm_eval_03(doc: dict, results: dict) -> HarnessResults:
    config = _dict_or_empty(doc.get("config"))
    shots = config.get("num_fewshot")
    entries = {
        key: TaskEntry(
            key=key,
            name=key,
            metrics=_plain_metrics(entry),
            num_fewshot=shots,
            num_fewshot_path=("config", "num_fewshot"),
            raw_keys=_plain_keys(entry),
        )
        for key, entry in results.items()
    }
    return HarnessResults(
        format=LM_EVAL_03,
        model=_model_from_args(config.get("model_args")),
        entries=entries,
        versions=_dict_or_empty(doc.get("versions")),
        limit=config.get("limit"),
        limit_path=("config", "limit"),
    )


def _plain_metrics(entry: dict) -> dict[tuple[str, str], Any]:
    return {(metric, "none"): value for metric, value in entry.items()}


def _plain_keys(entry: dict) -> dict[tuple[str, str], str]:
    return {(metric, "none"): metric for metric in entry}


# --- lighteval / Open LLM Leaderboard v1 -----------------------------------------


def _is_lighteval(doc: dict, results: dict) -> bool:
    return "config_general" in doc or any("|" in key for key in results)


def _read_lighteval(doc: dict, results: dict) -> HarnessResults:
    entries: dict[str, TaskEntry] = {}
    for key, entry in results.items():
        if key == "all" or ":_average|" in key:
            continue  # synthetic means written by lighteval, not tasks
        if not isinstance(entry, dict):
            raise DataError(f"results.{key} is {_kind(entry)}, expected an object of metrics")
        name, shots = _split_lighteval_key(key)
        if name in entries:
            raise FoldedKeys(
                f"results has two entries for task '{name}' ('{entries[name].key}' and '{key}'); "
                "keep one run per task",
                ("results", key),
            )
        entries[name] = TaskEntry(
            key=key,
            name=name,
            metrics=_plain_metrics(entry),
            num_fewshot=shots,
            num_fewshot_path=("results", key),
            raw_keys=_plain_keys(entry),
        )
    # Mid-2023 files carry 'config'; later ones 'config_general' (the v1 reader tried both).
    config_key = "config_general" if "config_general" in doc else "config"
    config = _dict_or_empty(doc.get(config_key))
    model = config.get("model_name")
    return HarnessResults(
        format=LIGHTEVAL,
        model=model if isinstance(model, str) and model else None,
        entries=entries,
        versions=_dict_or_empty(doc.get("versions")),
        limit=config.get("max_samples"),
        limit_path=(config_key, "max_samples"),
    )


def _split_lighteval_key(key: str) -> tuple[str, int | None]:
    """'suite|task|shots' (lighteval <= 0.10) or 'task|shots' (>= 0.11)."""
    parts = key.split("|")
    if len(parts) in (2, 3) and parts[-1].isdigit():
        return parts[-2], int(parts[-1])
    return key, None


def _dict_or_empty(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


_READERS: tuple[
    tuple[str, Callable[[dict, dict], bool], Callable[[dict, dict], HarnessResults]], ...
] = (
    (LM_EVAL_04, _is_lm_eval_04, _read_lm_eval_04),
    (LIGHTEVAL, _is_lighteval, _read_lighteval),
    (LM_EVAL_03, _is_lm_eval_03, _read_lm_eval_03),
)
