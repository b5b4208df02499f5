"""People rated like strategies (sim/web/people.py): every deal finished on the page is
kept at once, under its player's name, and read back as scores and Elo against each
line-up, a deal played from two seats counting once; briscola report reads the folder."""

import json

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed: pip install -e '.[web]'")
from starlette.testclient import TestClient  # noqa: E402

from sim.web.people import people, person_ratings  # noqa: E402
from sim.web.server import create_app  # noqa: E402
from tests.helpers import run_here  # noqa: E402


def play_out(client, **asked) -> dict:
    made = client.post("/api/tables", json=asked).json()
    seen = made["seen"]
    while not seen["done"]:
        seen = client.post(f"/api/tables/{made['id']}/play", json={"decision": seen["legal"][0]}).json()
    return seen


def test_finished_deals_are_kept_and_rated_over_duplicate_deals(tmp_path):
    client = TestClient(create_app(out=tmp_path), raise_server_exceptions=False)
    first = play_out(client, players=2, seat=0, others="greedy", seed=5, deal=3, name="Ada")
    second = play_out(client, players=2, seat=1, others="greedy", seed=5, deal=3, name="Ada")  # the same deal
    third = play_out(client, players=2, seat=0, others="expert", seed=6, name="Bo")
    assert all("saved" in seen for seen in (first, second, third))
    played = people(tmp_path)
    assert len(played) == 3 and set(played["person"]) == {"Ada", "Bo"}
    ada = played[played["person"] == "Ada"].sort_values("seat")
    expected = [(1 + o[s]) / 2 for o, s in ((first["outcomes"], 0), (second["outcomes"], 1))]  # -1, 0, 1 to 0, 1/2, 1
    assert ada["score"].tolist() == expected and ada["points"].tolist() == [first["points"][0], second["points"][1]]
    ratings = person_ratings(tmp_path).set_index("person")
    assert ratings.loc["Ada", "games"] == 2 and ratings.loc["Ada", "deals"] == 1  # one deal, from both seats
    assert ratings.loc["Ada", "score"] == pytest.approx(sum(expected) / 2)
    assert ratings.loc["Bo", "lineup"] == "expert" and not list(tmp_path.rglob("*.tmp*"))


def test_an_unfinished_deal_is_not_kept_and_a_bad_name_is_refused(tmp_path):
    client = TestClient(create_app(out=tmp_path), raise_server_exceptions=False)
    made = client.post("/api/tables", json={"players": 2, "others": "greedy", "seed": 1, "name": "Cy"}).json()
    client.post(f"/api/tables/{made['id']}/play", json={"decision": made["seen"]["legal"][0]})
    assert not list(tmp_path.rglob("*.parquet"))
    refused = client.post("/api/tables", json={"players": 2, "name": "../etc"})
    assert refused.status_code == 400 and "name" in refused.json()["error"]


def test_briscola_report_reads_a_people_folder(tmp_path):
    client = TestClient(create_app(out=tmp_path), raise_server_exceptions=False)
    for deal in range(3):
        play_out(client, players=4, seat=deal % 4, others="greedy", seed=2, deal=deal, name="Di")
    printed = run_here("report", tmp_path, "--json")
    assert printed.returncode == 0, printed.stderr
    [row] = json.loads(printed.stdout)
    assert (
        row["person"] == "Di"
        and row["players"] == 4
        and row["games"] == 3
        and row["lineup"] == "greedy, greedy, greedy"
    )
    shown = run_here("report", tmp_path)
    assert shown.returncode == 0 and "Di" in shown.stdout


def test_sim_reads_a_people_folder_and_load_says_where(tmp_path):
    import sim

    client = TestClient(create_app(out=tmp_path), raise_server_exceptions=False)
    play_out(client, players=3, seat=2, others="greedy", seed=4, name="Eve")
    assert sim.people(tmp_path)["person"].tolist() == ["Eve"] and len(sim.person_ratings(tmp_path)) == 1
    with pytest.raises(ValueError, match="sim.people"):
        sim.load(tmp_path)


def test_a_foreign_or_damaged_file_in_the_folder_is_named_in_one_line(tmp_path):
    client = TestClient(create_app(out=tmp_path), raise_server_exceptions=False)
    play_out(client, players=2, seat=0, others="greedy", seed=4, name="Flo")
    for name, content in (("notes.parquet", b"not parquet at all"), (None, None)):
        if name is None:  # a briscola file, but not a deal played on the page
            import sim

            sim.simulate(["random", "random"], players=2, deals=5, seed=1, out=tmp_path / "Flo" / "sim.parquet")
        else:
            (tmp_path / "Flo" / name).write_bytes(content)
        done = run_here("report", tmp_path)
        assert done.returncode == 2 and "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
        (tmp_path / "Flo" / (name or "sim.parquet")).unlink()
    assert run_here("report", tmp_path).returncode == 0
