"""The hostile corpus: files a pull request can plant, each with the findings it must produce.

Cases are built at test time, because several cannot live in git (FIFOs,
sparse 100 MB files, symlinks to /etc, names with newlines). Each builder
gets an empty workspace and a folder *outside* it holding a canary file and a
FIFO: reading either proves a confinement bug (the canary's text would show
up, the FIFO would hang the run into its timeout).

    @case("LB108", args=[...])   rules: the exact set of rule ids reported
                                 exit:  1 unless given; 0 for inputs that are fine

Every case runs through the CLI and through the Action entrypoint
(tests/acceptance/test_hostile.py), under an audit hook, with bounded time and memory.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from support.common import EXAMPLE

RESULTS = json.loads(EXAMPLE.read_text())
SUBMISSION = json.loads((EXAMPLE.parent / "submission.json").read_text())
CANARY = "CANARY-d41d8cd98f00-outside-the-workspace"
FORGED = "\n::error file=pwned.py,line=1::forged\r\n##[error]legacy"


@dataclass(frozen=True)
class HostileCase:
    name: str
    build: Callable[[Path, Path], None]
    rules: frozenset[str]
    exit: int = 1
    args: tuple[str, ...] = ("*",)
    options: tuple[str, ...] = ()
    description: str = ""


CASES: list[HostileCase] = []


def case(*rules: str, exit: int = 1, args=("*",), options=()):
    def register(build):
        CASES.append(
            HostileCase(
                build.__name__,
                build,
                frozenset(rules),
                exit,
                tuple(args),
                tuple(options),
                (build.__doc__ or "").strip(),
            )
        )
        return build

    return register


def honest(
    ws: Path,
    name: str = "submission.json",
    results_name: str = "results.json",
    results: dict | None = None,
    **changes,
) -> Path:
    """An honest pythia-1b submission and its results file, with `changes` applied to the submission."""
    (ws / results_name).write_text(json.dumps(RESULTS if results is None else results, indent=2))
    submission = SUBMISSION | {"results": results_name} | changes
    path = ws / name
    path.write_text(json.dumps(submission, indent=2))
    return path


def submission_text(**changes) -> str:
    return json.dumps(SUBMISSION | {"results": "results.json"} | changes, indent=2)


# --- the baseline ------------------------------------------------------------------------


@case(exit=0)
def honest_submission(ws, outside):
    """The shipped example, unchanged: the corpus runner itself must pass it."""
    honest(ws)


@case(exit=0)
def utf8_with_bom(ws, outside):
    """UTF-8 with a byte-order mark is read."""
    honest(ws)
    (ws / "submission.json").write_bytes(b"\xef\xbb\xbf" + (ws / "submission.json").read_bytes())


# --- encodings and syntax ----------------------------------------------------------------


@case("LB101")
def latin1_bytes(ws, outside):
    """Bytes that are not UTF-8 give the byte offset."""
    honest(ws)
    text = submission_text().replace('"EleutherAI/pythia-1b"', '"EleutherAI/pythia-1b caf\xe9"')
    (ws / "submission.json").write_bytes(text.encode("latin-1"))


@case("LB101")
def utf16_file(ws, outside):
    honest(ws)
    (ws / "submission.json").write_bytes(submission_text().encode("utf-16"))


@case("LB102")
def empty_file(ws, outside):
    (ws / "submission.json").write_bytes(b"")


@case("LB102")
def truncated_json(ws, outside):
    honest(ws)
    (ws / "submission.json").write_text(submission_text()[:-20])


@case("LB102")
def binary_garbage(ws, outside):
    (ws / "submission.json").write_bytes(bytes(range(1, 128)) * 100)


@case("LB103")
def duplicate_reported_key(ws, outside):
    """The same score twice: which one wins depends on the parser."""
    honest(ws)
    text = submission_text().replace('"bbh": 2.29,', '"bbh": 2.29, "bbh": 99.0,')
    (ws / "submission.json").write_text(text)


@case("LB104")
def reported_nan(ws, outside):
    honest(ws)
    (ws / "submission.json").write_text(submission_text().replace('"musr": 2.73', '"musr": NaN'))


@case("LB104")
def reported_overflowing_float(ws, outside):
    """1e999 parses as infinity."""
    honest(ws)
    (ws / "submission.json").write_text(submission_text().replace('"musr": 2.73', '"musr": 1e999'))


# --- size and shape limits ----------------------------------------------------------------


@case("LB106")
def sparse_100_mb_file(ws, outside):
    """A 100 MB file (sparse: no disk used) is refused from its size, before it is read."""
    with open(ws / "submission.json", "wb") as handle:
        handle.truncate(100 * 1024 * 1024)


@case("LB106", args=("submission.json",))
def results_file_too_large(ws, outside):
    honest(ws)
    with open(ws / "results.json", "ab") as handle:
        handle.truncate(70 * 1024 * 1024)


@case("LB107", args=("many/*.json",))
def more_files_than_the_limit(ws, outside):
    """20,001 files: refused as a whole, not checked partly."""
    (ws / "many").mkdir()
    for i in range(20_001):
        (ws / "many" / f"{i}.json").write_bytes(b"{}")


@case("LB108")
def nesting_100_levels(ws, outside):
    (ws / "submission.json").write_text('{"schema_version": 1, "x": ' + "[" * 100 + "]" * 100 + "}")


@case("LB108")
def nesting_100000_levels(ws, outside):
    (ws / "submission.json").write_text("[" * 100_000 + "]" * 100_000)


@case("LB108")
def yaml_nesting(ws, outside):
    (ws / "submission.yaml").write_text("a: " + "[" * 5000 + "]" * 5000 + "\n")


@case("LB109")
def multi_megabyte_number(ws, outside):
    """A 5-million-digit integer (Python refuses to convert it)."""
    honest(ws)
    (ws / "submission.json").write_text(
        submission_text().replace('"musr": 2.73', '"musr": ' + "9" * 5_000_000)
    )


@case("LB109")
def yaml_integer_python_cannot_convert(ws, outside):
    """5,000 digits: PyYAML's int() would raise while constructing the document."""
    (ws / "submission.yaml").write_text("schema_version: " + "9" * 5000 + "\n")


