"""``briscola play`` in a real browser: Playwright driving Debian's Chromium plays a whole
deal at every table by clicking, as a person would; every answer the page received, and
the page's own text at each of the person's turns, hold no card the seat may not see.
Screenshots go to docs/images with BRISCOLA_SCREENSHOTS=1 (for the docs).

Chromium comes from Debian (``apt-get install chromium``): Playwright's own download
cannot reach its host from these machines. Without it the tests skip, saying so.
"""

import json
import os
import re
import shutil
import socket
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install -e '.[web]'")
playwright = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra has it)")

from sim.base.cards import short_name  # noqa: E402
from tests.helpers import REPO  # noqa: E402
from tests.test_web_table import hidden_cards  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no Chromium here: apt-get install chromium (CI does)")


@pytest.fixture(scope="module")
def served():
    """The app in this process (its tables seen from inside), served by uvicorn on a thread."""
    import uvicorn

    import sim.web.server as server

    made, answers = [], []
    original_new, original_seen = server.PersonTable.new, server.PersonTable.seen

    def new(*args, **kwargs):
        made.append(original_new(*args, **kwargs))
        return made[-1]

    def seen(table):  # every answer, with what its seat may not see at that moment
        shown = original_seen(table)
        answers.append((json.dumps(shown), set() if table.done else hidden_cards(table)))
        return shown

    server.PersonTable.new, server.PersonTable.seen = staticmethod(new), seen
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    uvicorn_server = uvicorn.Server(
        uvicorn.Config(server.create_app(), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=uvicorn_server.run, daemon=True)
    thread.start()
    while not uvicorn_server.started:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/", made, answers
    uvicorn_server.should_exit = True
    thread.join(timeout=10)
    server.PersonTable.new, server.PersonTable.seen = original_new, original_seen


@pytest.fixture(scope="module")
def browser():
    with playwright.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield launched
        launched.close()


def shot(page, name: str, tmp_path: Path) -> None:
    folder = REPO / "docs" / "images" if os.environ.get("BRISCOLA_SCREENSHOTS") else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a_whole_deal_by_clicking_shows_no_hidden_card(served, browser, players, tmp_path):
    url, made, answers = served
    page = browser.new_page()
    received = []
    # what the page is sent while the deal goes on (the analysis comes once it is over: all may be seen then)
    page.on("response", lambda r: received.append(r.text()) if "/api/" in r.url and r.ok and
            not r.url.endswith("/analysis") else None)  # fmt: skip
    page.goto(url)
    page.select_option("select[name=players]", str(players))
    page.fill("input[name=seat]", "1")
    page.fill("input[name=others]", "greedy")
    page.fill("input[name=seed]", str(40 + players))
    page.fill("input[name=pace]", "0")
    if players in (4, 6):
        page.fill("input[name=rules]", "signals=trumps")
    page.click("button[type=submit]")
    decisions = 0
    while True:
        page.wait_for_function("() => document.body.getAttribute('aria-busy') === 'false'")  # answered, drawn
        status = page.inner_text("#status")
        assert "error" not in (page.get_attribute("#status", "class") or ""), status
        table = made[-1]
        if "over" in status:
            break
        text = page.inner_text("body")
        leaked = [short_name(c) for c in hidden_cards(table) if re.search(rf"\b{short_name(c)}\b", text)]
        assert not leaked, (players, leaked)
        if decisions == 2 and players in (2, 4):
            shot(page, f"play-{players}p", tmp_path)
        target = "#hand button:not([disabled])" if "card" in status else "#auction button"
        page.locator(target).first.click()
        decisions += 1
    assert decisions >= 3 and "The whole deal" in page.inner_text("#replay")
    assert made[-1].config.rules.signals == ("trumps" if players in (4, 6) else "none")  # the form's rules
    page.wait_for_selector("#analysis table")
    rows = page.locator("#analysis table tr").count() - 1  # the header
    assert (page.locator("#par").count() == 1) == (players == 2)  # the exact par: 2 players
    assert rows == len(json.loads(answers[-1][0])["deal"]["plays"])
    shot(page, f"play-{players}p-over", tmp_path)
    checked = [json.loads(text) for text, _ in answers]
    for body in map(json.loads, received):  # the page got only answers the server checked while making them
        assert body.get("seen", body) in checked
    for text, hidden in answers:
        assert not [c for c in hidden if f'"{short_name(c)}"' in text]
    if players == 4:  # the deal just played, replayed move by move with every hand face up
        page.click("#replay-this")
        page.click("#forward")
        assert "Card 1 of 40" in page.inner_text("#replay-info") and len(page.locator("#replay-hands div").all()) == 4
        page.click("#first")
        shown_hands = [line.inner_text() for line in page.locator("#replay-hands div").all()]
        dealt = json.loads(answers[-1][0])["deal"]["hands"]
        assert all(all(card in line for card in hand) for line, hand in zip(shown_hands, dealt))
    if players == 2:  # duplicate deals: the same cards from the next seat
        before = made[-1]
        page.click("#next-seat")
        page.wait_for_function("() => document.body.getAttribute('aria-busy') === 'false'")
        after = made[-1]
        assert after is not before and after.seat == 0 and "You are seat 0 of 2" in page.inner_text("#info")
        assert (after.config.seed, after.seen()["deal_index"]) == (before.config.seed, before.seen()["deal_index"])
    page.close()


def test_a_traced_deal_replayed_step_by_step(browser, tmp_path):
    """The page of ``briscola play --replay``: forward, back, and the costliest move."""
    import uvicorn

    import sim
    from sim.web.replay import replayed
    from sim.web.server import create_app

    trace = tmp_path / "t.parquet"
    sim.compare("expert", "greedy", players=2, deals=2, seed=3, out=tmp_path / "c.parquet", trace=trace)
    shown = replayed(trace, 1, game=0, samples=4)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(replay=shown), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.05)
    page = browser.new_page()
    try:
        page.goto(f"http://127.0.0.1:{port}/")
        page.wait_for_selector("#replaying:not([hidden])")
        assert "Card 0 of 40" in page.inner_text("#replay-info")
        for _ in range(3):
            page.click("#forward")
        assert "Card 3 of 40" in page.inner_text("#replay-info") and page.is_enabled("#back")
        page.click("#costliest")
        worst = max(range(40), key=lambda k: shown["moves"][k]["score_cost"])
        assert f"Card {worst} of 40" in page.inner_text("#replay-info")
        assert shown["moves"][worst]["verdict"] in page.inner_text("#replay-move")
        shot(page, "replay-2p", tmp_path)
    finally:
        page.close()
        server.should_exit = True
        thread.join(timeout=10)
