"""What each command imports: a pull request's check pays for every module it loads, at every start."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from support import harness_logs as hl
from support.common import EXAMPLES, REPO, run_cli

# `python -m validator ARGS` in the script's own process, then what the script prints after it
RUN_COMMAND = """
import runpy, sys
sys.argv = ["validator", *sys.argv[1:]]
try:
    runpy.run_module("validator", run_name="__main__", alter_sys=True)
except SystemExit:
    pass
sys.stdout = sys.__stdout__
"""
LOADED_MODULES = RUN_COMMAND + 'print(" ".join(sorted(sys.modules)))\n'

COMMAND_MODULES = {
    f"validator.cli.{name}"
    for name in (
        "audit",
        "check",
        "config",
        "normalize",
        "profile",
        "rules",
        "submission",
        "survey",
    )
}
AUDIT = {
    "validator.audit.auditor",
    "validator.audit.checks.drop_scoring",
    "validator.io.sample_logs",
    "validator.harness.choice_scores",
}
# Worker processes (re-audits of many files), jsonschema (only to explain an invalid submission), the
# reporters of formats not asked for, OpenSSL (only a leaderboard check hashes) and importlib.resources
# (its tempfile, shutil and compression modules: the package's files are read from its folder).
HEAVY = {
    "multiprocessing",
    "concurrent.futures",
    "jsonschema",
    "xml.etree",
    "validator.report.junit",
    "validator.report.sarif",
    "hashlib",
    "importlib.resources",
}


def run_python(script: str, *args: str, cwd=REPO, env=None, timeout=60):
    """`python -c script args` in a fresh interpreter, this repository's validator first on its path."""
    return subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=(os.environ if env is None else env) | {"PYTHONPATH": str(REPO)},
        timeout=timeout,
    )


def loaded_by(*args: str, cwd=REPO) -> set[str]:
    proc = run_python(LOADED_MODULES, *args, cwd=cwd)
    return set(proc.stdout.splitlines()[-1].split())