@case("LB109")
def multi_megabyte_number_string(ws, outside):
    honest(ws)
    (ws / "submission.json").write_text(submission_text(model="7" * 5_000_000))


@case("LB109")
def multi_megabyte_key(ws, outside):
    honest(ws)
    (ws / "submission.json").write_text(
        submission_text().replace('"bbh":', '"' + "k" * 3_000_000 + '": 1, "bbh":')
    )


@case("LB109", args=("submission.json",))
def integer_beyond_the_float_range(ws, outside):
    """A 400-digit integer as a metric: every float operation on it would raise."""
    results = json.loads(json.dumps(RESULTS))
    results["results"]["leaderboard_mmlu_pro"]["acc,none"] = 10**400
    honest(ws, results=results)


@case("LB104", "LB301", args=("submission.json",))
def a_million_nans(ws, outside):
    """A hundred thousand NaN tasks: findings are capped per rule, in bounded time."""
    results = json.loads(json.dumps(RESULTS))
    for i in range(100_000):
        results["results"][f"junk_{i}"] = {"acc,none": float("nan")}
    results["results"]["leaderboard_bbh_snarks"]["acc_norm,none"] = float("nan")
    honest(ws, results=results)


# --- YAML: parse only ----------------------------------------------------------------------


@case("LB112")
def yaml_alias_bomb(ws, outside):
    """A "billion laughs" file fails fast instead of expanding."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    (ws / "submission.yaml").write_text("\n".join(lines) + "\n")


@case("LB102")
def yaml_python_object_tag(ws, outside):
    """A Python tag would run code under an unsafe loader; it is a syntax error, and nothing runs."""
    (ws / "submission.yaml").write_text(
        f'schema_version: 1\nmodel: !!python/object/apply:os.system ["echo {CANARY} > {ws}/pwned"]\n'
    )


@case("LB102")
def yaml_python_name_tag(ws, outside):
    (ws / "submission.yaml").write_text("model: !!python/name:os.system\n")


# --- paths -----------------------------------------------------------------------------------


@case("LB203", args=("submission.json",))
def results_symlink_to_a_file_outside(ws, outside):
    """`results` points at a symlink whose target is outside the workspace."""
    honest(ws)
    (ws / "results.json").unlink()
    os.symlink(outside / "canary.json", ws / "results.json")


@case("LB203", args=("submission.json",))
def results_symlink_to_a_fifo_outside(ws, outside):
    """Opening the FIFO would block for ever; it must not even be opened."""
    honest(ws, results_name="pipe.json")
    (ws / "pipe.json").unlink()
    os.symlink(outside / "fifo", ws / "pipe.json")


@case("LB203", args=("submission.json",))
def results_escapes_with_dotdot(ws, outside):
    honest(ws)
    (ws / "submission.json").write_text(submission_text(results=f"../{outside.name}/canary.json"))


@case("LB203", args=("submission.json",))
def results_absolute_path(ws, outside):
    honest(ws)
    (ws / "submission.json").write_text(submission_text(results=str(outside / "canary.json")))


@case("LB203", args=("submission.json",))
def results_path_with_nul(ws, outside):
    honest(ws)
    (ws / "submission.json").write_text(submission_text(results="results.json\u0000.txt"))


@case("LB203", args=("submission.json",))
def results_path_with_a_lone_surrogate(ws, outside):
    """JSON can spell a string that no file system can: the path is refused, not a crash."""
    honest(ws)
    (ws / "submission.json").write_text(submission_text(results="r\ud800.json"))


@case("LB203", args=("submission.json",))
def results_is_a_directory(ws, outside):
    honest(ws)
    (ws / "folder").mkdir()
    (ws / "submission.json").write_text(submission_text(results="folder"))


@case("LB203", args=("submission.json",))
def results_is_dev_zero(ws, outside):
    honest(ws)
    (ws / "submission.json").write_text(submission_text(results="../../../../../../../../dev/zero"))


@case("LB203", args=("submission.json",))
def results_is_a_fifo_inside(ws, outside):
    honest(ws)
    (ws / "results.json").unlink()
    os.mkfifo(ws / "results.json")


@case("LB101", args=("*.json",))
def glob_matches_a_fifo(ws, outside):
    os.mkfifo(ws / "submission.json")


@case("LB101", args=("*.json",))
def glob_matches_a_symlink_outside(ws, outside):
    os.symlink(outside / "canary.json", ws / "submission.json")


@case("LB101", args=("*.json",))
def symlink_loop(ws, outside):
    os.symlink("b.json", ws / "a.json")
    os.symlink("a.json", ws / "b.json")


@case("LB101", args=(str(Path("/etc/passwd")),))
def argument_outside_the_workspace(ws, outside):
    honest(ws)


@case("LB111", exit=0, args=("**/*.json",))
def symlinked_folders_make_a_glob_loop(ws, outside):
    """Links to '.' and '/' must not be followed (3**40 paths, or the whole disk), and each skip is a warning."""
    honest(ws)
    for name in ("x", "y", "z"):
        os.symlink(".", ws / name)
    os.symlink("/", ws / "rootfs")
    os.symlink(outside, ws / "outside")


# --- names and values that try to become workflow commands -------------------------------------


@case("LB102", args=("*.json",))
def file_name_with_newline_and_error_command(ws, outside):
    """A file named with a newline and `::error`, and broken content to report."""
    (ws / f"sub{FORGED.replace('/', '_')}.json").write_text('{"a": ')


@case("LB102", args=("*.json",))
def file_name_with_stop_commands(ws, outside):
    (ws / "\n::stop-commands::pwn\n::add-mask::lbnorm.json").write_text("{")


@case("LB102", args=("*.json",))
def file_name_not_utf8(ws, outside):
    with open(os.path.join(os.fsencode(ws), b"sub\xff\xfe.json"), "wb") as handle:
        handle.write(b"{")


@case("LB201", "LB504", args=("submission.json",))
def model_name_with_commands_and_terminal_escapes(ws, outside):
    honest(ws, model="org/m" + FORGED + "\x1b[2J\x1b]0;title\x07\u2028\u202e")
    text = (ws / "submission.json").read_text()
    (ws / "submission.json").write_text(
        text.replace('"schema_version": 1', '"schema_version": 1, "x\\n::error::k": 1')
    )


@case("LB301", exit=0, args=("submission.json",))
def task_names_with_commands(ws, outside):
    """Unknown tasks are warnings; their names must reach the log escaped."""
    results = json.loads(json.dumps(RESULTS))
    results["results"]["t" + FORGED] = {"acc,none": 0.5}
    results["results"]["\ud800 lone surrogate"] = {"acc,none": 0.5}
    honest(ws, results=results)


@case("LB201", args=("submission.json",))
def reported_value_is_a_command_string(ws, outside):
    honest(ws, reported=SUBMISSION["reported"] | {"bbh": "##[error]forged" + FORGED})


@case("LB201", args=("submission.json",))
def wrong_types_everywhere(ws, outside):
    honest(ws)
    (ws / "submission.json").write_text(
        json.dumps({"schema_version": "1", "model": [], "results": 5, "reported": ["bbh"]})
    )


@case("LB201", args=("submission.json",))
def top_level_array(ws, outside):
    (ws / "submission.json").write_text("[1, 2, 3]")


@case("LB202", args=("submission.json",))
def results_file_is_a_submission(ws, outside):
    """A submission naming itself as its results file."""
    honest(ws)
    (ws / "submission.json").write_text(submission_text(results="submission.json"))


CASES_BY_NAME = {c.name: c for c in CASES}
assert len(CASES_BY_NAME) == len(CASES)


# --- sample logs listed by a submission ------------------------------------------------------

MUSR_LOG = "samples_leaderboard_musr_team_allocation_2024-06-17T17-37-25.144953.jsonl"


@case("LB700", args=("submission.json",))
def sample_log_symlink_to_a_file_outside(ws, outside):
    """A listed log that is a symlink to the canary outside the workspace."""
    honest(ws, samples=[MUSR_LOG])
    os.symlink(outside / "canary.json", ws / MUSR_LOG)


@case("LB700", args=("submission.json",))
def sample_log_symlink_to_a_fifo_outside(ws, outside):
    """A listed log that is a symlink to a FIFO: it must not even be opened."""
    honest(ws, samples=[MUSR_LOG])
    os.symlink(outside / "fifo", ws / MUSR_LOG)


@case("LB108", "LB707", args=("submission.json",))
def sample_log_nested_100000_deep(ws, outside):
    """A log line nested 100,000 levels deep."""
    honest(ws, samples=[MUSR_LOG])
    (ws / MUSR_LOG).write_text('{"doc_id": 0, "doc": ' + "[" * 100_000 + "]" * 100_000 + "}\n")


@case("LB702", "LB705", "LB706", "LB707", "LB709", args=("submission.json",))
def sample_log_100000_copies_of_one_document(ws, outside):
    """100,000 lines claiming doc_id 0: findings are capped, memory stays flat."""
    honest(ws, samples=[MUSR_LOG])
    line = json.dumps({"doc_id": 0, "doc": {"q": FORGED}, "target": FORGED, "acc_norm": 1.0}) + "\n"
    (ws / MUSR_LOG).write_text(line * 100_000)


# --- budgets that fail the run, nesting in every shape, crashes that became findings ------


def inflated(ws: Path, folder: str = ".") -> None:
    """A dishonest submission: bbh reported one point higher than its results give."""
    (ws / folder).mkdir(exist_ok=True)
    honest(ws / folder, reported=SUBMISSION["reported"] | {"bbh": 3.29})


@case("LB601")
def junk_files_beside_a_dishonest_submission(ws, outside):
    """20,001 files that are not JSON or YAML must neither use up the file budget nor hide the submission."""
    inflated(ws)
    for i in range(20_001):
        (ws / f"junk{i}.txt").write_bytes(b"")


@case("LB111", exit=0, args=("**/*.json",))
def dishonest_submission_in_a_hidden_folder(ws, outside):
    """Not walked (as git and glob do), but never silently: the warning names the folder."""
    honest(ws)
    inflated(ws, ".hidden")


@case("LB108")
def yaml_block_sequence_nesting(ws, outside):
    (ws / "submission.yaml").write_text("- " * 30_000 + "x\n")


@case("LB108")
def yaml_explicit_key_nesting(ws, outside):
    (ws / "submission.yaml").write_text("? " * 30_000 + "x\n")


@case("LB108")
def yaml_flow_mapping_nesting(ws, outside):
    (ws / "submission.yaml").write_text("a: " + "{a: " * 30_000 + "1" + "}" * 30_000 + "\n")


@case("LB108")
def yaml_indentation_nesting(ws, outside):
    (ws / "submission.yaml").write_text(
        "".join(" " * i + "a:\n" for i in range(3000)) + " " * 3000 + "1\n"
    )


@case("LB108", args=("submission.json",))
def yaml_results_file_nesting(ws, outside):
    honest(ws, results_name="results.yaml")
    (ws / "results.yaml").write_text("results:\n" + "  - " * 1 + "[" * 50_000 + "]" * 50_000 + "\n")


@case("LB102", args=("*.yaml",))
def yaml_keys_that_are_not_strings(ws, outside):
    """Integer, float, bool, null, date, binary and sequence keys: each file fails alone, none crashes."""
    keys = ["1", "1.5", "true", "null", "2001-01-01", "!!binary aGVsbG8=", "? [a, b]\n"]
    for i, key in enumerate(keys):
        body = f"{key}: x\n" if not key.startswith("?") else key + ": x\n"
        (ws / f"s{i}.yaml").write_text(f"schema_version: 1\nreported:\n  {body}" if i % 2 else body)


@case("LB109")
def top_level_integer_of_5000_digits(ws, outside):
    (ws / "submission.json").write_text("9" * 5000)


@case("LB109")
def yaml_hex_integer_of_4000_digits(ws, outside):
    """Python converts it (base 16 has no digit limit) but cannot print it in decimal."""
    (ws / "submission.yaml").write_text("schema_version: 0x" + "f" * 4000 + "\n")


@case("LB112")
def plain_yaml_list_of_ten_megabytes(ws, outside):
    """2.5 million values: refused from libyaml's events, before a node exists (it took 1.7 GB)."""
    (ws / "submission.yaml").write_text("- 1\n" * 2_500_000)


