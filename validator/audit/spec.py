"""What the results file says about one leaf task: its entry, config, sample counts and task hash."""

from collections import Counter
from collections.abc import Mapping
from math import ceil, isfinite
from typing import Any, NamedTuple, Self

from ..core.results import harness_version, sample_counts_evidence
from .metric_keys import EntryKeys, aggregation_of, entry_keys


class ProfileExpectations(NamedTuple):
    """What a maintainer's profile says of tasks, for their logs to prove: each task's num_choices (LB715) and
    the size of its split (LB718). Without a profile there is nothing to prove. (Read only: the empty defaults
    are shared.)"""

    choice_counts: Mapping[str, int] = {}
    split_sizes: Mapping[str, int] = {}
    doc_agreements: Mapping[str, tuple] = {}  # the fields of a doc that agree (LB726)

    @classmethod
    def of_profile(cls, profile: Any) -> Self:
        if profile is None:
            return cls()
        return cls(profile.choice_counts(), profile.split_sizes(), profile.doc_agreements())


NO_EXPECTATIONS = ProfileExpectations()  # no profile: nothing for the logs to prove


class TaskSpec:
    """A leaf task as the results file describes it (lm-eval 0.4.x keys, docs/reference/results-formats.md)."""

    name: str
    entry: dict
    config: dict
    n_effective: int | None
    n_original: int | None
    task_hash: str | None
    limit: Any  # the run's config.limit, as written (absent and null alike: no limit)
    # The n-samples values written for this task that are no count of documents (key, value); lm-eval writes len().
    malformed_counts: tuple[tuple[str, Any], ...]
    # With a fractional limit only (see scored_under_limit): the file's n-samples, and whether the file says
    # lm-eval 0.4.5 or later wrote it (lm_eval_version, written from 0.4.9 on).
    n_samples_table: dict | None
    per_task_fractions: bool
    # What the file writes of this task's run besides its config (MISSING when it writes nothing): n-shot.<task>
    # and versions.<task>, which lm-eval writes from the config in the same run.
    n_shot: Any
    listed_version: Any
    backend: Any  # config.model: the lm-eval model class the run names (hf, vllm, an API's)
    # How the run built its prompts besides the task's config (lm-eval >= 0.4.3 writes both; None: not used)
    system_instruction: Any
    chat_template: Any
    # Worked out as the spec is made (asked by a dozen checks as each log starts, ends, and for every record):
    keys: EntryKeys  # what the entry's key names say
    filters: list[str]  # see filters_of

    def __init__(
        self,
        name: str,
        entry: dict,
        config: dict,
        n_effective: int | None,
        n_original: int | None,
        task_hash: str | None,
        limit: Any = None,
        malformed_counts: tuple[tuple[str, Any], ...] = (),
        n_samples_table: dict | None = None,
        per_task_fractions: bool = False,
        n_shot: Any = None,
        listed_version: Any = None,
        backend: Any = None,
        system_instruction: Any = None,
        chat_template: Any = None,
    ) -> None:
        self.name, self.entry, self.config = name, entry, config
        self.n_effective, self.n_original, self.task_hash = n_effective, n_original, task_hash
        self.limit, self.malformed_counts = limit, malformed_counts
        self.n_samples_table, self.per_task_fractions = n_samples_table, per_task_fractions
        self.n_shot, self.listed_version, self.backend = n_shot, listed_version, backend
        self.system_instruction, self.chat_template = system_instruction, chat_template
        self.chat_template_claimed = chat_template not in (None, "")  # None, "" (0.4.5): none
        self.keys = entry_keys(entry)
        self.filters = filters_of(config, self.keys)
        self._aggregations: dict[str, str] = {}

    @classmethod
    def from_results(cls, data: dict, task: str) -> "TaskSpec":
        """The task as the parsed results file `data` describes it."""
        return _spec_from_results(data, task)

    def fractional_limit(self) -> bool:
        return _is_fraction(self.limit)

    def scored_under_limit(self, split: int | None = None) -> tuple[int, ...] | None:
        """The document counts lm-eval can write as n-samples.effective for this task's split (n-samples.original,
        or `split`) under the run's config.limit; None without a split.

        lm-eval (0.4.3 and later) scores min(limit, split) documents: the whole split without a limit (a limit
        of 0 is none), int(limit) for a limit of 1 or more (the command line gives 10.0). A fraction f gives
        ceil(split * f) from 0.4.5 on; 0.4.3 and 0.4.4 gave every task the first task's L = ceil(split_1 * f),
        so min(L, split) is allowed too for the L that explains the most tasks of the file (shared_limits),
        unless the file says it comes from 0.4.5 or later. Anything else (a string, true, a negative) lm-eval never writes, and is no
        limit.
        """
        return _scored_under_limit(self, split)

    @property
    def output_type(self) -> Any:
        return self.config.get("output_type")

    @property
    def target_delimiter(self) -> str:
        value = self.config.get("target_delimiter", " ")
        return value if isinstance(value, str) else " "

    @property
    def choice_delimiters(self) -> tuple[str, ...]:
        """What lm-eval may have put before each choice's continuation: the config's target_delimiter, and under
        a chat template none too (construct_requests: 0.4.7 to 0.4.9 always, 0.4.10 on unless a gen_prefix ends
        without whitespace; 0.4.3 to 0.4.6 keep it). Either way the choice's own text follows."""
        if not self.chat_template_claimed or self.target_delimiter == "":
            return (self.target_delimiter,)
        return (self.target_delimiter, "")

    @property
    def declared_shots(self) -> int | None:
        """The few-shot count the file declares: configs.<task>.num_fewshot, or n-shot.<task> where that is null
        (lm-eval 0.4.0 and 0.4.1 write null; n-shot is written from the same setting); None if neither is a count."""
        shots = _count(self.config.get("num_fewshot"))
        return _count(self.n_shot) if shots is None else shots

    @property
    def until(self) -> list[str] | None:
        kwargs = self.config.get("generation_kwargs")
        until = kwargs.get("until") if isinstance(kwargs, dict) else None
        if isinstance(until, str):
            return [until]
        return until if isinstance(until, list) and all(isinstance(u, str) for u in until) else None

    def filter_steps(self, name: str) -> Any:
        """The steps of the config's filter_list entry of that name (as written), or None. The last of a name, as
        lm-eval's last ensemble of a name writes filtered_resps[name] after the others (api/filter.py)."""
        return next(
            (
                entry.get("filter")
                for entry in reversed(_list(self.config.get("filter_list")))
                if isinstance(entry, dict) and entry.get("name") == name
            ),
            None,
        )

    def metric_keys(self) -> tuple[str, ...]:
        """Every key of the entry the score could read as a metric, as written ("acc,none", or "acc" alone, which
        the readers take as filter none): the audit accounts for each (see metric_key_parts)."""
        return self.keys.metric_keys

    @property
    def metric_parts(self) -> tuple[tuple[str, tuple[str, str]], ...]:
        return self.keys.metric_parts

    @property
    def reported_metrics(self) -> frozenset[str]:
        return self.keys.metric_names

    @property
    def reported_filters(self) -> frozenset[str]:
        return self.keys.filter_names

    def stderr_key(self, metric: str, flt: str) -> str | None:
        """The entry's key of the metric's standard error, however it is spelled; None when it has none."""
        return self.keys.stderr_keys.get((metric + "_stderr", flt))

    def aggregation(self, metric: str) -> str:
        """See aggregation_of; asked a few times per metric as each log starts and finishes."""
        known = self._aggregations.get(metric)
        if known is None:
            known = self._aggregations[metric] = aggregation_of(self.config, metric)
        return known


