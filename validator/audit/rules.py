"""Sample-log rules (LB7xx) that belong to no single audit check.

The audit's own (a log missing or unreadable, a sample malformed, a task
without its log, a number not audited) and those several checks report. A rule
one check reports is declared in that check's module, beside its code;
load_audit_rules registers both kinds. The audit runs in `lbnorm audit` and in
`check` for a submission that lists its logs under `samples`.
"""

from __future__ import annotations

from ..findings import ERROR, WARNING
from ..findings.registry import rule


@rule("LB700", "samples-missing", ERROR, runs=False)
def samples_missing(ctx):
    """A sample log is named but cannot be used, or none belongs to the results file.

    A submission's `samples` entry must be a path inside the repository; a
    log name must say its task (`samples_<task>_<date>.jsonl`, or the 0.4.0-0.4.2
    `<model args>_<task>.jsonl`) and the task must be in the results file.
    Two logs for one task are refused rather than guessed between. In a
    survey, a `samples_*.jsonl` that no results file of its folder claims (none
    of its date) is LB700 too: it is not audited, and must not pass unseen.
    """


@rule("LB701", "sample-log-syntax", ERROR, runs=False)
def sample_log_syntax(ctx):
    """A line of a sample log (or an element of a legacy JSON-array log) is not a JSON object.

    The harness writes one JSON object per line, UTF-8, NaN allowed. A
    truncated log (cut-off upload, full disk) shows up here with its line.
    """


@rule("LB702", "sample-record-shape", ERROR, runs=False)
def sample_record_shape(ctx):
    """A sample lacks a field the audit needs, or has it with the wrong type.

    Needed: `doc_id` (a non-negative integer), `doc`, `target`, `arguments`,
    `resps` (each request's responses, which every lm-eval 0.4 logs beside
    `filtered_resps`), and the per-sample metric values; the hashes too when
    the results file has `task_hashes`. The sample is skipped; the others are
    still audited. (A DROP doc of lm-eval's DROP config also keeps the
    dataset's `answer` and `validated_answers`: LB721.)
    """


@rule("LB706", "sample-count", ERROR, runs=False)
def sample_count(ctx):
    """A filter's number of samples is not n-samples.effective of the results file.

    Points at the `n-samples` entry of the results file; the message names the log.
    Every filter named, reported or logged is counted. No count is this rule
    too in a file or log of lm-eval 0.4.3 or later (`task_hashes`, a version,
    other counts; per-sample hashes, a `samples_<task>_<date>.jsonl` name).
    """


@rule("LB707", "sample-log-task", WARNING, runs=False)
def sample_log_task(ctx):
    """A task has no sample log while other tasks of the same run have one.

    A submission that ships logs usually ships one per leaf task; a missing
    one leaves that task's numbers unaudited. The rule fires only for a
    partly logged run: a run with no log at all is never LB707 (`check`
    reports nothing for it, `audit` and `survey` report LB700). A warning in
    `check` and `audit`, where logs are evidence a submitter may add;
    `--error LB707` fails a partly logged run, but it does not require logs,
    and no setting does. An error in
    `survey`, which exists to audit every number; there a task the results
    table names without a config (and not as a group) is a task too, so
    deleting its config does not hide it.
    """


@rule("LB708", "sample-score-mismatch", ERROR, runs=False)
def sample_score_mismatch(ctx):
    """A sample's logged metric is not what its own fields give.

    Multiple choice: acc and acc_norm are recomputed from the logged
    log-likelihoods (acc_norm divides by the character length of the choice
    without the target delimiter); TruthfulQA mc2's acc is the share of the
    choices' probability its true answers hold (doc.mc2_targets.labels), and
    Winogrande's gold is what its doc's `answer` gives. DROP-style tasks (em
    and f1 with doc.answers; any sample of lm-eval's DROP logging either): EM
    and F1 recomputed as the harness does, gold from doc["answers"], never
    `target`. GSM8K's exact_match is recomputed from filtered_resps[0] and
    `target` with the config's options, when they are the harness's own
    patterns; IFEval's outcomes by its checkers, where they decide alone
    (docs/audit.md). Tolerance 1e-9.
    """