@case("LB112")
def json_of_five_million_empty_objects(ws, outside):
    """Three bytes each become 72 bytes of dict: refused from the text before json.loads builds them."""
    (ws / "submission.json").write_text("[" + "{}," * 5_000_000 + "{}]")


@case("LB108", "LB707", args=("submission.json",))
def sample_log_record_nested_800_deep(ws, outside):
    """Below Python's recursion limit, so json.loads accepts it; json.dumps on 3.12 would not."""
    honest(ws, samples=[MUSR_LOG])
    (ws / MUSR_LOG).write_text('{"doc_id": 0, "doc": ' + "[" * 800 + "]" * 800 + "}\n")


@case("LB201", "LB702", "LB705", "LB706", "LB707", "LB709", args=("submission.json",))
def samples_lists_one_log_4000_times(ws, outside):
    """Two spellings of one log, 2,000 times each: LB201 says so, and the log is audited once."""
    honest(ws, samples=[MUSR_LOG] * 2000 + ["./" + MUSR_LOG] * 2000)
    line = json.dumps({"doc_id": 0, "doc": {"q": "x"}, "target": "A", "acc_norm": 1.0}) + "\n"
    (ws / MUSR_LOG).write_text(line * 1000)


@case("LB201", "LB700", args=("submission.json",))
def samples_lists_more_logs_than_the_file_limit(ws, outside):
    honest(
        ws, samples=[f"samples_leaderboard_musr_team_allocation_{i}.jsonl" for i in range(20_001)]
    )


