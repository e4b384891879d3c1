"""bench/survey_bench.py runs end to end on a tiny corpus (the numbers themselves live in docs/survey.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def test_the_audit_benchmark_measures_audit_and_floor(tmp_path):
    corpus, report = tmp_path / "corpus", tmp_path / "report.json"
    subprocess.run([sys.executable, str(BENCH / "survey_corpus.py"), str(corpus), "--runs", "1", "--mc-docs", "10",
                    "--drop-docs", "10"], check=True, capture_output=True, timeout=120)
    subprocess.run([sys.executable, str(BENCH / "survey_bench.py"), str(corpus), "--audit-only", "--repeat", "1",
                    "--json", str(report)], check=True, capture_output=True, timeout=120)
    result = json.loads(report.read_text(encoding="utf-8"))
    assert [row["logs"] for row in result["audit"]] == ["all logs", "multiple choice", "DROP"]
    assert all(row["audit_cpu_s"] > 0 and row["floor_cpu_s"] > 0 and row["MB"] > 0 for row in result["audit"])
    assert result["extrapolated"]["workers_for_one_hour"] >= 1
