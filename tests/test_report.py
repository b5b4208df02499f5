"""The notebook API (sim.analysis), ``briscola report`` and the example notebook."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

import sim.analysis as an
from sim.cli import main
from tests.test_cli import REPO

EXAMPLE = REPO / "examples" / "analysis.ipynb"


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """A simulate file, a compare file and a tournament folder, made with the CLI."""
    folder = tmp_path_factory.mktemp("results")
    runs = {
        "simulate": ["simulate", "--players", "2", "--strategies", "random", "--deals", "20000", "--seed", "1",
                     "--out", str(folder / "sim.parquet")],
        "compare": ["compare", "greedy", "random", "--players", "3", "--deals", "3000", "--seed", "1",
                    "--out", str(folder / "cmp.parquet")],
        "tournament": ["tournament", "random", "greedy", "highest", "--deals", "3000", "--seed", "1",
                       "--out", str(folder / "tour")],
    }  # fmt: skip
    outputs = {}
    for kind, args in runs.items():
        assert main([*args, "--quiet"]) == 0
        outputs[kind] = Path(args[args.index("--out") + 1])
    return outputs


def test_the_api_reproduces_the_command_line(results, capsys):
    capsys.readouterr()
    tour = an.load(results["tournament"])
    assert tour.kind == "tournament" and tour.players == 2
    ratings = an.ratings(tour.deals, tour.config["strategies"])
    for row in tour.config["ratings"]:  # as briscola tournament fitted them
        assert ratings.loc[row["strategy"], "rating"] == pytest.approx(row["rating"], abs=0.0051)  # JSON: 2 decimals
    matrix = tour.config["matrix"]
    summary = an.compare_summary(tour.deals)
    for row in summary.itertuples():
        i, j = tour.config["strategies"].index(row.a), tour.config["strategies"].index(row.b)
        assert row.score == pytest.approx(matrix[i][j], abs=1e-6)  # JSON: 6 decimals
    cmp = an.load(results["compare"])
    assert cmp.kind == "compare" and len(cmp.deals) == 3 * 3000
    assert main(["compare", "greedy", "random", "--players", "3", "--deals", "3000", "--seed", "1",
                 "--summary-only", "--json", "--quiet"]) == 0  # fmt: skip
    printed = json.loads(capsys.readouterr().out)
    mine = an.compare_summary(cmp.deals).loc[0]
    assert mine["score"] == pytest.approx(printed["score"], abs=1e-6)  # JSON: 6 decimals
    assert mine["ci_low"] == pytest.approx(printed["score_ci95"][0], abs=1e-6)


def test_first_lead_and_seat_scores_of_random_play(results):
    run = an.load(results["simulate"])
    assert run.kind == "simulate"
    seats = an.seat_scores(run.deals, run.players)
    assert seats.loc[("random", 0), "score"] + seats.loc[("random", 1), "score"] == pytest.approx(1.0)
    lead = an.first_lead(run.deals, run.players)
    assert lead["score"] == pytest.approx(seats.loc[("random", 0), "score"])
    assert lead["ci_low"] < lead["score"] < lead["ci_high"]


def test_report_writes_plots_and_a_page(results, capsys):
    capsys.readouterr()
    for kind, path in results.items():
        assert main(["report", str(path), "--json"]) == 0
        found = json.loads(capsys.readouterr().out)
        assert found["kind"] == kind
        names = {Path(p).name for p in found["plots"]}
        assert {"margin.png", "seat_scores.png", "first_lead.png"} <= names
        assert ("heatmap.png" in names) == (kind == "tournament")
        for plot in found["plots"]:
            assert Path(plot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        page = Path(found["html"]).read_text()
        assert all(f'src="{name}"' in page for name in names)
    assert main(["report", str(results["simulate"])]) == 2  # the report exists: not replaced silently
    assert "already exists" in capsys.readouterr().err


def test_report_refuses_what_is_not_a_result(tmp_path, capsys):
    bogus = tmp_path / "notes.parquet"
    bogus.write_text("hello")
    assert main(["report", str(bogus)]) == 2
    assert "not a briscola result file" in capsys.readouterr().err
    assert not (tmp_path / "notes_report").exists()
    trace = tmp_path / "trace.parquet"
    assert main(["simulate", "--players", "2", "--strategies", "greedy", "--deals", "10", "--seed", "1",
                 "--summary-only", "--trace", str(trace), "--quiet"]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["report", str(trace)]) == 2
    assert "is a trace file" in capsys.readouterr().err and not (tmp_path / "trace_report").exists()


def test_the_example_notebook_runs(tmp_path):
    notebook = nbformat.read(EXAMPLE, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(REPO)}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("expert" in str(o.get("data", {})) for o in outputs)