def loaded_by_python() -> set[str]:
    """What the interpreter itself has loaded when it runs a command (site, and what site imports)."""
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; print(' '.join(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    return set(proc.stdout.split())


def test_version_loads_no_command():
    loaded = loaded_by("--version")
    assert not loaded & COMMAND_MODULES
    assert not {m for m in loaded if m.startswith(("validator.check", "validator.audit"))}


def test_version_loads_only_the_version():
    """`lbnorm --version` is the cheapest start there is: not even click, just the version the build wrote."""
    loaded = loaded_by("--version")
    assert "click" not in loaded and "re" not in loaded - loaded_by_python()
    assert {m for m in loaded if m.startswith("validator")} <= {
        "validator",
        "validator.__main__",
        "validator.cli",
        "validator.core",
        "validator.core.version",
        "validator.core._build_version",
    }


def test_version_prints_what_the_click_group_prints():
    from click.testing import CliRunner

    from validator.cli import cli
    from validator.core.version import __version__

    proc = run_cli("--version", fresh=True)
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout == f"lbnorm, version {__version__}\n"
    assert proc.stdout == CliRunner().invoke(cli, ["--version"]).output
    # Anything more than the bare option goes through click, which prints the same.
    assert run_cli("--version", "--help").stdout == proc.stdout


def test_version_exits_0_when_its_reader_is_gone():
    """As every command: a closed stdout or a reader that stopped reading changes no exit code."""
    command = [sys.executable, "-m", "validator", "--version"]
    assert subprocess.run(command, cwd=REPO, stdout=subprocess.DEVNULL, timeout=60).returncode == 0
    closed = subprocess.run(
        command, cwd=REPO, capture_output=False, timeout=60, preexec_fn=lambda: os.close(1)
    )
    assert closed.returncode == 0
    read, write = os.pipe()
    os.close(read)
    try:
        gone = subprocess.run(command, cwd=REPO, stdout=write, stderr=subprocess.PIPE, timeout=60)
    finally:
        os.close(write)
    assert gone.returncode == 0 and gone.stderr == b""


def test_a_check_loads_only_its_own_command():
    loaded = loaded_by("check", "-q", "examples/pythia-1b/submission.json")
    assert loaded & COMMAND_MODULES == {"validator.cli.check"}
    assert "yaml" not in loaded  # the built-in profile is read from its parsed copy
    assert not {m for m in loaded if m.startswith("validator.survey")}
    assert not HEAVY & (loaded - loaded_by_python())


def test_an_honest_check_loads_no_difflib():
    """Only a name the profile does not know gets a "did you mean". (Without options: click loads difflib
    to suggest an option's name whenever a short option such as -q is given.)"""
    assert "difflib" not in loaded_by("check", "examples/pythia-1b/submission.json")


def test_a_check_where_no_toml_file_is_found_loads_no_toml_parser(tmp_path):
    """The configuration search reads pyproject.toml and .lbnorm.toml; without one, tomllib stays out."""
    submission = str(REPO / "examples" / "pythia-1b" / "submission.json")
    loaded = loaded_by("check", "-q", "--root", str(REPO), submission, cwd=tmp_path)
    assert "validator.cli.check" in loaded and "tomllib" not in loaded
    assert "tomllib" in loaded_by("check", "-q", submission)  # the repository's own pyproject.toml


def test_an_invalid_submission_is_explained_by_jsonschema():
    loaded = loaded_by("check", "-q", str(EXAMPLES / "negative" / "LB201_schema"))
    assert "jsonschema" in loaded


def test_a_check_loads_the_sample_log_audit_only_when_a_submission_lists_logs():
    """Every pull request pays for start-up imports; the audit is for the few with logs."""
    honest = EXAMPLES / "positive"
    assert not AUDIT & loaded_by(
        "check",
        "-q",
        "--root",
        str(honest / "pythia_two_decimals"),
        str(honest / "pythia_two_decimals"),
    )
    assert AUDIT <= loaded_by(
        "check", "-q", "--root", str(honest / "samples_honest"), str(honest / "samples_honest")
    )


def test_the_action_loads_no_openssl_without_a_pinned_file(tmp_path):
    """The image runs the entrypoint on every pull request: hashing (OpenSSL, via hashlib or secrets' hmac)
    loads only to check a pinned profile or configuration."""
    from support.action_runner import make_workspace

    workspace = make_workspace(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))} | {
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_OUTPUT": str(tmp_path / "output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "INPUT_FILES": "submissions/pythia/honest.json",
    }
    proc = run_python(LOADED_MODULES, "action", cwd=workspace, env=env)
    assert "1 file(s) checked" in (tmp_path / "summary.md").read_text() + proc.stdout
    loaded = set(proc.stdout.splitlines()[-1].split())
    assert "validator.action" in loaded
    assert not {"hashlib", "hmac", "secrets", "_hashlib"} & (loaded - loaded_by_python())
    assert "yaml" not in loaded  # the default profile is read from its parsed copy


def test_an_audit_loads_neither_the_check_nor_pyyaml():
    """`lbnorm audit` of a run: the submission check's modules stay out, and a built-in profile that names the
    audited tasks (DROP and MuSR here) is read from its parsed copy, without PyYAML."""
    run = "examples/lm-eval-output/example-org__tiny-model"
    loaded = loaded_by("audit", "-q", run)
    assert AUDIT <= loaded
    assert not {m for m in loaded if m.startswith("validator.check")}
    assert "yaml" not in loaded
    profiled = loaded_by("audit", "-q", str(EXAMPLES / "positive" / "samples_honest"))
    assert "validator.audit.checks.doc_agreement" in profiled and "yaml" not in profiled


DATACLASSES_BUILT = (
    """
import dataclasses
built, make = [], dataclasses.dataclass

def recorded(cls=None, /, **options):
    def wrap(cls):
        built.append(cls.__module__ + "." + cls.__qualname__)
        return make(cls, **options)
    return wrap if cls is None else wrap(cls)

dataclasses.dataclass = recorded
"""
    + RUN_COMMAND
    + 'print(" ".join(built))\n'
)


