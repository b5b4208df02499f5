"""The notebook API (sim.present.analysis), ``briscola report`` and the example notebook."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient

import sim.present.analysis as an
from sim.app.cli import main
from tests.helpers import REPO

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
    ratings = an.ratings(tour)
    for row in tour.config["ratings"]:  # as briscola tournament fitted them
        assert ratings.loc[row["strategy"], "rating"] == pytest.approx(row["rating"], abs=0.0051)  # JSON: 2 decimals
    matrix = tour.config["matrix"]
    summary = an.compare_summary(tour)
    for row in summary.itertuples():
        i, j = tour.config["strategies"].index(row.a), tour.config["strategies"].index(row.b)
        assert row.score == pytest.approx(matrix[i][j], abs=1e-6)  # JSON: 6 decimals
    cmp = an.load(results["compare"])
    assert cmp.kind == "compare" and len(cmp.deals) == 3 * 3000
    assert main(["compare", "greedy", "random", "--players", "3", "--deals", "3000", "--seed", "1",
                 "--summary-only", "--json", "--quiet"]) == 0  # fmt: skip
    printed = json.loads(capsys.readouterr().out)
    mine = an.compare_summary(cmp).loc[0]
    assert mine["score"] == pytest.approx(printed["score"], abs=1e-6)  # JSON: 6 decimals
    assert mine["ci_low"] == pytest.approx(printed["score_ci95"][0], abs=1e-6)


def test_first_lead_and_seat_scores_of_random_play(results):
    run = an.load(results["simulate"])
    assert run.kind == "simulate"
    seats = an.seat_scores(run)
    assert seats.loc[("random", 0), "score"] + seats.loc[("random", 1), "score"] == pytest.approx(1.0)
    lead = an.first_lead(run)
    assert lead["score"] == pytest.approx(seats.loc[("random", 0), "score"])
    assert lead["ci_low"] < lead["score"] < lead["ci_high"]


def test_report_writes_plots_and_a_page(results, capsys):
    capsys.readouterr()
    for kind, path in results.items():
        assert main(["report", str(path), "--json"]) == 0
        found = json.loads(capsys.readouterr().out)
        assert found["kind"] == kind and found["written"] and found["seed"] == 1
        names = {Path(p).name for p in found["plots"]}
        assert {"scores.png", "first_lead.png"} <= names  # one strategy everywhere, or every seating
        rated = kind == "tournament"  # its matrix and ratings drawn, and no margin pooled over unlike pairs
        assert ("heatmap.png" in names) == ("ratings.png" in names) == rated != ("margin.png" in names)
        for plot in found["plots"]:
            assert Path(plot).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        page = Path(found["html"]).read_text()
        assert all(f'src="{name}"' in page for name in names)
        assert "seed 1, rules: trump_redeal=off" in page and found["strategies"][0] in page
    assert main(["report", str(results["simulate"])]) == 0  # again: printed, the report kept
    captured = capsys.readouterr()
    assert "random" in captured.out and "kept the existing report" in captured.err
    assert main(["report", str(results["compare"]), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["written"] is False


def test_a_compare_report_shows_the_comparisons_own_summary(results, capsys):
    capsys.readouterr()
    assert main(["report", str(results["compare"]), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert main(["compare", "greedy", "random", "--players", "3", "--deals", "3000", "--seed", "1",
                 "--summary-only", "--json", "--quiet"]) == 0  # fmt: skip
    printed = json.loads(capsys.readouterr().out)
    assert found["summary"] == printed  # the same figures, stored in the file
    assert main(["report", str(results["compare"])]) == 0
    out = capsys.readouterr().out
    assert f"{printed['score']:.4f}" in out and "greedy (A) against random (B)" in out


def test_a_report_of_unbalanced_seats_and_teams_says_what_it_measures(tmp_path, capsys):
    out = tmp_path / "teams.parquet"
    assert main(["simulate", "--players", "4", "--strategies", "greedy,random", "--deals", "2000", "--seed", "2",
                 "--rule", "trump_redeal=ace-three", "--out", str(out), "--quiet"]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["report", str(out), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert found["first_lead"] is None and not any(p.endswith("first_lead.png") for p in found["plots"])
    assert [(r["strategy"], r["side"]) for r in found["scores"]] == [("greedy", 0), ("random", 1)]  # a team once
    assert found["rules"] == {"trump_redeal": "ace-three", "partner_view": "last3", "signals": "none"}
    assert main(["report", str(out)]) == 0
    out = capsys.readouterr().out
    assert "first-lead advantage: not measured" in out
    assert "by strategy and team" in out and "greedy                       team 0" in out and " side" not in out
    page = Path(found["html"]).read_text()
    assert "by strategy and team" in page and "<th>team</th>" in page and "side" not in page.lower()


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


def test_a_trace_file_is_refused_alike_by_sim_load_and_report(tmp_path, capsys):
    """A trace file holds moves, not results: both readers say what it is and what to pass."""
    trace = tmp_path / "moves.parquet"
    assert main(["simulate", "--players", "2", "--strategies", "greedy,random", "--deals", "10", "--seed", "1",
                 "--out", str(tmp_path / "run.parquet"), "--trace", str(trace), "--quiet"]) == 0  # fmt: skip
    with pytest.raises(ValueError) as refused:
        an.load(trace)
    message = str(refused.value)
    assert message.startswith(f"{trace} is a trace file") and "sim.read_results" in message
    assert len(message.splitlines()) == 1
    capsys.readouterr()
    assert main(["report", str(trace)]) == 2
    err = capsys.readouterr().err
    assert err == f"briscola: error: {message}\n"  # the same line
    assert len(an.load(tmp_path / "run.parquet").deals) == 10  # its result file reads


def test_the_example_notebook_runs(tmp_path):
    notebook = nbformat.read(EXAMPLE, as_version=4)
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(REPO)}}).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("expert" in str(o.get("data", {})) for o in outputs)


def test_the_documented_calls_work_on_every_kind_of_file(results, tmp_path):
    import sim

    paths = dict(results)
    for name, extra in (("duel", []), ("teams_matches", ["--match", "best-of-3"])):
        paths[name] = tmp_path / f"{name}.parquet"
        players = "2" if name == "duel" else "4"
        assert main(["simulate", "--players", players, "--strategies", "greedy,random", "--deals", "500", "--seed", "3",
                     "--out", str(paths[name]), "--quiet", *extra]) == 0  # fmt: skip
    for kind, path in paths.items():
        run = sim.load(path)
        rated = sim.ratings(run)
        assert set(rated.index) == set(run.strategies) and rated["rating"].notna().all(), kind
        assert not sim.side_strategy_scores(run).empty
    teams = sim.load(paths["teams_matches"])
    assert teams.strategies == ["greedy", "random"] and sim.ratings(teams).loc["greedy", "rating"] > 0
    cmp = sim.load(results["compare"])
    assert list(sim.ratings(cmp).index) == ["greedy", "random"]
    assert {"load", "ratings", "paired", "first_lead", "compare_summary", "read_results"} <= set(dir(sim))


@pytest.fixture(scope="module")
def rule_pair(tmp_path_factory):
    """The same comparison, seed and table with and without trump_redeal=ace-three."""
    folder = tmp_path_factory.mktemp("pair")
    for name, rule in (("plain", []), ("redeal", ["--rule", "trump_redeal=ace-three"])):
        assert main(["compare", "expert", "greedy", "--players", "4", "--deals", "3000", "--seed", "4",
                     "--out", str(folder / f"{name}.parquet"), "--quiet", *rule]) == 0  # fmt: skip
    return folder / "plain.parquet", folder / "redeal.parquet"


def test_diff_pairs_two_runs_deal_by_deal(rule_pair, capsys):
    capsys.readouterr()
    assert main(["diff", *map(str, rule_pair), "--json"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["units"] == 3000 and row["unit"] == "deal" and row["who"] == "A"
    assert row["differs"] == {"rules": [{"trump_redeal": "off", "partner_view": "last3", "signals": "none"},
                                        {"trump_redeal": "ace-three", "partner_view": "last3", "signals": "none"}]}  # fmt: skip
    score = row["score"]
    for path, key in zip(rule_pair, ("first", "second")):
        assert score[key] == pytest.approx(an.load(path).config["summary"]["score"], abs=1e-6)
    assert score["difference"] == pytest.approx(score["second"] - score["first"], abs=2e-6)
    lo, hi = score["difference_ci95"]
    assert lo < score["difference"] < hi
    units = [an.unit_figures(an.load(path))["score"] for path in rule_pair]
    unpaired = 1.96 * np.sqrt((units[0].var(ddof=0) + units[1].var(ddof=0)) / 3000)
    assert (hi - lo) / 2 < 0.75 * unpaired and score["correlation"] > 0.5  # the same cards: pairing pays
    table = an.paired(*rule_pair)
    assert table.loc["margin", "difference"] == pytest.approx(row["mean_margin"]["difference"], abs=1e-4)
    assert main(["diff", *map(str, rule_pair)]) == 0
    assert "score of A" in capsys.readouterr().out


def test_diff_of_a_run_with_itself_is_exactly_zero(rule_pair):
    table = an.paired(rule_pair[0], rule_pair[0])
    assert (table["difference"] == 0).all() and (table["ci_low"] == 0).all() and (table["ci_high"] == 0).all()


def test_diff_refuses_runs_that_do_not_pair(rule_pair, tmp_path, capsys):
    other_seed = tmp_path / "seed5.parquet"
    assert main(["compare", "expert", "greedy", "--players", "4", "--deals", "100", "--seed", "5",
                 "--out", str(other_seed), "--quiet"]) == 0  # fmt: skip
    capsys.readouterr()
    for args, message in (
        ([rule_pair[0], other_seed], "differ in seed (4 and 5)"),
        ([rule_pair[0], tmp_path], "is a folder"),
        ([rule_pair[0], tmp_path / "nope.parquet"], "does not exist"),
    ):
        assert main(["diff", *map(str, args)]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("players, args", [(3, ["compare", "greedy", "random"]), (2, ["compare", "greedy", "random", "--match", "best-of-3"]),
                                           (4, ["simulate", "--strategies", "greedy,random", "--match", "two-deals-120"])])  # fmt: skip
def test_paired_runs_of_every_kind_agree_with_their_own_summaries(tmp_path, capsys, players, args):
    files = []
    for name, rule in (("plain", []), ("redeal", ["--rule", "trump_redeal=ace-three"])):
        files.append(tmp_path / f"{name}.parquet")
        assert main([*args, "--players", str(players), "--deals", "600", "--seed", "6", "--out", str(files[-1]),
                     "--quiet", *rule]) == 0  # fmt: skip
    table = an.paired(*files)
    assert table.loc["score", "units"] == 600  # deals, or matches
    for path, column in zip(files, ("first", "second")):
        summary = an.load(path).config["summary"]
        own = (
            summary["score"]
            if args[0] == "compare"
            else (summary["sides"][0]["wins"] + summary["sides"][0]["draws"] / 2) / 600
        )
        assert table.loc["score", column] == pytest.approx(own, abs=1e-6)
    assert table.loc["score", "difference"] == pytest.approx(table.loc["score", "second"] - table.loc["score", "first"])
    capsys.readouterr()
    assert main(["diff", *map(str, files)]) == 0
    stdout = capsys.readouterr().out
    assert ("600 matches paired" if "--match" in args else "600 deals paired") in stdout


def test_diff_refuses_trace_files_and_report_reads_an_empty_partial_file(tmp_path, capsys):
    from sim.base.config import RunConfig
    from sim.base.results import AtomicParquetWriter, results_schema
    from sim.pipeline.runs import final_metadata

    trace = tmp_path / "trace.parquet"
    assert main(["simulate", "--players", "2", "--strategies", "greedy", "--deals", "10", "--seed", "1",
                 "--summary-only", "--trace", str(trace), "--quiet"]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["diff", str(trace), str(trace)]) == 2 and "trace file" in capsys.readouterr().err
    config = RunConfig(players=2, strategies=("greedy", "random"), deals=10, seed=1)
    empty = tmp_path / "empty.parquet"  # what a Ctrl-C before the first deal leaves
    writer = AtomicParquetWriter(empty, results_schema(config))
    writer.close(final_metadata(config, "briscola simulate ...", True, 0, 1.0))
    writer.commit()
    assert main(["report", str(empty)]) == 0
    assert "no deal was played" in capsys.readouterr().out


def test_json_has_no_nan():
    from sim.present.report import rounded

    assert rounded(float("nan"), 4) is None and rounded([0.12345, float("nan")], 2) == [0.12, None]


def test_report_scores_are_even_at_one_half_at_every_table_and_per_match(tmp_path, capsys):
    three = tmp_path / "three.parquet"
    matches = tmp_path / "matches.parquet"
    assert main(["simulate", "--players", "3", "--strategies", "random", "--deals", "6000", "--seed", "2",
                 "--out", str(three), "--quiet"]) == 0  # fmt: skip
    assert main(["simulate", "--players", "6", "--strategies", "expert,greedy", "--deals", "300", "--seed", "2",
                 "--match", "best-of-3", "--out", str(matches), "--quiet"]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["report", str(three), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert [row["side"] for row in found["scores"]] == [0, 1, 2]
    # each seat against each other one apart: the three scores add up to 3/2, each near 1/2
    assert sum(row["score"] for row in found["scores"]) == pytest.approx(1.5, abs=1e-5)
    assert all(0.4 < row["score"] < 0.6 for row in found["scores"])
    assert found["first_lead"]["score"] == found["scores"][0]["score"]
    assert main(["report", str(matches), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    expert = found["summary"]["sides"][0]
    assert [(row["strategy"], row["side"]) for row in found["scores"]] == [("expert", 0), ("greedy", 1)]
    assert found["scores"][0]["score"] == pytest.approx((expert["wins"] + expert["draws"] / 2) / 300, abs=1e-6)


def test_an_infinite_elo_bound_has_its_sign():
    """A score interval reaching 0 or 1 has no finite Elo bound: the lower one is -inf,
    the upper one +inf (they were both printed as "inf")."""
    from sim.pipeline.kinds.words import elo

    assert (elo(None, 0.0), elo(None, 1.0), elo(-59.86, 0.0)) == ("-inf", "+inf", "-59.9")


SHOWING = ("tables", "headline", "strategies_read", "file_summary", "tally_of")  # what no kind can do without


@pytest.mark.parametrize("name", ["simulate", "compare", "tournament"])
def test_every_run_kind_has_its_tables_its_headline_and_its_reading(name):
    """The report, a study's status and sim.load ask the kind: each fills them in."""
    from sim.pipeline.kinds import KINDS
    from sim.pipeline.kinds.base import RunKind

    kind = KINDS[name]
    assert [method for method in SHOWING if getattr(type(kind), method) is getattr(RunKind, method)] == []