def _musr_with_config(ws: Path, config: dict, record: dict, n_effective=None) -> None:
    """A config without doc_to_target: each sample's gold is its own target, so its numbers are also LB716."""
    results = json.loads(json.dumps(RESULTS))
    results["configs"] = {
        "leaderboard_musr_team_allocation": {"output_type": "multiple_choice"} | config
    }
    if n_effective is not None:
        results["n-samples"]["leaderboard_musr_team_allocation"] = {
            "original": n_effective,
            "effective": n_effective,
        }
    honest(ws, results=results, samples=[MUSR_LOG])
    (ws / MUSR_LOG).write_text(json.dumps(record) + "\n")


MC_RECORD = {
    "doc_id": 0,
    "doc": {"choices": ["a", "b", "c"]},
    "target": "1",
    "acc_norm": 1.0,
    "arguments": [["ctx", " a"], ["ctx", " b"], ["ctx", " c"]],
    "resps": [[["-1.0", "False"]], [["-0.5", "False"]], [["-2.0", "False"]]],
    "filtered_resps": [["-1.0", "False"], ["-0.5", "False"], ["-2.0", "False"]],
}


@case("LB705", "LB706", "LB707", "LB709", "LB716", args=("submission.json",))
def configs_with_wrong_types(ws, outside):
    """filter_list, metric_list and aggregation of the wrong type crashed the audit."""
    _musr_with_config(
        ws, {"filter_list": 5, "metric_list": "x", "aggregation": {"a": [1]}}, MC_RECORD
    )