FROZEN_AFTER = """
import gc, sys
from validator.cli import main
from validator.cli.group import cli
python_threshold = gc.get_threshold()[0]  # 700 in Python 3.11 and 3.12, 2000 in 3.13
how, *args = sys.argv[1:]
sys.argv = ["lbnorm", *args]
try:
    main() if how == "lbnorm" else cli(args, standalone_mode=False)
except SystemExit:
    pass
sys.stdout = sys.__stdout__
command = getattr(sys.modules[f"validator.cli.{args[0]}"], args[0])  # the click command, made as it ran
threshold = gc.get_threshold()[0]
print(gc.get_freeze_count(), any(tracked is command for tracked in gc.get_objects()), threshold, python_threshold)
"""
RUN = "examples/lm-eval-output/example-org__tiny-model"


@pytest.mark.parametrize("how, frozen", [("lbnorm", True), ("called from a program", False)])
@pytest.mark.parametrize(
    "args", [["audit", "-q", RUN], ["check", "-q", RUN], ["check", "-q", "no-such-file.json"]]
)
def test_lbnorm_freezes_its_heap_as_it_ends_only_in_its_own_process(args, how, frozen):
    """`lbnorm`, whatever its command and outcome, collects its youngest objects only every 50,000 new ones
    (not Python's 700 or 2000: its imports were walked again and again) and freezes what it holds as it ends
    (cli.main), so that the interpreter's collections at exit skip it; the same command called from another
    program leaves that program's collector as it was."""
    proc = run_python(FROZEN_AFTER, how, *args)
    assert proc.returncode == 0, proc.stderr
    count, command_tracked, threshold, python_threshold = proc.stdout.splitlines()[-1].split()
    assert (int(count) > 0) is frozen
    assert command_tracked == str(not frozen)  # frozen after the command's modules were imported
    assert int(threshold) == (50_000 if frozen else int(python_threshold))


def test_an_audit_builds_no_dataclass(tmp_path):
    """Python compiles a dataclass's methods as its module is imported, about 0.4 ms each (3.11), where an
    audit of a few samples takes 70 ms: the records an audit builds are named tuples or plain classes
    (docs/architecture.md, Habits), among them the profile model (built for a task a built-in profile
    names) and DROP's flags (for a DROP log), which the example of named tasks holds."""
    hl.write_run(tmp_path / "run", [hl.choice_task("quiz", docs=3)])
    named = str(EXAMPLES / "positive" / "samples_honest")
    for run in ("examples/lm-eval-output/example-org__tiny-model", str(tmp_path / "run"), named):
        proc = run_python(DATACLASSES_BUILT, "audit", "-q", run)
        assert proc.stdout.splitlines()[-1:] == [""], proc.stdout + proc.stderr


def test_an_audit_loads_no_module_for_what_it_does_not_do(tmp_path):
    """A fresh audit of tasks no built-in profile names reads no profile's checksum (zlib), finds its checks
    without pkgutil, writes MMLU-Pro's letters without the string module, which compiles a regex at import,
    and, replaying no pattern, loads no Unicode table of `re`'s classes."""
    hl.write_run(tmp_path / "run", [hl.choice_task("quiz", docs=3)])
    loaded = loaded_by(
        "audit", "-q", str(tmp_path / "run"), cwd=tmp_path
    )  # no pyproject.toml: no tomllib
    assert "validator.audit.checks.multiple_choice" in loaded
    assert not {"pkgutil", "zlib", "string"} & (loaded - loaded_by_python())
    assert not {"validator.harness.regex_classes", "validator.harness.unicode_tables"} & loaded


RECORD_ANNOTATIONS = """
import typing
compiled, make = [], typing.ForwardRef.__init__

def recorded(self, arg, *args, **options):
    compiled.append(arg)
    make(self, arg, *args, **options)

typing.ForwardRef.__init__ = recorded
"""
PRINT_ANNOTATIONS = 'print(" | ".join(compiled))\n'