def test_the_score_matrix_is_whole_both_ways_round(results):
    """Pivoting compare_summary gives a triangle; the matrix holds B against A too."""
    tour = an.load(results["tournament"])
    matrix = an.score_matrix(tour)
    names = tour.config["strategies"]
    assert list(matrix.index) == list(matrix.columns) == names
    for i, row in enumerate(names):
        assert np.isnan(matrix.loc[row, row])
        for j, column in enumerate(names):
            if i != j:
                assert matrix.loc[row, column] == pytest.approx(tour.config["matrix"][i][j], abs=1e-6)  # as printed
                assert matrix.loc[row, column] + matrix.loc[column, row] == pytest.approx(1.0)


def test_ratings_come_strongest_first_with_the_anchor_named(results):
    ratings = an.ratings(an.load(results["tournament"]))
    assert list(ratings["rating"]) == sorted(ratings["rating"], reverse=True)
    assert list(ratings.index[ratings["anchor"]]) == ["random"] and ratings.loc["random", "rating"] == 0
    assert ratings.loc["random", ["ci_low", "ci_high"]].isna().all()  # rated 0 by definition: no interval
    assert ratings.loc[~ratings["anchor"], ["ci_low", "ci_high"]].notna().all().all()


def test_intervals_take_duplicate_deals_as_the_units(results):
    cmp = an.load(results["compare"])  # 3 players: three seatings of every deal
    whole = an.intervals(cmp).iloc[0]
    summary = cmp.config["summary"]
    assert whole["units"] == 3000 and whole["score"] == pytest.approx(summary["score"], abs=1e-6)
    assert [whole["ci_low"], whole["ci_high"]] == pytest.approx(summary["score_ci95"], abs=1e-6)
    constant = an.intervals(cmp, by=np.zeros(len(cmp.deals)))  # a grouping holding whole deals: the same
    assert constant.iloc[0].to_dict() == pytest.approx(whole.to_dict())
    by_seating = an.intervals(cmp, by="game")  # a deal's rows split: a unit per deal in each group
    assert list(by_seating["units"]) == [3000, 3000, 3000]
    assert by_seating["score"].mean() == pytest.approx(whole["score"])
    high = cmp.deals["points_0"] > 60  # a feature of the row, not of the deal: deals counted once per group
    by_feature = an.intervals(cmp, by=high)
    assert (by_feature["units"] <= 3000).all() and by_feature["units"].sum() > 3000
    tour = an.load(results["tournament"])
    pairs = an.intervals(tour, by="pair")
    assert list(pairs["score"]) == pytest.approx(list(an.compare_summary(tour)["score"]))
    margins = an.intervals(tour, by=["pair", "game"], value="margin")
    assert (
        margins.loc[("0_1", 0), "margin"] < 0 < margins.loc[("0_1", 0), "ci_high"] - margins.loc[("0_1", 0), "ci_low"]
    )
    with pytest.raises(ValueError, match="no figure 'luck'"):
        an.intervals(cmp, value="luck")