def filters_of(config: dict, keys: EntryKeys) -> list[str]:
    """The task's filters: the config's filter_list names, else the filters its results are reported under."""
    written = [f.get("name") for f in _list(config.get("filter_list")) if isinstance(f, dict)]
    names = list(
        dict.fromkeys(n for n in written if isinstance(n, str))
    )  # a name twice is one filter_resps key
    if not names:
        names = sorted(keys.filter_names)
    return names or ["none"]


def _spec_from_results(data: dict, task: str) -> TaskSpec:
    def table(key: str) -> dict:
        value = data.get(key)
        return value if isinstance(value, dict) else {}

    written = table("n-samples").get(task)
    counts = written if isinstance(written, dict) else {}
    task_hash = table("task_hashes").get(task)
    entry, config = table("results").get(task), table("configs").get(task)
    limit = table("config").get("limit")
    n_samples, per_task = None, False
    if _is_fraction(limit):
        n_samples = table("n-samples")
        # A file of more tasks than any harness run has is held to 0.4.5's rule: each task its own ceil.
        per_task = (
            harness_version(data.get("lm_eval_version")) >= (0, 4, 5)
            or len(n_samples) > MAX_SHARED_TASKS
        )
    # lm-eval 0.4.3 on writes an entry for every task, and task_hashes with it (0.4.9 on says its version too):
    # in such a file a task without one had its counts taken away, and the end of its log is unchecked.
    counted = (
        sample_counts_evidence(
            data.get("n-samples"), data.get("task_hashes"), data.get("lm_eval_version")
        )
        is not None
    )
    return TaskSpec(
        task,
        entry if isinstance(entry, dict) else {},
        config if isinstance(config, dict) else {},
        _count(counts.get("effective")),
        _count(counts.get("original")),
        task_hash if isinstance(task_hash, str) and task_hash else None,
        limit,
        _malformed_counts(written, counted),
        n_samples,
        per_task,
        table("n-shot").get(task, MISSING),
        table("versions").get(task, MISSING),
        table("config").get("model"),
        data.get("system_instruction"),
        data.get("chat_template"),
    )


