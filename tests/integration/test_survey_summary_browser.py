"""summary.html in a real browser: headless Chromium opens a survey's summary, and the test reads the page and
works it through the DevTools protocol (clicks a header to sort, types in a filter), as a maintainer would.

Skipped, with the reason, when no Chromium is installed (.ci/run installs it where it can).
"""

from __future__ import annotations

import asyncio
import itertools
import json
import shutil
import subprocess
import time

import pytest

aiohttp = pytest.importorskip(
    "aiohttp", reason="the DevTools client is aiohttp's (the `remote` extra)"
)

from support.survey_corpus import MANIFEST, make_corpus  # noqa: E402

from validator.survey.engine import survey  # noqa: E402
from validator.survey.local_pool import LocalPool  # noqa: E402
from validator.survey.summary import write_summaries  # noqa: E402
from validator.survey.summary_html import natural_key  # noqa: E402
from validator.survey.work import Settings  # noqa: E402

BROWSER = next(
    (
        found
        for name in ("chromium", "chromium-browser", "google-chrome")
        if (found := shutil.which(name))
    ),
    None,
)
pytestmark = pytest.mark.skipif(
    BROWSER is None, reason="no Chromium on this machine: apt-get install -y chromium"
)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--remote-debugging-port=0",
)


class Page:
    """One tab of a headless Chromium, driven through the DevTools protocol."""

    def __init__(self, socket):
        self.socket, self.ids = socket, itertools.count(1)

    async def run(self, expression: str):
        number = next(self.ids)
        await self.socket.send_json(
            {
                "id": number,
                "method": "Runtime.evaluate",
                "params": {"expression": expression, "returnByValue": True, "awaitPromise": True},
            }
        )
        while True:
            answer = await self.socket.receive_json(timeout=30)
            if answer.get("id") == number:
                result = answer["result"]
                assert "exceptionDetails" not in result, result
                return result["result"].get("value")