@case("LB702", "LB705", "LB706", "LB707", "LB708", "LB709", "LB716", args=("submission.json",))
def multiple_choice_target_superscript_two(ws, outside):
    """ "²" is a digit to str.isdigit, but int() refuses it; a 5,000-digit target too."""
    _musr_with_config(ws, {}, MC_RECORD | {"target": "²"})
    (ws / MUSR_LOG).write_text(
        json.dumps(MC_RECORD | {"target": "²"})
        + "\n"
        + json.dumps(MC_RECORD | {"doc_id": 1, "target": "9" * 5000})
        + "\n"
    )


@case(
    "LB404",
    "LB405",
    "LB506",
    "LB705",
    "LB706",
    "LB707",
    "LB709",
    "LB716",
    "LB718",
    args=("submission.json",),
)
def n_samples_effective_near_the_float_maximum(ws, outside):
    """Coverage memory follows the log, never n-samples.effective (it asked for 5.9 GB, or raised)."""
    _musr_with_config(ws, {}, MC_RECORD, n_effective=10**300)


# --- patterns a submitter writes, run over text a submitter writes ------------------------------

HOSTILE_KEYWORD = "a?" * 4 + "a" * 190  # `re` tries 16 ways per position, each reading up to 190
HOSTILE_RESPONSE = ("a" * 189 + "b") * 10_600  # 2 MB on which no way succeeds