def test_an_audit_compiles_no_annotation(tmp_path):
    """typing.NamedTuple compiles each annotation it is given as text, about 20 us a field in a fresh process: a
    module that defines a named tuple does without `from __future__ import annotations` (docs/architecture.md,
    Habits), so its annotations are objects already. What click's own typed dicts compile, the floor pays too."""
    clicks = run_python(RECORD_ANNOTATIONS + "import click\n" + PRINT_ANNOTATIONS).stdout
    assert clicks.strip()  # the recorder sees what it is meant to
    hl.write_run(tmp_path / "run", [hl.choice_task("quiz", docs=3)])
    for run in (REPO / "examples/lm-eval-output/example-org__tiny-model", tmp_path / "run"):
        script = RECORD_ANNOTATIONS + RUN_COMMAND + PRINT_ANNOTATIONS
        proc = run_python(
            script, "audit", "-q", str(run), cwd=tmp_path
        )  # no pyproject.toml: no tomllib
        assert proc.stdout.splitlines()[-1:] == clicks.splitlines(), proc.stdout + proc.stderr


def test_an_audit_loads_the_profile_model_only_for_a_task_a_built_in_profile_names(tmp_path):
    """The profile model (core/profile.py) is built from a built-in profile that names an audited task; a run
    of tasks no profile names does not import it."""
    hl.write_run(tmp_path / "run", [hl.choice_task("quiz", docs=3)])
    assert "validator.core.profile" not in loaded_by("audit", "-q", str(tmp_path / "run"))
    named = loaded_by("audit", "-q", str(EXAMPLES / "positive" / "samples_honest"))
    assert "validator.core.profile" in named


def test_re2_loads_with_the_first_pattern_compiled():
    """google-re2 is a noticeable share of a fresh audit's start-up, and most logs give it no pattern."""
    script = (
        "import sys; from validator.harness.linear_regex import compile_linear\n"
        "assert 're2' not in sys.modules\n"
        "assert compile_linear(r'\\d+').findall('a 12 b 3') == ['12', '3']\n"
        "assert 're2' in sys.modules"
    )
    proc = run_python(script)
    assert proc.returncode == 0, proc.stderr


def test_plain_splitters_and_markers_are_replayed_without_re2():
    """IFEval's splitters and postscript markers of plain words are run by re (harness/literal_patterns.py)."""
    script = (
        "import sys; from validator.harness.ifeval import replay\n"
        "reply = 'SECTION 1 a SECTION 2 b\\nP.S. c'\n"
        "assert replay('detectable_format:multiple_sections', "
        "{'section_spliter': 'SECTION', 'num_sections': 2}, reply) == (True, True)\n"
        "for marker in ('P.S.', 'P.P.S', 'Note'):\n"
        "    replay('detectable_content:postscript', {'postscript_marker': marker}, reply)\n"
        "assert 're2' not in sys.modules"
    )
    proc = run_python(script)
    assert proc.returncode == 0, proc.stderr


# Each task's own replay, by the module it starts from: what an audit of a run without that task never loads.
REPLAYS = {
    "DROP": "validator.harness.drop_flags",
    "IFEval": "validator.harness.ifeval",
    "regex filters": "validator.harness.filters",
    "exact_match": "validator.harness.exact_match",
}
GSM8K_CORRECT = {"strict-match": [True, False], "flexible-extract": [True, True]}


def write_gsm8k(folder):
    task = hl.two_filter_task(GSM8K_CORRECT)
    hl.write_run(folder, [task], hl.two_filter_results(task, GSM8K_CORRECT))


RUNS = {
    "multiple choice": (
        lambda folder: hl.write_run(folder, [hl.choice_task("quiz", docs=3)]),
        set(),
    ),
    "DROP": (
        lambda folder: hl.write_run(folder, [hl.drop_task([" 10", " 11"], [[["10"]], [["11"]]])]),
        {"DROP"},
    ),
    "IFEval": (
        lambda folder: hl.write_run(folder, [hl.ifeval_task([[True, False], [True]])]),
        {"IFEval"},
    ),
    "GSM8K": (write_gsm8k, {"regex filters", "exact_match"}),
    "MATH": (
        lambda folder: hl.write_run(
            folder, [hl.math_task("leaderboard_math_algebra_hard", [True, False])]
        ),
        {"exact_match"},
    ),
}