def _scored_under_limit(spec: TaskSpec, split: int | None) -> tuple[int, ...] | None:
    split, limit = split if split is not None else spec.n_original, spec.limit
    if split is None:
        return None
    if not _positive_number(limit):
        return (split,)
    if limit >= 1:
        return (min(int(limit), split),)
    own = _ceil_fraction(split, limit)
    if spec.per_task_fractions or spec.n_samples_table is None or own == spec.n_effective:
        return (own,)
    shared = {min(first, split) for first in shared_limits(spec.n_samples_table, limit)}
    return tuple(
        sorted({own} | (shared if len(shared) == 1 else set()))
    )  # a tie names no task: all suspect


def _list(value: Any) -> list:
    """A config list as written, or [] when the submitter wrote another type (5, "x", an object)."""
    return value if isinstance(value, list) else []


MISSING = type(
    "Missing", (), {"__repr__": lambda self: "missing"}
)()  # a count key the entry does not have
MAX_SHARED_TASKS = (
    10_000  # n-samples entries weighed together under a fractional limit (MMLU has 57)
)
MAX_SHARED_CANDIDATES = (
    16  # the commonest counts tried as 0.4.3's shared limit (an honest file has one)
)


_LAST_SHARED: list = [
    None,
    None,
    frozenset(),
]  # (n-samples table, fraction, its shared limits): one file's logs in a row


def shared_limits(n_samples: dict, fraction: float) -> frozenset[int]:
    """The L = ceil(split_1 * f) of lm-eval 0.4.3 and 0.4.4 that explains the most tasks' counts as
    min(L, split) (every task's, in an honest file): a task scored fewer than its split says its L outright,
    and with none, any L as large as every split. The most, not all: one task's edited count must not make
    every other task of the file unexplained. Worked out once per file, not once per log."""
    if _LAST_SHARED[0] is n_samples and _LAST_SHARED[1] == fraction:
        return _LAST_SHARED[2]
    pairs = _count_pairs(n_samples)
    firsts = {_ceil_fraction(original, fraction) for original, _ in pairs}
    cuts = Counter(effective for original, effective in pairs if effective < original)
    if not cuts:
        largest = max((original for original, _ in pairs), default=0)
        found = frozenset(first for first in firsts if first >= largest)
    else:
        explained = {
            first: sum(effective == min(first, original) for original, effective in pairs)
            for first, _ in cuts.most_common(MAX_SHARED_CANDIDATES)
            if first in firsts
        }
        best = max(explained.values(), default=0)
        found = frozenset(first for first, count in explained.items() if count == best and best > 0)
    _LAST_SHARED[:] = [n_samples, fraction, found]
    return found


def _count_pairs(n_samples: dict) -> tuple[tuple[int, int], ...]:
    """Every task's (original, effective) that are both counts."""
    pairs = []
    for counts in n_samples.values():
        if isinstance(counts, dict):
            original, effective = _count(counts.get("original")), _count(counts.get("effective"))
            if original is not None and effective is not None:
                pairs.append((original, effective))
    return tuple(pairs)


def _malformed_counts(written: Any, counted: bool) -> tuple[tuple[str, Any], ...]:
    """A task's n-samples values that are no count, as (key, value); ("", entry) for an entry that is no object
    of counts, or none (null or missing) in a file whose lm-eval writes them (`counted`); () for a file of lm-eval
    before 0.4.3, which wrote none. lm-eval writes both counts with len()."""
    if written is None:
        return (("", MISSING),) if counted else ()
    if not isinstance(written, dict) or not written:
        return (("", written),)
    return tuple(
        (key, written.get(key, MISSING))
        for key in ("original", "effective")
        if _count(written.get(key)) is None
    )


def _ceil_fraction(split: int, fraction: float) -> int:
    """min(ceil(split * fraction), split), as lm-eval's get_sample_size; a split of more documents than a float
    holds exactly is no split (LB718 and check's LB506 say so), and is left whole rather than overflow."""
    return min(ceil(split * fraction), split) if split <= 1 << 53 else split


def _is_fraction(limit: Any) -> bool:
    return _positive_number(limit) and limit < 1


def _positive_number(value: Any) -> bool:
    """A number above 0 (an integer of 400 digits too: isfinite would raise on it)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return value > 0 and (isinstance(value, int) or isfinite(value))


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None