def test_every_helper_takes_the_run_and_where_keeps_it_a_run(results):
    tour = an.load(results["tournament"])
    pair = tour.where(tour.deals["pair"] == "0_1")
    assert pair.kind == "tournament" and set(pair.deals["pair"]) == {"0_1"}
    assert len(an.compare_summary(pair)) == 1 and len(an.margins(pair)) == len(pair.deals)
    with pytest.raises(TypeError, match=r"pass a run as sim.load\(PATH\) reads it"):
        an.first_lead(tour.deals)


def test_a_tournament_report_leads_with_its_matrix_and_ranks_its_ratings(results, capsys):
    capsys.readouterr()
    assert main(["report", str(results["tournament"]), "--json", "--overwrite"]) == 0
    found = json.loads(capsys.readouterr().out)
    page = Path(found["html"]).read_text()
    assert page.index('src="heatmap.png"') < page.index("<h2>")  # the heatmap first, above every table
    matrix = page.index("<h2>Score of the row against the column</h2>")
    ratings = page.index("<h2>Ratings (Bradley-Terry, Elo scale)</h2>")
    assert matrix < ratings and page.count("Ratings (Bradley-Terry") == 1
    rows = page[ratings : page.index("</table>", ratings)]
    order = [name for name in ("greedy", "highest", "random") if name in rows]
    strongest = sorted(found["ratings"], key=lambda r: -r["rating"])
    assert sorted(order, key=rows.index) == [r["strategy"] for r in strongest]  # strongest first
    assert "(anchor)" in rows and [r["strategy"] for r in found["ratings"] if r["anchor"]] == ["random"]
    assert "0.110" in page[matrix:ratings] or "<td>-</td>" in page[matrix:ratings]  # the matrix as a table