@pytest.mark.parametrize("kind", RUNS)
def test_an_audit_loads_a_task_s_replay_only_for_its_samples(tmp_path, kind):
    """The replays of DROP, IFEval and the regex filters are a noticeable share of a fresh audit's start-up;
    a run that has none of their samples does not import them, and one that has them audits them."""
    write, replayed = RUNS[kind]
    write(tmp_path / "run")
    loaded = loaded_by("audit", "-q", str(tmp_path / "run"))
    assert "validator.audit.auditor" in loaded
    assert {name for name, module in REPLAYS.items() if module in loaded} == replayed
    proc = run_cli("audit", "-q", str(tmp_path / "run"))
    assert proc.returncode == 0, proc.stdout + proc.stderr


AUDITS_IN_PROCESS = """
import contextlib, io, sys
from validator.cli.group import cli
from validator.survey.work import prepare_worker
prepare_worker()
before = set(sys.modules)
for run in sys.argv[1:]:
    with contextlib.redirect_stdout(io.StringIO()):
        try:
            cli(["audit", "-q", run], standalone_mode=False)
        except SystemExit:
            pass
print(" ".join(sorted(set(sys.modules) - before)))
"""


def test_a_survey_worker_imports_every_replay_before_its_first_unit(tmp_path):
    """A survey's worker imports the tasks' replays up front (audit/checks: REPLAYS), not inside a unit's
    deadline: auditing a run of every kind after it loads no module of the harness, nor RE2."""
    runs = []
    for kind, (write, _) in RUNS.items():
        write(tmp_path / kind)
        runs.append(str(tmp_path / kind))
    proc = run_python(AUDITS_IN_PROCESS, *runs, timeout=120)
    assert proc.returncode == 0, proc.stderr
    later = proc.stdout.split()
    assert not [m for m in later if m.startswith(("validator.harness", "re2"))], later


def test_an_audit_loads_the_check_rules_for_a_code_only_they_name():
    """--ignore LB601 (a check rule) is a valid selection for the audit too; a code no rule has is a usage
    error, whatever the rules loaded first."""
    run = "examples/lm-eval-output/example-org__tiny-model"
    assert "validator.check.rules" in loaded_by("audit", "-q", "--ignore", "LB601", run)
    command = [sys.executable, "-m", "validator", "audit", "-q"]
    kept = subprocess.run(
        [*command, "--ignore", "LB601", run], cwd=REPO, capture_output=True, timeout=60
    )
    assert kept.returncode == 0, kept.stderr
    wrong = subprocess.run(
        [*command, "--ignore", "LB999", run], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert wrong.returncode == 2 and "LB999 matches no rule" in wrong.stderr


def test_an_audit_of_a_results_file_in_no_format_is_lb202_in_a_fresh_process(tmp_path):
    """The rule the audit reports for a file with neither configs nor results is registered without the check's
    rules, which a fresh `lbnorm audit` does not load: LB202, not an internal error."""
    (tmp_path / "results_2025-01-01T00-00-00.json").write_text('{"foo": 1}')
    proc = subprocess.run(
        [sys.executable, "-m", "validator", "audit", "results_2025-01-01T00-00-00.json"],
        cwd=tmp_path,
        env=os.environ | {"PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "LB202 results-format [error]" in proc.stdout and "LB110" not in proc.stdout


@pytest.mark.parametrize("package", ["validator.audit.checks", "validator.check.rules"])
def test_a_package_s_modules_are_those_pkgutil_names(package):
    """The audit's checks and the check's rules register themselves as their modules are imported: every module
    of their folders, listed without pkgutil, which is left for an archive (zipimport)."""
    import importlib
    import pkgutil

    from validator.io.loaders import module_names

    path = importlib.import_module(package).__path__
    assert module_names(path) == sorted(module.name for module in pkgutil.iter_modules(path))
    assert len(module_names(path)) > 5


def test_a_package_in_an_archive_is_listed_by_pkgutil(tmp_path, monkeypatch):
    import importlib
    import zipfile

    from validator.io.loaders import module_names

    archive = tmp_path / "bundle.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        for name in ("__init__.py", "first.py", "second.py"):
            bundle.writestr(f"zipped_checks/{name}", "")
    monkeypatch.syspath_prepend(str(archive))
    package = importlib.import_module("zipped_checks")
    try:
        assert module_names(package.__path__) == ["first", "second"]
    finally:
        sys.modules.pop("zipped_checks", None)
