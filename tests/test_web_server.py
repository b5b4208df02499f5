"""``briscola play``'s server (sim/web/server.py), through Starlette's test client: a whole
deal played over the API at every table, nothing hidden in any answer before the deal
ends, and every bad request a 4xx with a one-line error."""

import json
import random

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
from starlette.testclient import TestClient  # noqa: E402

from sim.web.server import create_app  # noqa: E402
from tests.test_web_table import hidden_cards  # noqa: E402


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(), raise_server_exceptions=False)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a_whole_deal_over_the_api(client, players):
    made = client.post("/api/tables", json={"players": players, "seat": 1, "others": ["greedy"], "seed": 5})
    assert made.status_code == 200, made.text
    key, seen = made.json()["id"], made.json()["seen"]
    rng = random.Random(players)
    while not seen["done"]:
        seen = client.post(f"/api/tables/{key}/play", json={"decision": rng.choice(seen["legal"])}).json()
        assert "error" not in seen, seen
    assert client.get(f"/api/tables/{key}").json() == seen and sum(seen["points"]) > 0


def test_no_answer_holds_a_hidden_card(client, monkeypatch):
    """The tables the server makes, seen from inside while it answers."""
    import sim.web.server as server

    made_tables = []
    original = server.PersonTable.new

    def keep(*args, **kwargs):
        made_tables.append(original(*args, **kwargs))
        return made_tables[-1]

    monkeypatch.setattr(server.PersonTable, "new", keep)
    answer = client.post("/api/tables", json={"players": 4, "seat": 2, "others": "expert", "seed": 9}).json()
    table, rng = made_tables[-1], random.Random(4)
    seen = answer["seen"]
    while not seen["done"]:
        text = json.dumps(seen)
        assert not [c for c in hidden_cards(table) if f'"{_name(c)}"' in text]
        seen = client.post(f"/api/tables/{answer['id']}/play", json={"decision": rng.choice(seen["legal"])}).json()


def _name(code):
    from sim.base.cards import short_name

    return short_name(code)


@pytest.mark.parametrize(
    "path, body, status, says",
    [
        ("/api/tables", {"players": 7}, 400, "players"),
        ("/api/tables", {"players": "two"}, 400, "whole number"),
        ("/api/tables", {"colour": "red"}, 400, "unknown keys"),
        ("/api/tables", {"others": "nonsense"}, 400, "nonsense"),
        ("/api/tables", {"players": 2, "rules": {"signals": "loud"}}, 400, "valid values"),
        ("/api/tables/nope", None, 404, "no table"),
        ("/api/tables/nope/play", {"decision": "1D"}, 404, "no table"),
    ],
)
def test_bad_requests_get_a_4xx_and_one_line(client, path, body, status, says):
    answer = client.get(path) if body is None else client.post(path, json=body)
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert says in error and "\n" not in error and "Traceback" not in error


def test_a_card_not_in_hand_and_a_body_not_json_are_refused(client):
    made = client.post("/api/tables", json={"players": 2, "seat": 0, "others": "greedy", "seed": 1}).json()
    not_mine = next(f for f in ("1D", "2D", "3D", "4D") if f not in made["seen"]["hand"])
    refused = client.post(f"/api/tables/{made['id']}/play", json={"decision": not_mine})
    assert refused.status_code == 400 and "cannot play" in refused.json()["error"]
    assert client.get(f"/api/tables/{made['id']}").json() == made["seen"]  # nothing played
    garbled = client.post(f"/api/tables/{made['id']}/play", content=b"{not json")
    assert garbled.status_code == 400 and "not JSON" in garbled.json()["error"]
    assert client.post(f"/api/tables/{made['id']}/play", json={}).status_code == 400


def test_the_page_and_its_script_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "/static/app.js" in page.text
    assert client.get("/static/app.js").status_code == 200


def test_the_moves_are_valued_once_the_deal_is_over(client):
    made = client.post("/api/tables", json={"players": 2, "seat": 0, "others": "expert", "seed": 12}).json()
    early = client.get(f"/api/tables/{made['id']}/analysis")
    assert early.status_code == 400 and "not over" in early.json()["error"]
    seen = made["seen"]
    while not seen["done"]:
        seen = client.post(f"/api/tables/{made['id']}/play", json={"decision": seen["legal"][0]}).json()
    valued = client.get(f"/api/tables/{made['id']}/analysis").json()
    moves = valued["moves"]
    assert sum(valued["par"]) == 120 and 0 <= valued["par"][0] <= 120
    assert len(moves) == 40 and sum(m["strategy"] == "person" for m in moves) == 20
    assert [m["card"] for m in moves] == seen["deal"]["plays"]
    assert all(m["score_cost"] >= 0 and m["verdict"] in {"best", "good", "inaccuracy", "mistake", "blunder"}
               for m in moves)  # fmt: skip
    assert all(m["par_cost"] is not None for m in moves[-14:]) and moves[0]["par_cost"] is None  # the last 7 tricks


def test_a_strategy_that_fails_is_reported_not_crashed():
    client = TestClient(create_app(strategy_files=("tests/raising_strategy.py",)), raise_server_exceptions=False)
    made = client.post("/api/tables", json={"players": 2, "others": "raiser", "seed": 1}).json()
    seen, answer = made["seen"], None
    while not seen.get("done"):
        answer = client.post(f"/api/tables/{made['id']}/play", json={"decision": seen["legal"][0]})
        if answer.status_code != 200:
            break
        seen = answer.json()
    assert answer.status_code == 409 and "raiser gives up at trick 3" in answer.json()["error"]


def test_batched_agents_sit_at_the_table(client):
    """A batched plug-in (called in lock-step from Python) plays the other seats."""
    batched = TestClient(create_app(strategy_files=("tests/batched_strategies.py",)), raise_server_exceptions=False)
    made = batched.post("/api/tables", json={"players": 4, "others": "brandom", "seed": 3}).json()
    seen = made["seen"]
    while not seen["done"]:
        seen = batched.post(f"/api/tables/{made['id']}/play", json={"decision": seen["legal"][0]}).json()
    assert seen["names"][1:] == ["brandom"] * 3 and sum(seen["points"]) == 120