def browse(url: str, profile, script):
    """Open `url` in a fresh headless Chromium (its own user data folder), run `script(page)`, close it."""
    process = subprocess.Popen(
        [BROWSER, *FLAGS, f"--user-data-dir={profile}", url],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while not port_file.exists() or not port_file.read_text().strip():
            assert time.monotonic() < deadline, "Chromium did not open its DevTools port"
            time.sleep(0.1)
        port = port_file.read_text().split()[0]

        async def drive():
            async with aiohttp.ClientSession() as client:
                async with client.get(f"http://127.0.0.1:{port}/json/list") as response:
                    targets = await response.json()
                target = next(t for t in targets if t["type"] == "page" and t["url"] == url)
                async with client.ws_connect(target["webSocketDebuggerUrl"], max_msg_size=0) as ws:
                    page = Page(ws)
                    loaded = f"document.URL === {json.dumps(url)} && document.readyState"
                    while await page.run(loaded) != "complete":  # about:blank comes first
                        await asyncio.sleep(0.1)
                    return await script(page)

        return asyncio.run(drive())
    finally:
        process.kill()
        process.wait()


@pytest.fixture(scope="module")
def summary(tmp_path_factory):
    """The summary of a 24-run survey with published scores (some not reproduced)."""
    root = tmp_path_factory.mktemp("runs")
    make_corpus(root, runs=24, seed=13)
    out = tmp_path_factory.mktemp("out")
    rows = survey([str(root / MANIFEST)], out, LocalPool(1), Settings(published_scale=100)).rows
    write_summaries(rows, out, plots=False)
    return out / "summary.html", rows


COLUMN = """(function(title, column){{
  var section=[...document.querySelectorAll('section')].find(s=>s.querySelector('h1,h2').textContent===title);
  return [...section.querySelectorAll('tbody tr')].filter(r=>!r.hidden).map(r=>r.cells[column].textContent);
}})({title!r}, {column})"""
CLICK = """(function(title, column){{
  var section=[...document.querySelectorAll('section')].find(s=>s.querySelector('h1,h2').textContent===title);
  section.querySelectorAll('th')[column].click();
  return section.querySelectorAll('th')[column].getAttribute('aria-sort');
}})({title!r}, {column})"""
FILTER = """(function(title, text){{
  var section=[...document.querySelectorAll('section')].find(s=>s.querySelector('h1,h2').textContent===title);
  var box=section.querySelector('input'); box.value=text; box.dispatchEvent(new Event('input'));
  return section.querySelector('.shown').textContent;
}})({title!r}, {text!r})"""


def test_the_summary_sorts_filters_and_names_rules_in_a_real_browser(summary, tmp_path):
    page_file, rows = summary
    drop_runs = [row["run"] for row in rows if row["task"] == "drop"]

    async def script(page):
        seen = {"title": await page.run("document.title")}
        seen["rules"] = await page.run(
            "[...document.querySelectorAll('section')].find(s=>s.querySelector('h1,h2').textContent"
            "==='Findings by rule').querySelector('tbody tr').innerText"
        )
        seen["link"] = await page.run("document.querySelector('section a').getAttribute('href')")
        seen["scripts from elsewhere"] = await page.run(
            "[...document.scripts].filter(s=>s.src).length"
        )
        seen["sorted"] = await page.run(CLICK.format(title="DROP", column=0))
        seen["runs up"] = await page.run(COLUMN.format(title="DROP", column=0))
        await page.run(CLICK.format(title="DROP", column=0))
        seen["runs down"] = await page.run(COLUMN.format(title="DROP", column=0))
        await page.run(CLICK.format(title="DROP", column=2))
        seen["f1 up"] = await page.run(COLUMN.format(title="DROP", column=2))
        seen["shown"] = await page.run(FILTER.format(title="DROP", text="org1/"))
        seen["filtered"] = await page.run(COLUMN.format(title="DROP", column=1))
        return seen

    seen = browse(page_file.as_uri(), tmp_path / "profile", script)
    assert seen["title"] == "Leaderboard survey"
    rule_id, name, *_ = seen["rules"].split("\t")
    assert rule_id.startswith("LB") and name and name != rule_id, "a rule's name beside its id"
    assert seen["link"].endswith(f"#{(rule_id + '-' + name).lower()}")
    assert seen["scripts from elsewhere"] == 0
    assert seen["sorted"] == "ascending"
    natural = sorted(drop_runs, key=natural_key)
    assert seen["runs up"] == natural
    assert seen["runs down"] == natural[::-1]
    assert natural.index(next(r for r in natural if r.startswith("org2_"))) < natural.index(
        next(r for r in natural if r.startswith("org10_"))
    ), "org2 before org10"
    f1 = [float(value) for value in seen["f1 up"]]
    assert f1 == sorted(f1) and len(f1) == len(drop_runs)
    org1 = [run for run in drop_runs if run.split("__")[0] == "org1"]
    assert seen["shown"] == f"{len(org1)} of {len(drop_runs)} rows shown"
    assert seen["filtered"] and all(model.startswith("org1/") for model in seen["filtered"])


def test_the_leaderboard_page_sorts_and_filters_in_a_real_browser(tmp_path, monkeypatch):
    from click.testing import CliRunner
    from support.leaderboard_runs import write_run

    from validator.cli import cli

    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()  # the workspace
    for number, score in enumerate(
        (0.5, 0.62, 0.58, 0.7, 0.66, 0.52, 0.612, 0.572, 0.548, 0.6, 0.64)
    ):
        write_run(tmp_path / f"org{number}", f"org{number}/model", score)
        assert CliRunner().invoke(cli, ["submission", "init", f"org{number}"]).exit_code == 0
    folders = [f"org{number}" for number in range(11)]
    assert CliRunner().invoke(cli, ["leaderboard", *folders, "--out", "board"]).exit_code == 0
    table = json.loads((tmp_path / "board" / "leaderboard.json").read_text(encoding="utf-8"))

    async def script(page):
        seen = {"ranked": await page.run(COLUMN.format(title="Leaderboard", column=1))}
        await page.run(CLICK.format(title="Leaderboard", column=1))
        seen["by model"] = await page.run(COLUMN.format(title="Leaderboard", column=1))
        await page.run(CLICK.format(title="Leaderboard", column=2))
        await page.run(CLICK.format(title="Leaderboard", column=2))
        seen["by average, down"] = await page.run(COLUMN.format(title="Leaderboard", column=2))
        seen["shown"] = await page.run(FILTER.format(title="Leaderboard", text="org1/"))
        seen["filtered"] = await page.run(COLUMN.format(title="Leaderboard", column=1))
        return seen

    seen = browse((tmp_path / "board" / "leaderboard.html").as_uri(), tmp_path / "profile", script)
    assert seen["ranked"] == [entry["model"] for entry in table["entries"]]
    assert seen["by model"] == [f"org{number}/model" for number in range(11)], "natural order"
    assert seen["by average, down"] == [f"{e['average']:.2f}" for e in table["entries"]]
    assert seen["shown"] == "1 of 11 rows shown" and seen["filtered"] == ["org1/model"]
