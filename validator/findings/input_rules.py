"""LB1xx rules reported while reading any file (submission, results file, profile or sample log), and LB202.

The readers in `io/` raise them as DocumentError; `check`, `audit` and
`normalize` turn them into findings. These entries are their ids and docs.
LB202 (a results file in no format lbnorm reads) is here too: the audit reports
it, and the audit never loads the check's rules.
"""

from __future__ import annotations

from .model import ERROR
from .registry import rule


@rule("LB100", "no-files", ERROR, runs=False)
def no_files(ctx):
    """A path or glob given to `check` matched no file.

    A check that finds nothing to check must not pass: fix the glob or the
    workflow's `files` input.
    """


@rule("LB101", "unreadable-file", ERROR, runs=False)
def unreadable_file(ctx):
    """A file cannot be read: missing, a directory or special file, outside the workspace, or not UTF-8.

    The message names the reason; for bad bytes it gives the byte offset.
    """


@rule("LB102", "syntax-error", ERROR, runs=False)
def syntax_error(ctx):
    """The file is not valid JSON or YAML; the finding carries the line and column of the error."""


@rule("LB103", "duplicate-key", ERROR, runs=False)
def duplicate_key(ctx):
    """An object has the same key twice, as written or as lbnorm reads it.

    Which value wins depends on the parser, so a reader and the leaderboard
    could see different numbers. Keep one. Keys spelled apart that mean one
    thing are the same key: `acc,none` and `acc` (or `acc,`) in one results
    entry are both acc under filter none; two lighteval keys of one task
    (`harness|arc:challenge|25` and `arc:challenge|25`); two entries that are
    one profile task under its name and an alias. The score would read one
    while the sample-log audit checks the other, so the file is refused.
    """


@rule("LB106", "file-too-large", ERROR, runs=False)
def file_too_large(ctx):
    """A file is larger than `--max-file-size` (default 64 MiB; Action input `max_file_size`).

    lm-eval 0.4 results files with their `configs` section run to a few MB;
    a much larger one is not read, so that a pull request cannot exhaust the
    runner's memory. Raise the limit if an honest file needs it. A sample
    log is LB106 too when it is larger than `--max-log-size` (4 GiB), holds
    more records or blank lines than `--max-log-records` (500,000), or has a
    record longer than `--max-file-size`; `survey` applies the same limits
    to local and remote files.
    """


@rule("LB107", "too-many-files", ERROR, runs=False)
def too_many_files(ctx):
    """The paths and globs match more than `--max-files` files (default 20,000; input `max_files`).

    Nothing is checked then: a partial check that passes would mislead.
    Narrow the globs to the files a pull request changes, or raise the limit
    for a deliberate re-audit of a whole leaderboard.
    """


@rule("LB108", "nesting-too-deep", ERROR, runs=False)
def nesting_too_deep(ctx):
    """Objects and arrays are nested deeper than `--max-depth` (default 64; input `max_depth`).

    Results files nest about ten levels deep; a deeper file is hostile or
    broken, and arbitrarily deep nesting would exhaust the parser's stack.
    A file's text is judged before it is parsed, and so is a sample-log
    record, unless a parser takes it safely: at most 500 `[` and `{` (inside
    strings too) in at most 65,536 characters, within `--max-values`. Such a
    record is judged by the value it parses into (where a key is repeated,
    by its last value, the one Python's json keeps).
    """


@rule("LB109", "value-too-long", ERROR, runs=False)
def value_too_long(ctx):
    """A string or key is longer than `--max-string-length`, or a number has over 4,300 digits.

    The default is 1,000,000 characters (Action input `max_string_length`).
    Such values would be echoed in findings and summaries and slow every
    later step; no honest results file needs them.
    """


@rule("LB112", "too-many-values", ERROR, runs=False)
def too_many_values(ctx):
    """A file (or one sample log record) holds more than `--max-values` values (default 1,000,000; input `max_values`).

    Numbers, strings, objects and arrays each count, and so does every value
    a YAML alias expands to. They are counted in one pass over the text before
    anything is built: three bytes of `{},` become 72 bytes of memory, so a
    64 MB file could otherwise take gigabytes. An lm-eval results file holds
    about 20,000 values.
    """


@rule("LB113", "not-for-check", ERROR, runs=False)
def not_for_check(ctx):
    """A file named to `check` that check does not take, so it was not checked.

    A sample log (`.jsonl`) is audited with the results file it belongs to:
    name that results file or its run folder in the same run (its logs are
    then audited and this finding goes away), run `lbnorm audit RESULTS_FILE
    LOG`, or list the log under `samples` in the submission. lbnorm's own
    files (its JSON report, a profile, a pre-commit or CI file) are inputs of
    other commands (`lbnorm profile check` for a profile). When a folder or
    glob meets these files, they are passed over without a finding.
    """


@rule("LB202", "results-format", ERROR, runs=False)
def results_format(ctx):
    """The results file (or embedded results object) is not in a format lbnorm reads.

    Accepted: lm-eval 0.4.x, lm-eval 0.3, lighteval / Open LLM Leaderboard v1.
    The message names the formats tried.
    """
