"""``briscola play`` against its speed targets, the whole command in its own process
(warm): the page loaded in Chromium (target: under a second), a built-in strategy's
reply to the person's card (target: within 100 ms, search aside), and the analysis of a
finished 2-player deal (target: under 2 seconds).

Usage: python benchmarks/bench_play.py [--deals 5] [--strategies expert greedy best]
"""

import argparse
import json
import shutil
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def call(url: str, body: dict | None = None) -> tuple[dict | str, float]:
    """The answer and the seconds it took."""
    data = None if body is None else json.dumps(body).encode()
    started = time.perf_counter()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as answer:
        text = answer.read().decode()
    seconds = time.perf_counter() - started
    return (json.loads(text) if answer.headers.get_content_type() == "application/json" else text), seconds


def page_load(url: str) -> float | None:
    """Seconds from navigation to the load event in Chromium; None without one."""
    chromium = shutil.which("chromium")
    if chromium is None:
        return None
    from playwright.sync_api import sync_playwright

    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page()
        page.goto(url)  # once, as a person's second visit finds it
        started = time.perf_counter()
        page.goto(url, wait_until="load")
        seconds = time.perf_counter() - started
        browser.close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=5)
    parser.add_argument("--strategies", nargs="+", default=["greedy", "expert", "net", "best"])
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4])
    args = parser.parse_args()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "sim", "play", "--no-browser", "--port", str(port)], cwd=REPO,
                              stderr=subprocess.DEVNULL)  # fmt: skip
    url = f"http://127.0.0.1:{port}/"
    try:
        for _ in range(300):
            try:
                call(url)
                break
            except OSError:
                time.sleep(0.1)
        loaded = page_load(url)
        print(f"page load in Chromium: {'no Chromium' if loaded is None else f'{loaded * 1000:.0f} ms'} (target 1 s)")
        for players in args.players:
            for strategy in args.strategies:
                replies, analyses = [], []
                for deal in range(args.deals + 1):  # the first deal warms the strategy up
                    made, _ = call(
                        f"{url}api/tables", {"players": players, "others": strategy, "seed": 7, "deal": deal}
                    )
                    seen, times = made["seen"], []
                    while not seen["done"]:
                        seen, seconds = call(f"{url}api/tables/{made['id']}/play", {"decision": seen["legal"][0]})
                        times.append(seconds)
                    if players == 2:
                        analyses.append(call(f"{url}api/tables/{made['id']}/analysis")[1])
                    if deal:
                        replies += times
                line = (f"{players} players, {strategy}: reply median {statistics.median(replies) * 1000:.0f} ms, "
                        f"slowest {max(replies) * 1000:.0f} ms over {len(replies)} cards")  # fmt: skip
                if analyses:
                    line += f"; the deal's analysis median {statistics.median(analyses[1:]):.2f} s"
                print(line, flush=True)
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
