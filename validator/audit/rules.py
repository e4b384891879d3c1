"""Sample-log rules (LB7xx): the per-sample logs behind a results file.

They run in `python -m validator audit RESULTS [SAMPLES...]`, and in `check`
for a submission that lists its logs under `samples`. The audit streams each
log once (audit.py); these entries are the rules' documentation and ids.
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


@rule("LB703", "sample-hash-mismatch", ERROR, runs=False)
def sample_hash_mismatch(ctx):
    """A sample's doc_hash, prompt_hash or target_hash is not the hash of what the sample holds.

    lm-eval >= 0.4.3 logs sha256 of json.dumps(doc, indent=2,
    ensure_ascii=False), of the first request's prompt and of str(target). A
    mismatch means the document, prompt or target was edited after the run.
    """


@rule("LB704", "task-hash-mismatch", ERROR, runs=False)
def task_hash_mismatch(ctx):
    """The results file's task_hashes entry is not the hash of the log's samples, in file order.

    task_hashes[task] is sha256 of every sample's doc_hash + prompt_hash +
    target_hash concatenated. A mismatch means the log is not the one the
    results were written with: samples added, removed, reordered or edited.
    """


@rule("LB705", "sample-coverage", ERROR, runs=False)
def sample_coverage(ctx):
    """The samples of a filter do not cover doc_id 0..N-1 exactly once (N = n-samples.effective).

    Reports doc_ids logged twice, doc_ids outside the split, and how many
    documents have no sample. Logs from several ranks are not sorted; the
    check does not depend on order. Without n-samples (lm-eval before 0.4.3
    wrote none) N is unknown, but lm-eval still logs doc_ids 0, 1, 2, ...:
    a doc_id below the highest one logged with no sample is reported, at the
    line of that highest doc_id.
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


