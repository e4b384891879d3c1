"""Each run surveyed once: sources given twice, runs listed twice, and results files reached by two names.

A run surveyed twice would count its findings twice, and two runs of one
name could not be told apart. What the maintainer typed twice (a source, an
overlapping source, a manifest entry) is theirs to fix: a SourceError, a
usage error. A tree holding one results file under two names (a symbolic or
hard link) is its submitters': the repeat becomes a row of its own saying
so, and every other run is still surveyed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace

from .layout import Run
from .stores import FileRef, SourceError, is_local, local_path


def refuse_repeated_sources(sources: list[str]) -> None:
    """One source given twice ('runs runs', 'runs ./runs/') is a typo to name, not a tree whose every run is a
    link to itself: read twice, each of its runs became a 'duplicate run' row of itself and none was audited."""
    given: dict[str, str] = {}
    for source in sources:
        spelled = source.rstrip("/") or "/"
        same = os.path.abspath(local_path(spelled)) if is_local(spelled) else spelled
        if same in given:
            raise SourceError(
                f"{source}: given twice (also as {given[same]}); give each source once"
            )
        given[same] = source


@dataclass
class Runs:
    """The runs planned so far by name, each results file once; `add` decides what a repeat is."""

    by_name: dict[str, Run] = field(default_factory=dict)
    source: dict[str, str] = field(default_factory=dict)  # file identity -> the source that gave it
    path: dict[str, str] = field(
        default_factory=dict
    )  # file identity -> the path it was reached by
    run: dict[str, str] = field(
        default_factory=dict
    )  # file identity -> the name of the run surveyed
    name_source: dict[str, str] = field(default_factory=dict)  # run name -> the source that gave it

    def add(self, run: Run, source: str, manifest: bool) -> None:
        """Plan the run, or make it (or the run it repeats) a 'duplicate run' stand-in; SourceError for what
        the maintainer gave twice. `manifest`: the source is a manifest, whose entries are the maintainer's."""
        identity = file_identity(run.results.location)
        twin = self._twin(run, identity, source, manifest)
        if twin is None:
            self.by_name[run.run] = run
            return
        original = self.by_name[twin]
        if _surveyed_first(run, original):
            self.by_name[twin], self.by_name[run.run] = duplicate(original, run.run), run
            self.run[identity] = run.run
        else:
            self.by_name[run.run] = duplicate(run, twin)

    def _twin(self, run: Run, identity: str, source: str, manifest: bool) -> str | None:
        """The name of the run whose results file this one's is, if the tree holds it twice."""
        path = (
            os.path.abspath(run.results.location)
            if is_local(run.results.location)
            else run.results.location
        )
        first = self.source.get(identity)
        # Within one tree, or reached through another path (a link planted in one source to another's file).
        if first is not None and (
            first == source and not manifest or first != source and self.path[identity] != path
        ):
            return self.run[identity]
        if first is not None:
            where = "listed twice in it" if first == source else f"also reached through {first}"
            raise SourceError(
                f"{source}: the results file {run.run} is {where}; give each run once (a "
                "manifest can list every run, with published scores for some)"
            )
        if run.run in self.by_name:
            raise SourceError(
                f"two sources hold a run named {run.run} ({self.name_source[run.run]} and "
                f"{source}); survey them separately, or list both in one manifest under names "
                "that differ"
            )
        self.source[identity], self.path[identity], self.run[identity] = source, path, run.run
        self.name_source[run.run] = source
        return None


def _surveyed_first(run: Run, original: Run) -> bool:
    """Whether `run`, not the `original` met first, is the one surveyed: a symbolic link is the repeat of the
    file it points to; between two real names (hard links) the first by name, so the table does not depend on
    the order of SOURCES."""
    if is_link(original.results) != is_link(run.results):
        return is_link(original.results)
    return run.run < original.run


def is_link(ref: FileRef) -> bool:
    return is_local(ref.location) and os.path.islink(local_path(ref.location))


def duplicate(run: Run, twin: str) -> Run:
    """A stand-in for a run whose results file is another run's (FileRef.problem: one row says so)."""
    logs = f"; its {len(run.logs):,} logs are not audited" if run.logs else ""
    problem = (
        f"the results file is the same file as {twin} (a link, or a copy by hard link){logs}; a run is "
        "surveyed once: give each run a results file of its own"
    )
    return replace(run, results=replace(run.results, problem=problem), logs=())


def file_identity(location: str) -> str:
    """The same file, however it is reached: device and inode locally (symlinks, hard links, ./ and ..),
    the URL itself remotely (two spellings of one host are not told apart)."""
    if not is_local(location):
        return location
    try:
        info = os.stat(local_path(location))
    except OSError:
        return os.path.realpath(local_path(location))
    return f"{info.st_dev}:{info.st_ino}"