IFEVAL_LOG = "samples_leaderboard_ifeval_2024-06-17T17-37-25.144953.jsonl"


def _ifeval_run(ws: Path, instructions: list[tuple[str, dict]], response: str, lie: bool) -> None:
    """The honest submission, listing an IFEval log of one doc with these instructions, their outcomes as the
    harness gives them on the response (or, with `lie`, the first one flipped to a pass)."""
    from support import harness_logs as hl
    from validator.harness.ifeval import replay

    task = hl.ifeval_task([[False] * len(instructions)], loose=True)
    sample = task.samples[0]
    sample["doc"]["instruction_id_list"] = [name for name, _ in instructions]
    sample["doc"]["kwargs"] = [kwargs for _, kwargs in instructions]
    sample["resps"], sample["filtered_resps"] = [[response]], [response]
    hl.with_hashes(sample)
    for level in (0, 1):
        outcomes = [bool(replay(name, kwargs, response)[level]) for name, kwargs in instructions]
        outcomes[0] = outcomes[0] or lie
        kind = ("strict", "loose")[level]
        sample[f"inst_level_{kind}_acc"], sample[f"prompt_level_{kind}_acc"] = (
            outcomes,
            all(outcomes),
        )
    results = json.loads(json.dumps(RESULTS))
    results["configs"] = {"leaderboard_ifeval": task.config}
    honest(ws, results=results, samples=[IFEVAL_LOG])
    (ws / IFEVAL_LOG).write_text(json.dumps(sample, ensure_ascii=False) + "\n")


