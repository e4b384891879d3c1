"""Write examples/lm-eval-output/: a small lm-eval 0.4.x run of tasks lbnorm does not ship, with sample logs.

The docs' author and maintainer guides run on it (tests/acceptance/test_docs.py runs
every command they show). Files are written the way lm-eval writes them
(tests/support/harness_logs.py); the model and its scores are made up.

    python tests/support/make_example_run.py
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, when run as a script

from support import harness_logs as harness  # noqa: E402

OUTPUT = Path(__file__).resolve().parents[2] / "examples" / "lm-eval-output"
MODEL = "example-org/tiny-model"
DATE = "2025-03-01T12-00-00.000000"


def tasks() -> list[harness.Task]:
    stories = harness.scripted_choice_task("reading_stories", [i % 3 != 0 for i in range(24)])
    stories.config["doc_to_choice"] = [
        "Alice",
        "Bob",
        "Carol",
    ]  # a literal list: the count is in the config
    quiz = harness.scripted_choice_task(
        "reading_quiz", [i % 2 == 0 for i in range(20)], choices=("Paris", "Rome", "Oslo", "Bern")
    )
    places = harness.choice_task(
        "places", 30, seed=3
    )  # 2 to 5 choices per doc, built from each document
    places.config["doc_to_choice"] = "{{choices}}"
    return [stories, quiz, places]


def main() -> None:
    run = tasks()
    results = harness.results_for(run)
    results["group_subtasks"] = {"reading": ["reading_stories", "reading_quiz"]}
    results["config"]["model_args"] = f"pretrained={MODEL},dtype=bfloat16"
    results["model_name"] = MODEL
    results["model_name_sanitized"] = MODEL.replace("/", "__")
    shutil.rmtree(OUTPUT, ignore_errors=True)
    harness.write_run(OUTPUT / results["model_name_sanitized"], run, results, date=DATE)
    print(json.dumps({t.name: len(t.samples) for t in run}))


if __name__ == "__main__":
    main()