def test_the_reports_plots_draw_in_a_notebook_with_legends_beside_the_data(results, tmp_path):
    import sim

    four = tmp_path / "four"
    assert main(["tournament", "random", "greedy", "--players", "4", "--deals", "200", "--seed", "1",
                 "--out", str(four), "--quiet"]) == 0  # fmt: skip
    runs = [*(sim.load(path) for path in results.values()), sim.load(four)]
    assert sim.plot_names(runs[2]) == ["heatmap", "ratings", "scores", "first_lead"]
    for run in runs:
        for name in sim.plot_names(run):
            figure = sim.plot(run, name)
            figure.canvas.draw()
            for axes in figure.axes:
                legend = axes.get_legend()
                if legend is not None:  # beside the axes: over none of their data
                    box, frame = legend.get_window_extent(), axes.get_window_extent()
                    assert box.x0 >= frame.x1 or box.y1 <= frame.y0 or box.x1 <= frame.x0, (run.kind, name)
            figure.clf()
    labels = [t.get_text() for t in sim.plot(runs[3], "scores").axes[0].get_xticklabels()]
    assert labels and all("team" in label and "side" not in label for label in labels)
    with pytest.raises(ValueError, match="no plot 'margins'; a report of this run draws heatmap, ratings"):
        sim.plot(runs[2], "margins")


def test_every_plot_a_report_draws_is_a_file_the_report_folder_owns():
    """--overwrite replaces only what briscola wrote: a new plot must be named there."""
    from sim.base.files import REPORT
    from sim.present.plots import PLOTS

    assert all(REPORT.owns(f"{name}.png") for name in PLOTS)