@rule("LB710", "drop-glued-number", WARNING, runs=False)
def drop_glued_number(ctx):
    """DROP deep dive, W: predictions with a number glued to text by a newline or tab.

    The harness splits tokens only on spaces and hyphens, so in
    "10\\n\\nPassage:" the 10 is never normalized to 10.0 and cannot match a
    gold 10. Reported with the rate, how many of them lost a gold number, and
    the score with whitespace made spaces (diagnostic only).
    """


@rule("LB711", "drop-decimal-cut", WARNING, runs=False)
def drop_decimal_cut(ctx):
    """DROP deep dive, D: predictions cut at the '.' stop sequence inside a decimal gold answer.

    Under until ["."] a model writing 12.25 is logged as 12. Flagged when the
    prediction ends with the integer part of a decimal gold. No rescoring
    can repair these without re-running generation; the message also counts
    D', predictions ending in a digit that were possibly cut. A decimal
    written in full (1.1) was not cut: it ran past the stop, which is LB720.
    """


@rule("LB712", "drop-long-answer", WARNING, runs=False)
def drop_long_answer(ctx):
    """DROP deep dive, L: predictions that contain a gold answer but lose F1 to extra words.

    Typical of models that continue with "\\n\\nPassage: ..." until the first
    '.'. Reported with the rate, the mean F1 lost, and the score with
    generations split at the first newline, as the blog did. Against a
    multi-span gold whose every span the prediction holds, the extra words
    are those beyond all the spans (besides "and", "or"): the harness scores
    a prediction as one span, so "X and Y" cannot pass 1/spans anyway.
    """


@rule("LB713", "drop-dot-stop", WARNING, runs=False)
def drop_dot_stop(ctx):
    """The stop sequences include '.' for a task whose gold answers include decimals, and they cut one.

    Read from configs[task].generation_kwargs.until (and the samples'
    own requests). Every decimal answer is cut at its point, so no model can
    score on those questions. Reported at the config when the log shows
    it: at least one prediction is the integer part of a decimal gold
    (LB711). A run whose predictions never reach a decimal lost nothing to
    the stop, so it is not flagged, though its config is the same.
    """


@rule("LB714", "stop-sequence-mismatch", WARNING, runs=False)
def stop_sequence_mismatch(ctx):
    """The samples were generated with other stop sequences than the results file's config says.

    A task run with a different `until` is a different task variant and
    cannot be compared with results of the standard one. Also reported for
    a config that carries the leaderboard MATH's `process_docs` without its
    task's stop, "Problem:" (removed from the config and every request
    alike, nothing else would show it).
    """


@rule("LB716", "aggregate-not-audited", ERROR, runs=False)
def aggregate_not_audited(ctx):
    """A metric the results file reports for a logged task could not be re-derived from its log.

    Its samples log no value for it, its `metric_list` names an aggregation
    the audit does not compute (it computes the mean, and IFEval's flattened
    mean), or the reported value is not a number. So is a metric scored by
    the config's own `process_results` (but TruthfulQA mc2's acc and the
    leaderboard MATH's), a `multiple_input` layout of docs not Winogrande's,
    exact_match options lbnorm does not run, a filter it does not replay, or
    a gold that is the sample's own `target` (a `doc_to_target` it does not
    evaluate; a Python function, which no log replays: write it as a
    template of the doc's fields, or keep this rule a warning for the task),
    a pattern RE2 cannot run as Python's `re` does (a back-reference, a
    look-around: the message names it), and IFEval's levels past the bounds
    of its checkers' replay.
    All are the submitter's, so none may leave a number unaudited in
    silence. A leaderboard whose tasks aggregate otherwise (a perplexity, a
    corpus BLEU) lists this rule under `warn` or `ignore` in its configuration.
    """