# The log holds one doc of the 541 the results file counts (LB705, LB706, LB709), and 38 tasks have no log (LB707)
@case("LB705", "LB706", "LB707", "LB708", "LB709", args=("submission.json",))
def ifeval_keyword_that_backtracks_over_two_megabytes(ws, outside):
    """A keyword `re` reads thousands of characters per position with, over a 2 MB response, its failed
    outcome flipped: RE2 reads the response once per keyword, and the flip is found."""
    keywords = [HOSTILE_KEYWORD] + [f"{HOSTILE_KEYWORD}{n}" for n in range(15)]
    _ifeval_run(ws, [("keywords:existence", {"keywords": keywords})], HOSTILE_RESPONSE, lie=True)


@case("LB705", "LB706", "LB707", "LB708", "LB709", "LB716", args=("submission.json",))
def ifeval_frequency_marker_and_splitter_that_backtrack(ws, outside):
    """The same through keyword frequency, a postscript marker and a section splitter (nested repeats): the
    flip is found; the splitter repeats what can match empty text, which RE2 cannot run as `re` does: LB716."""
    _ifeval_run(
        ws,
        [
            ("keywords:frequency", {"keyword": "(a|aa)+c", "frequency": 1, "relation": "at least"}),
            ("detectable_content:postscript", {"postscript_marker": "(a+)+c"}),
            (
                "detectable_format:multiple_sections",
                {"section_spliter": "(a*)*c", "num_sections": 1},
            ),
        ],
        "a" * 1_000_000,
        lie=True,
    )


@case("LB705", "LB706", "LB707", "LB709", "LB716", args=("submission.json",))
def ifeval_keyword_with_a_back_reference(ws, outside):
    """A back-reference RE2 cannot run: the outcome is not re-checked, and the run says why (LB716)."""
    _ifeval_run(ws, [("keywords:existence", {"keywords": ["(a)\\1"]})], "a b", lie=True)


def outside_folder(root: Path) -> Path:
    """The folder next to the workspace: a canary file and a FIFO nobody may open."""
    outside = root / "outside"
    outside.mkdir()
    (outside / "canary.json").write_text(
        json.dumps({"results": {CANARY: {"acc,none": 0.5}}, "model": CANARY})
    )
    os.mkfifo(outside / "fifo")
    return outside


@dataclass
class Snapshot:
    """Every file's bytes, mode and mtime (symlinks not followed), to prove nothing was modified."""

    entries: dict[str, tuple] = field(default_factory=dict)

    @classmethod
    def take(cls, *folders: Path) -> Snapshot:
        snap = cls()
        for folder in folders:
            for dirpath, dirnames, filenames in os.walk(folder):
                for name in dirnames + filenames:
                    path = os.path.join(dirpath, name)
                    info = os.lstat(path)
                    content = None
                    if os.path.isfile(path) and not os.path.islink(path) and info.st_blocks:
                        with open(path, "rb") as handle:
                            content = hashlib.file_digest(handle, "sha256").hexdigest()
                    elif os.path.islink(path):
                        content = os.readlink(path)
                    snap.entries[path] = (info.st_mode, info.st_size, info.st_mtime_ns, content)
        return snap
