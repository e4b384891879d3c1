"""The audit on every realistic shape of sample log, against its parse-and-hash floor; memory as logs grow.

    python bench/audit_shapes.py [--scale 1.0] [--repeat 3] [--process-repeat 7] [--seed 11]
        [--keep DIR] [--json OUT]

Each shape is generated from the seed (logs written as lm-eval writes them, honest, so the audit
reads every line), then measured as bench/survey_bench.py measures a corpus: per log, the audit's
CPU (the call a survey's work item makes) and the floor's (a bare loop that parses each line and
computes the three sha256 hashes), taking turns, best of --repeat. A last column puts the audit against a
cheaper loop that hashes each line's bytes instead (survey_bench.py: line_floor).

- multiple choice: 12,000 docs of 4 to 10 choices, short prompts (one request per choice);
- multiple choice as ARC's docs are: 10,000 docs with a row id, their choices' texts and labels in an
  object, and templates that reach into it (`{{choices.text}}`, `{{choices.label.index(answerKey)}}`);
- generative: DROP (passages of about 1.5 kB, three-shot) and GSM8K (two filters, five-shot, generations
  of about 400 characters);
- multiple choice as MMLU is: 40 logs of 100 to 300 docs, four short choices lettered in the prompt under
  a description that ends with a blank line;
- long few-shot prompts: MMLU-Pro-like, a five-shot prompt of about 4 kB repeated in every request;
- a few samples per log: 300 runs whose logs hold 5 samples each (per-log fixed costs dominate), and one
  run of 60 tasks whose logs hold 5 samples each (one `lbnorm audit` process reads them all);
- the Open LLM Leaderboard v2's generative tasks (bench/leaderboard_shapes.py): IFEval, 541 docs of one to
  three instructions and responses of 1 to 3 kB, the audit replaying every instruction's checker strictly
  and loosely; MATH hard, four subtasks of 123 to 307 docs, 4-shot prompts full of LaTeX and generations
  of 500 to 1500 characters ending with a boxed answer.

The process rows time what a person waits for: `lbnorm audit` (the console script pip writes) of
each shape's run as a fresh process, start-up included, against a fresh process that imports click
and runs the floor's loop over the same logs (bench/startup.py's AUDIT_FLOOR); wall time, median of
--process-repeat, taking turns; for logs of a few samples, one process per run over the first ten
runs. They run --python (bench/setup.sh's bench/.venv when it is there): an interpreter where lbnorm is
installed as users install it. An editable install's import hook (a .pth file site runs) loads pathlib
and importlib.util in every process, the floor's too, and the ratios read lower than a user's.

The memory rows run `lbnorm audit` and `lbnorm survey` in fresh processes on the multiple-choice
shape at 1× and 10× its size and report each one's peak resident memory (the largest process).
--scale shrinks or grows every shape (0.1 for a quick look).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path[:0] = [str(REPO), str(REPO / "tests"), str(BENCH)]

from leaderboard_shapes import ifeval_task, math_tasks  # noqa: E402
from startup import (  # noqa: E402
    AUDIT_FLOOR,
    CLEAN_PYTHON,
    CONSOLE_SCRIPT,
    clean_env,
    default_python,
    warn_if_editable,
)
from support import harness_logs as hl  # noqa: E402
from survey_bench import audit_rows  # noqa: E402
from survey_corpus import drop_run_task, mc_task, prose  # noqa: E402

# Started from a minimal interpreter: the child's peak resident memory is then its own (Linux keeps
# the forking process's high-water mark across exec).
PEAK_RSS = (
    "import resource, subprocess, sys\n"
    "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


# The metric_list of both multiple-choice shapes (read only: the configs share it)
ACC_AND_ACC_NORM = [
    {"metric": "acc", "aggregation": "mean", "higher_is_better": True},
    {"metric": "acc_norm", "aggregation": "mean", "higher_is_better": True},
]


def many_choices_task(rng: random.Random, name: str, docs: int) -> hl.Task:
    """Multiple choice with 4 to 10 choices per doc and a short prompt, scored from log-likelihoods."""
    config = {
        "task": name,
        "output_type": "multiple_choice",
        "target_delimiter": " ",
        "doc_to_text": "{{question}}\nAnswer:",
        "doc_to_target": "label",
        "doc_to_choice": "choices",
        "metric_list": ACC_AND_ACC_NORM,
    }
    task = hl.Task(name, config)
    for doc_id in range(docs):
        question = prose(rng, rng.randint(20, 60)) + "?"
        choices = [prose(rng, rng.randint(2, 12)) for _ in range(rng.randint(4, 10))]
        gold = rng.randrange(len(choices))
        lls = [-rng.uniform(0.1, 40.0) for _ in choices]
        doc = {"question": question, "choices": choices, "label": gold}
        sample = hl.choice_sample(doc_id, doc, f"{question}\nAnswer:", choices, gold, lls)
        task.samples.append(sample)
    return task


LETTERS = ["A", "B", "C", "D"]
MMLU_TEXT = "{{question.strip()}}\nA. {{choices[0]}}\nB. {{choices[1]}}\nC. {{choices[2]}}\nD. {{choices[3]}}\nAnswer:"


def mmlu_like_task(rng: random.Random, subject: str, docs: int) -> hl.Task:
    """Multiple choice as lm-eval's MMLU subtasks log it: a description ending in a blank line, a question
    and its four short choices lettered in the prompt, the letters scored."""
    description = f"The following are multiple choice questions (with answers) about {subject}.\n\n"
    config = {
        "task": f"mmlu_{subject}",
        "output_type": "multiple_choice",
        "target_delimiter": " ",
        "fewshot_delimiter": "\n\n",
        "num_fewshot": 0,
        "description": description,
        "doc_to_text": MMLU_TEXT,
        "doc_to_target": "answer",
        "doc_to_choice": LETTERS,
        "metric_list": ACC_AND_ACC_NORM,
    }
    task = hl.Task(f"mmlu_{subject}", config)
    for doc_id in range(docs):
        question = prose(rng, rng.randint(8, 40)) + "?"
        choices = [prose(rng, rng.randint(1, 8)) for _ in LETTERS]
        gold = rng.randrange(len(LETTERS))
        doc = {"question": question, "subject": subject, "choices": choices, "answer": gold}
        lettered = "".join(
            f"\n{letter}. {text}" for letter, text in zip(LETTERS, choices, strict=True)
        )
        prompt = f"{description}{question}{lettered}\nAnswer:"
        lls = [-rng.uniform(0.1, 10.0) for _ in LETTERS]
        task.samples.append(hl.choice_sample(doc_id, doc, prompt, LETTERS, gold, lls))
    return task


def arc_like_task(rng: random.Random, docs: int) -> hl.Task:
    """Multiple choice as lm-eval's arc_challenge logs it: a row id in every doc (the copies check matches
    such docs by their content too), choices in an object of texts and labels, mostly four, sometimes three
    or five, and templates that reach into that object."""
    config = {
        "task": "arc_like",
        "output_type": "multiple_choice",
        "target_delimiter": " ",
        "fewshot_delimiter": "\n\n",
        "num_fewshot": 0,
        "doc_to_text": "Question: {{question}}\nAnswer:",
        "doc_to_target": "{{choices.label.index(answerKey)}}",
        "doc_to_choice": "{{choices.text}}",
        "metric_list": ACC_AND_ACC_NORM,
    }
    task = hl.Task("arc_like", config)
    # Row ids drawn without repeats: two docs with one id would be one doc logged twice (LB725)
    row_ids = rng.sample(range(1, 10_000_000), docs)
    for doc_id in range(docs):
        count = rng.choices([3, 4, 5], [2, 96, 2])[0]
        labels = list("ABCDE"[:count])
        question = prose(rng, rng.randint(12, 55)) + rng.choice(".?")
        choices = [prose(rng, rng.randint(1, 9)) for _ in range(count)]
        gold = rng.randrange(count)
        doc = {
            "id": f"Mercury_{row_ids[doc_id]}",
            "question": question,
            "choices": {"text": choices, "label": labels},
            "answerKey": labels[gold],
        }
        lls = [-rng.uniform(0.1, 40.0) for _ in choices]
        sample = hl.choice_sample(doc_id, doc, f"Question: {question}\nAnswer:", choices, gold, lls)
        task.samples.append(sample)
    return task


def gsm8k_task(rng: random.Random, docs: int) -> hl.Task:
    """GSM8K as the harness logs it: each doc under both filters, a five-shot prompt, a question of about 250
    characters, a worked solution, and a generation of about 400 characters of reasoning with its numbers
    before the answer the filters read (the test corpus's generations are that answer alone)."""
    strict = [rng.random() < 0.4 for _ in range(docs)]
    flexible = [s or rng.random() < 0.3 for s in strict]
    task = hl.two_filter_task({"strict-match": strict, "flexible-extract": flexible})
    shots = "\n\n".join(
        f"Question: {prose(rng, 40)}?\nAnswer: {prose(rng, 50)}\n#### {n}" for n in range(5)
    )
    task.config["num_fewshot"] = 5
    task.config["fewshot_delimiter"] = "\n\n"
    # doc_id -> (question, solution, reasoning): one per doc, the same under both filters
    written: dict[int, tuple[str, str, str]] = {}
    for sample in task.samples:
        doc_id = sample["doc_id"]
        if doc_id not in written:
            written[doc_id] = (
                f"{prose(rng, 40)}? {sample['doc']['question']}",
                f"{worked(rng, 50)}\n{sample['doc']['answer']}",
                worked(rng, 55),
            )
        question, solution, reasoning = written[doc_id]
        sample["doc"] = {"question": question, "answer": solution}
        sample["target"] = solution
        sample["resps"] = [[reasoning + sample["resps"][0][0]]]
        arguments = sample["arguments"]["gen_args_0"]
        arguments["arg_0"] = f"{shots}\n\nQuestion: {question}\nAnswer:"
        hl.with_hashes(sample)
    return task


def worked(rng: random.Random, words: int) -> str:
    """Prose with a calculation every few words, a line a sentence, as a GSM8K solution or a model's answer
    reads: the dataset's calculator notes (<<48/2=24>>24), dollar amounts and thousands with commas."""
    parts = []
    for position in range(words):
        draw = rng.random()
        if draw < 0.1:
            a, b = rng.randint(2, 99), rng.randint(2, 9)
            parts.append(f"{a} * {b} = <<{a}*{b}={a * b}>>{a * b}")
        elif draw < 0.15:
            parts.append(f"${rng.randint(1, 20_000):,}")
        else:
            parts.append(prose(rng, 1))
        if position % 12 == 11:
            parts[-1] += ".\n"
    return " ".join(parts).replace("\n ", "\n") + "."


def gsm8k_results(task: hl.Task) -> dict:
    correct = {
        name: [s["exact_match"] == 1.0 for s in task.samples if s["filter"] == name]
        for name in hl.GSM8K_FILTERS
    }
    return hl.two_filter_results(task, correct)


def write_shapes(out: Path, seed: int, scale: float) -> dict[str, Path]:
    """Each shape in a folder of its own, as `lbnorm survey` and `lbnorm audit` take it."""
    rng = random.Random(seed)
    n = lambda docs: max(1, round(docs * scale))  # noqa: E731
    shapes = {name: out / name for name in SHAPES}
    mc = many_choices_task(rng, "many_choices", n(12_000))
    hl.write_run(shapes["multiple choice, 4-10 choices"] / "org__model", [mc])
    arc = arc_like_task(rng, n(10_000))
    hl.write_run(shapes["multiple choice, ARC-like"] / "org__model", [arc])
    drop = drop_run_task(rng, n(2_000))
    hl.write_run(shapes["generative: DROP"] / "org__model", [drop])
    gsm8k = gsm8k_task(rng, n(1_319))
    hl.write_run(shapes["generative: GSM8K"] / "org__model", [gsm8k], gsm8k_results(gsm8k))
    long = mc_task(rng, n(1_000), seed)
    hl.write_run(shapes["long few-shot prompts"] / "org__model", [long])
    for run in range(max(1, round(300 * min(scale, 1.0)))):
        few = many_choices_task(rng, "few_samples", 5)
        hl.write_run(shapes["a few samples per log"] / f"org__model-{run:03d}", [few])
    # Last, so that a shape added here leaves the draws of every shape above unchanged
    subjects = [
        mmlu_like_task(rng, f"subject_{k:02d}", n(rng.randint(100, 300))) for k in range(40)
    ]
    hl.write_run(shapes["multiple choice, MMLU-like: 40 logs"] / "org__model", subjects)
    ifeval = ifeval_task(rng, n(541))
    hl.write_run(shapes["leaderboard IFEval"] / "org__model", [ifeval])
    hl.write_run(shapes["leaderboard MATH hard"] / "org__model", math_tasks(rng, n))
    small = [many_choices_task(rng, f"small_{k:02d}", 5) for k in range(60)]
    hl.write_run(shapes["a few samples per log: 60 logs in one run"] / "org__model", small)
    return shapes


SHAPES = (
    "multiple choice, 4-10 choices",
    "multiple choice, ARC-like",
    "generative: DROP",
    "generative: GSM8K",
    "multiple choice, MMLU-like: 40 logs",
    "long few-shot prompts",
    "a few samples per log",
    "leaderboard IFEval",
    "leaderboard MATH hard",
    "a few samples per log: 60 logs in one run",
)


def process_row(folder: Path, repeat: int, bytecode: Path, python: str) -> dict:
    """`lbnorm audit` of each run in `folder` (the first ten) against the floor's loop, each a fresh process."""
    runs = sorted(path.name for path in folder.iterdir() if path.is_dir())[:10]
    env = clean_env({}, bytecode)
    script = bytecode.parent / "lbnorm"  # what pip's `lbnorm` script runs; `python -m` adds runpy
    script.write_text(CONSOLE_SCRIPT)
    commands = {
        "audit": [[python, str(script), "audit", run] for run in runs],
        "floor": [[python, "-c", AUDIT_FLOOR, run] for run in runs],
    }
    seconds: dict[str, list[float]] = {"audit": [], "floor": []}
    # Turn 0 warms the page cache and writes the bytecode; it is not counted
    for turn in range(repeat + 1):
        for name, argvs in commands.items():
            start = time.perf_counter()
            for argv in argvs:
                done = subprocess.run(argv, cwd=folder, env=env, capture_output=True)
                if done.returncode != 0:
                    raise SystemExit(f"{' '.join(argv[:4])} in {folder} exited {done.returncode}")
            if turn:
                seconds[name].append(time.perf_counter() - start)
    audit, floor = (statistics.median(seconds[name]) for name in ("audit", "floor"))
    return {"runs": len(runs), "audit_s": audit, "floor_s": floor, "ratio": audit / floor}


def peak_rss_mib(argv: list[str], cwd: Path) -> float:
    """The peak resident memory of the largest process of the command, run in `cwd` (its workspace)."""
    env = os.environ | {"PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", PEAK_RSS, *argv], capture_output=True, text=True, env=env, cwd=cwd
    )
    return int(done.stdout.strip()) / 1024