@rule("LB721", "drop-answers-unexplained", ERROR, runs=False)
def drop_answers_unexplained(ctx):
    """A DROP doc's gold answers (`doc.answers`) are not what its own answer fields give.

    lm-eval's DROP task builds `answers` from the dataset's `answer` and
    `validated_answers` (process_docs, get_answers: each parsed to its
    number, spans or date, duplicates dropped), and the log keeps all three.
    A doc of lm-eval's DROP (its config, or the task name `drop`) without
    `answers` is this rule, and its sample is scored against what those
    fields give.
    Golds edited to a model's predictions, with the doc hash recomputed,
    rescore every sample as right; the answer fields still say otherwise.
    A doc without those fields is this rule too when other docs of its log
    hold them, or when the config is lm-eval's DROP (its `process_docs`
    builds answers from them, or its `dataset_path` is DROP's). A log of
    another dataset, none of whose docs hold them, is scored against
    `doc.answers` as written.
    """


@rule("LB722", "doc-template-mismatch", ERROR, runs=False)
def doc_template_mismatch(ctx):
    """A sample's target, prompt, or a choice's continuation, is not what the task's config makes of its doc.

    lm-eval logs the doc beside what it built from it: `target` is the
    config's `doc_to_target` applied to the doc, each multiple-choice
    request continues with `target_delimiter` + a choice of `doc_to_choice`,
    and (without a chat template) every prompt starts with the system
    instruction and description and ends with `doc_to_text` of the doc;
    under a chat template, every prompt contains that text.
    A target moved to the model's pick, a gold choice's text lengthened until
    acc_norm prefers it, a choice taken out, or a doc or prompt rewritten,
    agrees with every score and hash recomputed after the edit; the doc
    still says otherwise (and a first_n `fewshot_config.samples` list says
    what examples a prompt holds). Only the template shapes the leaderboards'
    tasks use are evaluated (a field name, `{{ a.b }}`, `{{ a.b|int }}`,
    `{{ a.b.index(c) }}`, `{{ a.split(s)[i].strip() }}`, text around
    `{{ a[0].strip() }}` or `{{ a|trim }}` blocks, a literal); others, chat
    templates and chat APIs' messages are noted. A template naming what a
    doc lacks is reported too: lm-eval's templates fail on an undefined
    name, so no run was made with that config. A config edited together
    with the docs is another task, which only a profile can name.
    """


@rule("LB723", "run-config-conflict", ERROR, runs=False)
def run_config_conflict(ctx):
    """A logged task's `n-shot` or `versions` entry, or its prompts, disagree with its config in the same file.

    lm-eval writes `n-shot.<task>` from `configs.<task>.num_fewshot` (0.4.3
    to 0.4.9: `metadata.num_fewshot` when that is 0) and `versions.<task>`
    from `configs.<task>.metadata.version`, in the same run. The few-shot
    count and the version are what leaderboards gate on, and `check` reads
    them from `n-shot` and `versions`; a file where the two places differ
    was edited. (`check` reports a version's conflict for a profile's tasks
    as LB508 too.) lm-eval 0.4.0 wrote "Yaml" in `versions` for every task
    made from a YAML config, whatever its metadata: that is no conflict.
    The prompts show the count too: without a chat template, text between
    the description and the doc's own text (`doc_to_text`) is the examples,
    so a prompt holding some under a count of 0 is reported at the first
    such sample of the log, and ten or more prompts holding none under a
    count above 0 at the first of them (one may: a sampler that draws the
    eval doc itself drops it; whitespace alone, such as the blank line that
    ends MMLU's description, is no example, and neither is text without the
    closing words of `doc_to_text`, such as MMLU's "Answer:", which every
    example holds); so is a prompt whose examples end in fewer
    `fewshot_delimiter`s, or hold those closing words fewer times, than the
    count less one (25 declared, 1 held), or that holds another number of
    the examples its `fewshot_config` lists. Under a chat template the
    examples are what comes before the doc's own text with those closing
    words, the system instruction and description taken out; only 0
    against more than 0 is told there, unless a prompt shows no markup at
    all: it is then held to the plain rules, its closing words counted.
    """


def load_audit_rules() -> None:
    """Register every LB7xx rule: these, and each audit check's own (declared beside its code)."""
    from .checks import check_classes

    check_classes()