@rule("LB709", "aggregate-mismatch", ERROR, runs=False)
def aggregate_mismatch(ctx):
    """A task's metric in the results file is not the aggregate of its logged samples.

    Means are sum/len in log order, as the harness computes them; IFEval's
    instruction-level metrics flatten the per-prompt lists first. Where the
    samples can be recomputed (multiple choice, DROP), the recomputed mean is
    compared too, and the message names the first doc_id that differs.
    A mean's standard error must be lm-eval's mean_stderr of the same
    values (their sample standard deviation over sqrt(n)); "N/A" is left
    alone. Tolerance 1e-9: exact up to the summation order of multi-rank runs.
    A task whose config and sample log the file holds but which has no
    results entry is this rule too: lm-eval reports every task it runs (and
    pools it into its groups), so its numbers were taken out.
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


@rule("LB715", "choice-count-evidence", ERROR, runs=False)
def choice_count_evidence(ctx):
    """The profile's num_choices is not the number of choices the sample log scored per doc.

    A multiple-choice task makes one log-likelihood request per choice, so a
    log proves how many choices each doc had. The profile's count (the
    baseline 1/num_choices) must be the largest of them: BBH object_counting
    scores 19 choices although its documentation says "should be 18", and
    1/18 shifts BBH. Runs in `check` for submissions that list their logs;
    fix the profile, or run the task the leaderboard runs.
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
    evaluate), and IFEval's levels past the bounds of its checkers' replay.
    All are the submitter's, so none may leave a number unaudited in
    silence. A leaderboard whose tasks aggregate otherwise (a perplexity, a
    corpus BLEU) lists this rule under `warn` or `ignore` in its configuration.
    """


@rule("LB717", "sample-count-unexplained", ERROR, runs=False)
def sample_count_unexplained(ctx):
    """n-samples.effective is not the number of documents the run's `config.limit` lets lm-eval score.

    lm-eval (0.4.3 and later) scores min(limit, split) documents of each
    task, and the whole split without a limit. A smaller count with no limit
    to explain it is the signature of documents dropped from the end of a
    log with the count, the aggregates and the task hash edited to match:
    every other check agrees with such a log. An honest `--limit` run is not
    this rule's (`check` reports it as LB501 and LB502); a run of chosen
    documents (`--samples`: lm-eval 0.4.12 and later write how many, which is
    this rule's; 0.4.9 to 0.4.11 write the whole split, which is LB705's and
    LB706's) is, and no leaderboard takes one.
    """


@rule("LB718", "split-size-evidence", ERROR, runs=False)
def split_size_evidence(ctx):
    """With a profile, a logged task's n-samples.original is not the size of the split the leaderboard scores.

    A log shortened with both n-samples counts, its aggregates and its task
    hash edited agrees with itself and with every count; only the split's
    size, which the profile gives (`n`), tells. Without n-samples (lm-eval
    before 0.4.3) the log itself is held to that size, or to an integer
    `config.limit` below it (LB705, LB706); those versions rounded a
    fractional limit their own way, so it leaves only coverage's holes.
    Runs only with a profile: the check's, or the one given to
    `lbnorm audit` or `lbnorm survey`.
    """


@rule("LB719", "filtered-response-mismatch", ERROR, runs=False)
def filtered_response_mismatch(ctx):
    """A sample's filtered_resps is not what its filter makes of its resps.

    lm-eval's default filter, `none`, takes each request's first response:
    filtered_resps[i] is resps[i][0]. A regex filter followed by take_first
    with a pattern the harness ships (GSM8K's and GSM8K-CoT's strict-match,
    flexible-extract) is re-applied the same way, and so is a filter of any
    name whose pipeline is take_first alone; other pipelines are not.
    Every score is computed from filtered_resps, so one edited there changes
    the score while resps still holds what the model answered.
    """


@rule("LB720", "response-past-stop", ERROR, runs=False)
def response_past_stop(ctx):
    """A logged generation holds one of its request's stop sequences (`until`).

    lm-eval cuts every generation at the first occurrence of any stop
    sequence, so no logged response holds one. One that does was edited, or
    its stop sequences were (a DROP run's '.' stop rewritten to hide the
    deep dive's decimal cuts), or the backend ignored them; in every case the
    scores are not the task's. lm-eval's chat-API models send at most four
    stops (none to some model names) and do not cut the reply, so an honest
    API run can hold one: the message says so, and a leaderboard that takes
    such runs lists this rule under `warn` or `ignore` (a submitter's
    `config.model` cannot soften it). A request that logs no stops is held
    to the config's `generation_kwargs.until`; one of more than 64 stops is
    LB702.
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
    templates and chat APIs' messages are noted. A config edited together
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
    eval doc itself drops it); so is a prompt whose examples end in fewer
    `fewshot_delimiter`s than the count less one (25 declared, 1 held), or
    that holds another number of the examples its `fewshot_config` lists.
    Under a chat template the examples are what comes before the doc's own
    text with the closing words of `doc_to_text` ("Answer:"), the system
    instruction and description taken out; only 0 against more than 0 is
    told, not 5 against 3.
    """


@rule("LB724", "math-answer-unexplained", ERROR, runs=False)
def math_answer_unexplained(ctx):
    """A leaderboard MATH doc's `answer` is not what lm-eval's process_docs takes from the doc's `solution`.

    The leaderboard's MATH tasks (lm_eval/tasks/leaderboard/math, 0.4.9 to
    0.4.13) build each doc's answer as
    remove_boxed(last_boxed_only_string(solution)) and score generations
    against it, so a wrong answer made right by rewriting `answer` (and
    `target`), with every score and hash redone, still contradicts its own
    solution. Checked when the task's config carries that process_docs; a
    doc without its solution or answer is reported too. The functions are
    ported with their quirks and held to the harness's output on 420 cases.
    """


@rule("LB725", "doc-logged-twice", ERROR, runs=False)
def doc_logged_twice(ctx):
    """The same doc, with its dataset's own row id, is logged under two doc_ids.

    lm-eval logs each row of the split once (once per filter) under its own
    doc_id. A sample that scored badly, replaced by a copy of one that scored
    well under the bad one's doc_id, with aggregates and the task hash
    redone, leaves every doc_id present and every number consistent: only
    the doc repeats. A repeat (by its logged doc_hash) is reported when the
    doc carries a row id its dataset does not repeat (`key`, `query_id`,
    `id`, `ind`, `question_id`, `Record ID`, `idx`, `task_id`); other
    repeats are counted in a note. A copy edited, its hash redone, is
    matched by the value of its row id: more than two docs per log sharing
    one with another doc_id are reported (EleutherAI/drop holds one query_id
    twice). Logs without doc_hash (lm-eval < 0.4.3) are not checked.
    """


def load_audit_rules() -> None:
    """Every LB7xx rule is registered once this module is imported."""