def memory_rows(out: Path, seed: int, scale: float) -> list[dict]:
    """Peak memory of `lbnorm audit` and `lbnorm survey` on the multiple-choice shape at 1x and 10x."""
    rows = []
    for factor in (1, 10):
        folder = out / f"memory-{factor}x" / "org__model"
        task = many_choices_task(
            random.Random(seed), "many_choices", round(12_000 * scale * factor)
        )
        paths = hl.write_run(folder, [task])
        size = paths["many_choices"].stat().st_size / 1e6
        audit = peak_rss_mib(
            [sys.executable, "-m", "validator", "audit", folder.name], folder.parent
        )
        survey = peak_rss_mib(
            [
                *(sys.executable, "-m", "validator", "survey", "."),
                *("--out", str(out / f"survey-{factor}x"), "--workers", "1", "--no-plots"),
            ],
            folder.parent,
        )
        rows.append({"factor": factor, "log_MB": size, "audit_MiB": audit, "survey_MiB": survey})
        shutil.rmtree(folder.parent)
    return rows


def markdown(shapes: dict[str, list[dict]], processes: dict[str, dict], memory: list[dict]) -> str:
    lines = [
        "| shape | logs | MB | floor CPU s | audit CPU s | audit / floor | target | audit / line floor |",
        "|---|---:|---:|---:|---:|---:|---|---:|",
    ]
    for name, rows in shapes.items():
        row = rows[0]  # all the shape's logs
        lines.append(
            f"| {name} | {row['files']} | {row['MB']:.1f} | {row['floor_cpu_s']:.3f} | "
            f"{row['audit_cpu_s']:.3f} | {row['ratio']:.2f} | ≤ 1.5 | {row['ratio_line_floor']:.2f} |"
        )
    if processes:
        lines += [
            "",
            "| shape, as fresh processes | runs | lbnorm audit s | floor s | ratio |",
            "|---|---:|---:|---:|---:|",
        ]
        for name, row in processes.items():
            lines.append(
                f"| {name} | {row['runs']} | {row['audit_s']:.3f} | {row['floor_s']:.3f} | "
                f"{row['ratio']:.2f} |"
            )
    lines += [
        "",
        "| multiple-choice log | MB | lbnorm audit peak MiB | lbnorm survey peak MiB |",
        "|---|---:|---:|---:|",
    ]
    for row in memory:
        lines.append(
            f"| {row['factor']}× | {row['log_MB']:.0f} | {row['audit_MiB']:.0f} | "
            f"{row['survey_MiB']:.0f} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    # Processes of a tenth of a second: with three turns a row moved by half a unit between two runs
    parser.add_argument("--process-repeat", type=int, default=7)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--keep", type=Path, help="write the shapes here and keep them")
    parser.add_argument("--no-memory", action="store_true", help="leave out the memory rows")
    parser.add_argument(
        "--no-processes", action="store_true", help="leave out the fresh-process rows"
    )
    parser.add_argument(
        "--python",
        default=default_python(),
        help=f"the process rows' interpreter (default: {CLEAN_PYTHON.relative_to(REPO)} when it is there)",
    )
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    if not args.no_processes:
        warn_if_editable(args.python)
    out = args.keep or Path(tempfile.mkdtemp(prefix="audit-shapes-"))
    try:
        folders = write_shapes(out, args.seed, args.scale)
        shapes = {name: audit_rows(str(folder), args.repeat) for name, folder in folders.items()}
        processes = (
            {}
            if args.no_processes
            else {
                name: process_row(folder, args.process_repeat, out / "bytecode", args.python)
                for name, folder in folders.items()
            }
        )
        memory = [] if args.no_memory else memory_rows(out, args.seed, args.scale)
    finally:
        if not args.keep:
            shutil.rmtree(out, ignore_errors=True)
    print(markdown(shapes, processes, memory))
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if args.json:
        report = {"shapes": shapes, "processes": processes, "memory": memory}
        args.json.write_text(json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
