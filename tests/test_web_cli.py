"""``briscola play`` as a user starts it: the server really started in its own process,
a table played over HTTP, stopped by SIGTERM; a port in use refused in one line."""

import json
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.helpers import REPO, run_here

pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install -e '.[web]'")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str, body: dict | None = None) -> dict | str:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        text = answer.read().decode()
    return json.loads(text) if answer.headers.get_content_type() == "application/json" else text


def test_the_server_starts_serves_a_deal_and_stops_on_sigterm():
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "sim", "play", "--no-browser", "--port", str(port)], cwd=REPO,
                              stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        said = server.stderr.readline()
        assert f"http://127.0.0.1:{port}/" in said and "only this machine" in said
        for _ in range(100):  # the server is up once the page answers
            try:
                page = fetch(f"http://127.0.0.1:{port}/")
                break
            except OSError:
                time.sleep(0.1)
        assert "app.js" in page
        made = fetch(f"http://127.0.0.1:{port}/api/tables", {"players": 2, "others": "greedy", "seed": 3})
        seen = fetch(f"http://127.0.0.1:{port}/api/tables/{made['id']}/play", {"decision": made["seen"]["legal"][0]})
        assert len(seen["played"]) >= 2  # the card, and greedy's answer (or greedy's lead before it)
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=30) == 0


def test_a_port_in_use_is_refused_in_one_line():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_here("play", "--no-browser", "--port", port)
    assert done.returncode == 2 and f"127.0.0.1:{port}" in done.stderr and "--port" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
