"""The ``briscola simulate`` command as a user meets it: outputs, errors, files."""

import json
import os
import shlex
import subprocess
import sys

import numba
import pandas as pd
import pytest

from sim.base.results import read_results
from tests.helpers import REPO, data_bytes, fixed_batches, run_cli, run_here

JSON_KEYS = {"players", "deals", "seed", "rules", "seconds", "deals_per_second", "sides"}
SIDE_KEYS = {"side", "seats", "strategy", "wins", "draws", "losses", "win_rate", "win_rate_ci95", "mean_points"}


def simulate(*args):
    return run_here("simulate", *args)


@pytest.mark.parametrize(
    "players, strategies", [(2, "greedy,random"), (3, "greedy"), (4, "greedy,random"), (6, "random")]
)
def test_json_summary_agrees_with_the_result_file(tmp_path, players, strategies):
    out = tmp_path / "run.parquet"
    code, stdout, _ = simulate(
        "--players", str(players), "--strategies", strategies, "--deals", "3000", "--seed", "11",
        "--out", str(out), "--json", "--quiet",
    )  # fmt: skip
    assert code == 0
    summary = json.loads(stdout)
    assert set(summary) == JSON_KEYS
    assert summary["deals"] == 3000 and summary["players"] == players and summary["seed"] == 11
    frame = read_results(out).deals
    assert len(frame) == 3000
    for side in summary["sides"]:
        assert set(side) == SIDE_KEYS
        won = int((frame["winner_side"] == side["side"]).sum())
        assert side["wins"] == won
        assert side["wins"] + side["draws"] + side["losses"] == 3000
        assert side["mean_points"] == pytest.approx(frame[f"side_points_{side['side']}"].mean())
        lo, hi = side["win_rate_ci95"]
        assert lo <= side["win_rate"] <= hi
    assert [s["side"] for s in summary["sides"]] == list(range(len(summary["sides"])))


def test_team_strategies_are_given_per_side(tmp_path):
    out = tmp_path / "teams.parquet"
    code, stdout, _ = simulate(
        "--players", "6", "--strategies", "greedy,random", "--deals", "500", "--seed", "2",
        "--out", str(out), "--json", "--quiet",
    )  # fmt: skip
    assert code == 0
    sides = json.loads(stdout)["sides"]
    assert [s["seats"] for s in sides] == [[0, 2, 4], [1, 3, 5]]
    assert [s["strategy"] for s in sides] == ["greedy", "random"]
    frame = pd.read_parquet(out)
    assert list(frame.loc[0, [f"strategy_{s}" for s in range(6)]]) == ["greedy", "random"] * 3


def test_result_file_is_tidy_and_carries_its_configuration(tmp_path):
    out = tmp_path / "run.parquet"
    code, _, _ = simulate(
        "--players", "3", "--strategies", "greedy,random,random", "--deals", "2000", "--seed", "5",
        "--rule", "removed_two=coppe", "--rule", "trump_redeal=ace-three", "--out", str(out), "--quiet",
    )  # fmt: skip
    assert code == 0
    run = read_results(out)
    frame = run.deals
    assert list(frame["deal"]) == list(range(2000))
    assert isinstance(frame["strategy_0"].dtype, pd.CategoricalDtype)
    assert (frame[["side_points_0", "side_points_1", "side_points_2"]].sum(axis=1) == 120).all()
    assert not frame["briscola"].isin([0, 2, 10, 12, 20, 22, 30, 32]).any()  # no Ace or Three turned
    config = run.config
    assert config["status"] == "complete" and not run.partial
    assert config["seed"] == 5 and config["players"] == 3 and config["deals"] == 2000
    assert config["rules"] == {"trump_redeal": "ace-three", "removed_two": "coppe"}  # the rules of a 3-player table
    assert [s["name"] for s in config["strategies"]] == ["greedy", "random", "random"]
    assert config["command"] == (
        f"briscola simulate --players 3 --strategies greedy,random,random --deals 2000 --seed 5 "
        f"--rule removed_two=coppe --rule trump_redeal=ace-three --out {out} --quiet"
    )


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 threads to compare with 1")
def test_same_seed_gives_the_same_file_on_any_thread_count(tmp_path):
    frames = []
    for threads in (1, 2):
        out = tmp_path / f"t{threads}.parquet"
        code, _, _ = simulate(
            "--players", "4", "--strategies", "random,greedy", "--deals", "20000", "--seed", "99",
            "--threads", str(threads), "--out", str(out), "--quiet",
        )  # fmt: skip
        assert code == 0
        frames.append(pd.read_parquet(out))
    pd.testing.assert_frame_equal(frames[0], frames[1])


def test_trace_holds_every_deal_move_by_move(tmp_path):
    trace = tmp_path / "trace.parquet"
    code, _, _ = simulate(
        "--players", "4", "--strategies", "greedy", "--deals", "50", "--seed", "3",
        "--summary-only", "--trace", str(trace), "--quiet",
    )  # fmt: skip
    assert code == 0
    frame = pd.read_parquet(trace)
    expected = ["deal", "players", "hands", "briscola", "stock", "removed", "plays", "trick_winners", "seat_points",
                "auction", "called", "game_points"]  # fmt: skip
    assert list(frame.columns) == expected
    row = frame.iloc[0]
    assert len(row["auction"]) == len(row["game_points"]) == 0 and row["called"] == -1  # Chiamata's only
    assert len(row["hands"]) == 12 and len(row["stock"]) == 27 and len(row["plays"]) == 40
    assert sorted([*row["hands"], row["briscola"], *row["stock"]]) == list(range(40))
    assert sorted(row["plays"]) == list(range(40))
    assert sum(row["seat_points"]) == 120


def test_default_output_goes_under_results(tmp_path):
    result = run_here("simulate", "--players", "2", "--strategies", "random", "--deals", "100", "--seed", "1",
                      "--quiet", cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    files = list((tmp_path / "results").glob("*.parquet"))
    assert len(files) == 1 and len(pd.read_parquet(files[0])) == 100


def test_summary_only_writes_no_file(tmp_path):
    result = run_here("simulate", "--players", "2", "--strategies", "random", "--deals", "100", "--seed", "1",
                      "--summary-only", cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "random" in result.stdout
    assert list(tmp_path.iterdir()) == []


BAD_INPUTS = [
    (["--players", "7", "--strategies", "random"], "--players 7"),
    (["--players", "2", "--strategies", "nosuch"], "unknown strategy 'nosuch'"),
    (["--players", "2", "--strategies", "random,random,random"], "takes 1 or 2"),
    (["--players", "4", "--strategies", "a,b,c"], "takes 1 or 4 or 2"),
    (["--players", "2", "--strategies", "random", "--rule", "colour=red"], "unknown rule 'colour'"),
    (["--players", "2", "--strategies", "random", "--rule", "trump_redeal=maybe"], "valid values: off, ace-three"),
    (["--players", "2", "--strategies", "random", "--rule", "partner_view=none"], "applies to 4, 6 players"),
    (["--players", "2", "--strategies", "random", "--deals", "0"], "--deals 0"),
    (["--players", "2", "--strategies", "random", "--threads", "0"], "--threads 0"),
    (["--players", "2", "--strategies", "random", "--deals", "ten"], "'--deals'"),
    (["--players", "2", "--strategies", "random", "--trace", "."], "is a directory"),
]


@pytest.mark.parametrize("args, message", BAD_INPUTS)
def test_bad_input_gets_one_line_exit_2_and_writes_nothing(tmp_path, monkeypatch, args, message):
    if "--deals" not in args:
        args = [*args, "--deals", "10"]
    monkeypatch.chdir(tmp_path)  # in this process: the same main() a fresh one runs, without its start
    code, out, err = run_here("simulate", *args, "--seed", "1")
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert message in lines[0]
    assert "Traceback" not in err and out == ""
    assert list(tmp_path.iterdir()) == []


def test_existing_output_is_refused_and_left_untouched(tmp_path):
    out = tmp_path / "keep.parquet"
    out.write_bytes(b"precious")
    code, _, err = simulate("--players", "2", "--strategies", "random", "--deals", "10", "--seed", "1",
                            "--out", str(out))  # fmt: skip
    assert code == 2 and "--overwrite" in err
    assert out.read_bytes() == b"precious"
    code, _, err = simulate("--players", "2", "--strategies", "random", "--deals", "10", "--seed", "1",
                            "--out", str(out), "--overwrite", "--quiet")  # fmt: skip
    assert code == 2 and "is not a file briscola wrote" in err  # --overwrite replaces only briscola's own files
    assert out.read_bytes() == b"precious"
    out.unlink()
    for deals in ("10", "20"):  # a result file of its own is replaced
        code, _, _ = simulate("--players", "2", "--strategies", "random", "--deals", deals, "--seed", "1",
                              "--out", str(out), "--overwrite", "--quiet")  # fmt: skip
        assert code == 0 and len(pd.read_parquet(out)) == int(deals)


def test_help_lists_the_simulate_options():
    result = run_here("simulate", "--help")
    assert result.returncode == 0
    for option in (
        "--players",
        "--strategies",
        "--deals",
        "--seed",
        "--threads",
        "--out",
        "--trace",
        "--rule",
        "--summary-only",
        "--overwrite",
        "--json",
        "--quiet",
    ):
        assert option in result.stdout


def test_result_files_do_not_depend_on_the_batches(tmp_path, monkeypatch):
    """Row groups have a fixed size: the data bytes of a file depend on its rows alone."""
    import sim.base.results

    monkeypatch.setattr(sim.base.results, "RESULT_ROW_GROUP", 500)
    files = []
    for size in (7, 1300):
        fixed_batches(monkeypatch, size)
        out = tmp_path / f"run{size}.parquet"
        code, _, _ = simulate("--players", "2", "--strategies", "greedy,random", "--deals", "2100", "--seed", "3",
                              "--out", str(out), "--quiet")  # fmt: skip
        assert code == 0
        files.append(out)
    assert data_bytes(files[0]) == data_bytes(files[1])
    import pyarrow.parquet as pq

    assert [pq.ParquetFile(files[0]).metadata.row_group(k).num_rows for k in range(5)] == [500] * 4 + [100]


RUNS = [
    ["simulate", "--players", "4", "--strategies", "greedy,random"],
    ["compare", "greedy", "random", "--players", "4"],
    ["tournament", "greedy", "random", "highest", "--players", "4"],
]


@pytest.mark.parametrize("run", RUNS, ids=lambda run: run[0])
def test_rules_are_in_every_default_name_summary_and_json(tmp_path, monkeypatch, run):
    """Two runs that differ by a rule get different default names, and every summary
    and JSON object says which rules (and seed) it was played with."""
    common = [*run, "--deals", "200", "--seed", "8", "--quiet"]
    monkeypatch.chdir(tmp_path)  # in this process: the same main() a fresh one runs, without its start
    plain = run_here(*common)
    ruled = run_here(*common, "--rule", "trump_redeal=ace-three", "--rule", "partner_view=none")
    assert plain[0] == ruled[0] == 0, plain[2] + ruled[2]
    assert "rules: trump_redeal=off, partner_view=last3, signals=none" in plain[1]
    assert "rules: trump_redeal=ace-three, partner_view=none, signals=none" in ruled[1]
    names = sorted(path.name for path in (tmp_path / "results").iterdir())
    assert len(set(names)) == 2
    assert names[1].endswith(
        "_trump_redeal=ace-three_partner_view=none" + ("" if run[0] == "tournament" else ".parquet")
    )
    if run[0] == "tournament":
        assert names[0].startswith("tournament_4p_greedy-random-highest_seed8_")
    as_json = json.loads(run_here(*common, "--rule", "trump_redeal=ace-three", "--summary-only", "--json")[1])
    assert as_json["seed"] == 8 and as_json["rules"] == {
        "trump_redeal": "ace-three",
        "partner_view": "last3",
        "signals": "none",
    }


def test_json_figures_are_rounded():
    code, stdout, _ = run_here("compare", "greedy", "random", "--deals", "300", "--seed", "1",
                               "--summary-only", "--json", "--quiet")  # fmt: skip
    row = json.loads(stdout)
    for key, digits in (("score", 6), ("los", 6), ("elo", 2), ("mean_margin", 4)):
        assert row[key] == round(row[key], digits)
    assert all(value == round(value, 6) for value in row["score_ci95"])


def test_missing_output_folders_are_made_once_the_input_is_good(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # in this process: the same main() a fresh one runs, without its start
    code, _, err = run_here("simulate", "--players", "2", "--strategies", "random", "--deals", "100", "--seed",
                            "1", "--quiet", "--out", "new/deeper/run.parquet", "--trace", "other/trace.parquet")  # fmt: skip
    assert code == 0, err
    assert len(pd.read_parquet(tmp_path / "new" / "deeper" / "run.parquet")) == 100
    assert len(pd.read_parquet(tmp_path / "other" / "trace.parquet")) == 100
    (tmp_path / "afile").write_text("")
    for args in (["--out", "afile/x.parquet"], ["--out", "fresh/x.parquet", "--deals", "0"]):
        code, _, err = run_here("simulate", "--players", "2", "--strategies", "random", "--deals", "10",
                                "--seed", "1", *args)  # fmt: skip
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert not (tmp_path / "fresh").exists()
    code, _, err = run_here("compare", "greedy", "random", "--deals", "10", "--seed", "1", "--out",
                            "afile/x.parquet")  # fmt: skip
    assert code == 2 and "afile is a file, not a directory" in err


COMMANDS = ["simulate", "compare", "tournament", "report", "diff", "strategies", "check"]


def test_version_and_short_help_and_python_dash_m(tmp_path):
    import tomllib

    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert run_cli("--version", env={"PYTHONPATH": str(REPO)}).stdout.strip() == f"briscola {version}"
    for name in ("simulate", "compare"):
        short, long = (run_cli(name, flag, env={"PYTHONPATH": str(REPO)}) for flag in ("-h", "--help"))
        assert short.returncode == 0 and short.stdout == long.stdout
    as_module = subprocess.run([sys.executable, "-m", "sim", "--version"], capture_output=True, text=True,
                               env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=tmp_path)  # fmt: skip
    assert as_module.returncode == 0 and as_module.stdout.strip() == f"briscola {version}"


@pytest.mark.parametrize("command", COMMANDS)
def test_help_pages_fit_80_columns_without_artefacts(command):
    page = run_cli(command, "--help", env={"PYTHONPATH": str(REPO), "COLUMNS": "80", "TERM": "dumb"}).stdout
    for artefact in ("<bool>", "<list", "<str>", "<int>", "<path>", "{", "…", "--no-"):
        assert artefact not in page, (artefact, page)
    assert max(map(len, page.splitlines())) <= 80


def test_the_command_list_gives_each_command_one_summary_and_speeds_read_below_one_hundred():
    """A docstring's later lines must not spill into ``briscola --help``, and a slow run's
    speed is not rounded to '1 deals/s'."""
    from sim.pipeline.kinds.words import rate as _rate

    page = run_cli("--help", env={"PYTHONPATH": str(REPO), "COLUMNS": "80", "TERM": "dumb"}).stdout
    commands = page[page.index("Commands") :]
    assert "audited" not in commands and "Exit code" not in commands
    assert [_rate(r) for r in (0.8, 1.4, 27.25, 99.9, 1234.5)] == ["0.8", "1.4", "27.2", "99.9", "1,234"]


def test_shell_completion_is_typers():
    # --show-completion takes no value: typer asks which shell runs the command, so it runs
    # under bash here, as from a user's prompt (a run with no shell among its parents, a
    # backgrounded one, got "Shell  not supported")
    line = f"{shlex.quote(sys.executable)} -m sim.app.cli --show-completion; exit $?"  # two commands: bash stays
    shown = subprocess.run(["bash", "-c", line],
                           cwd=REPO, capture_output=True, text=True, timeout=300,
                           env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
    assert shown.returncode == 0 and "_BRISCOLA_COMPLETE" in shown.stdout
    completing = run_cli(env={"PYTHONPATH": str(REPO), "_BRISCOLA_COMPLETE": "complete_bash",
                              "COMP_WORDS": "briscola simulate --str", "COMP_CWORD": "2"})  # fmt: skip
    assert completing.stdout.split() == ["--strategies", "--strategy-file"]


@pytest.mark.parametrize("text, count", [("1000000", 10**6), ("1_000_000", 10**6), ("1e6", 10**6), ("2.5e3", 2500)])
def test_counts_are_read_as_people_write_them(text, count):
    from sim.app.cli import parse_count

    assert parse_count(text) == count


def test_counts_that_are_not_whole_are_refused():
    for text in ("1.5", "1e-3", "ten", "1e6x", "nan"):
        code, _, err = simulate("--players", "2", "--strategies", "random", "--deals", text, "--seed", "1")
        assert code == 2 and f"'{text}' is not a whole number" in err
    for text in ("1e400", "1e999999999"):  # read exactly, but no count comes near
        code, _, err = simulate("--players", "2", "--strategies", "random", "--deals", text, "--seed", "1")
        assert code == 2 and f"'{text}' is too large" in err
    code, stdout, _ = simulate("--players", "2", "--strategies", "random", "--deals", "1e3", "--seed", "1",
                               "--summary-only", "--json", "--quiet")  # fmt: skip
    assert code == 0 and json.loads(stdout)["deals"] == 1000


def test_a_spaced_strategy_list_gets_the_comma_suggested():
    code, _, err = simulate("--players", "4", "--strategies", "greedy", "random", "--deals", "10", "--seed", "1")
    assert code == 2 and "--strategies greedy,random" in err and len(err.strip().splitlines()) == 1


def test_threads_above_the_cores_are_said_on_stderr():
    from sim.base.config import default_threads

    too_many = str(default_threads() + 3)
    code, stdout, err = simulate("--players", "2", "--strategies", "random", "--deals", "10", "--seed", "1",
                                 "--threads", too_many, "--summary-only", "--json")  # fmt: skip
    assert code == 0 and json.loads(stdout)["deals"] == 10
    assert f"--threads {too_many} is more than the {default_threads()} cores here" in err


def test_a_run_and_help_do_not_import_what_they_do_not_need(tmp_path):
    """pandas (a quarter of a second) is for reading results, not for running."""
    probe = ("import sys; from sim.app.cli import main; code = main(sys.argv[1:]); "
             "print(code, 'pandas' in sys.modules, 'numba' in sys.modules)")  # fmt: skip
    run = [
        "simulate",
        "--players",
        "3",
        "--strategies",
        "greedy,random,random",
        "--deals",
        "1000",
        "--seed",
        "1",
        "--quiet",
    ]
    runs = (
        (["--help"], False),
        ([*run, "--out", "a.parquet"], True),
        ([*run, "--out", "b.parquet", "--trace", "t.parquet"], True),
    )
    for args, numba_expected in runs:
        result = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, cwd=tmp_path,
                                env={**os.environ, "PYTHONPATH": str(REPO)})  # fmt: skip
        assert result.stdout.split()[-3:] == ["0", "False", str(numba_expected)], result.stderr


def test_wide_tables_keep_every_figure_on_a_narrow_terminal():
    """Mixed teams with long names, on a 60-column terminal: nothing is cut short."""
    run = ["simulate", "--players", "6", "--strategies", "highest,greedy,lowest,random,random,greedy",
           "--deals", "300", "--seed", "1", "--summary-only"]  # fmt: skip
    result = run_here(*run, env={"COLUMNS": "60"})
    assert result.returncode == 0 and "…" not in result.stdout
    assert "highest+lowest+random" in result.stdout and "win rate" in result.stdout
    summary = json.loads(run_here(*run, "--json").stdout)
    assert all(f"{side['wins']:,}" in result.stdout for side in summary["sides"])


def test_out_may_name_a_folder_for_the_default_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # in this process: the same main() a fresh one runs, without its start
    for out in ("fresh/", "fresh"):  # a folder to make, then one that exists
        code, _, err = run_here("simulate", "--players", "2", "--strategies", "random", "--deals", "10",
                                "--seed", str(len(out)), "--out", out, "--quiet")  # fmt: skip
        assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "fresh").iterdir()) == ["2p_random-random_seed5_10deals.parquet",
                                                                      "2p_random-random_seed6_10deals.parquet"]  # fmt: skip
    code, _, err = run_here("tournament", "greedy", "random", "--deals", "10", "--seed", "1", "--out", "study/",
                            "--quiet")  # fmt: skip
    assert code == 0, err
    assert (tmp_path / "study" / "tournament_2p_greedy-random_seed1_10deals" / "_tournament.json").exists()


def test_more_bad_input_gets_one_line_and_exit_2(tmp_path, monkeypatch):
    cases = [
        (["simulate", "--players", "2", "--strategies", "random", "--out", "/proc/x.parquet"], "cannot write in /proc"),
        (["compare", "greedy", "random", "--alpha", "0.1"], "give them with --sprt"),
        (["simulate", "--players", "2", "--strategies", "random", "--rule", "trump_redeal=ace-three", "--rule",
          "trump_redeal=off"], "rule trump_redeal is given twice"),
    ]  # fmt: skip
    monkeypatch.chdir(tmp_path)
    for args, message in cases:
        code, _, err = run_here(*args, "--deals", "10", "--seed", "1")
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, (args, err)
        assert list(tmp_path.iterdir()) == []


def test_notes_count_matches_and_seeds_read_like_counts(tmp_path):
    out = tmp_path / "m.parquet"
    code, stdout, err = simulate("--players", "2", "--strategies", "greedy,random", "--deals", "300", "--seed", "1e3",
                                 "--match", "best-of-3", "--out", str(out), "--json")  # fmt: skip
    assert code == 0 and json.loads(stdout)["seed"] == 1000
    assert f"wrote {out}: 300 best-of-3 matches, complete" in err


def test_temporary_files_of_killed_runs_are_cleared(tmp_path):
    out = tmp_path / "run.parquet"
    from sim.base.files import host_tag

    dead, alive = tmp_path / ".run.parquet.999999999.tmp", tmp_path / f".run.parquet.{os.getpid()}1.tmp"
    dead_now = tmp_path / f".run.parquet.{host_tag()}-999999999-0123abcd.tmp"  # today's names
    elsewhere = tmp_path / ".run.parquet.00000000-999999999-0123abcd.tmp"  # another machine's: may be running
    mine = tmp_path / ".run.parquet.notes.tmp"  # not a name briscola gives
    for path in (dead, alive, dead_now, elsewhere, mine):
        path.write_text("left by someone")
    code, _, _ = simulate("--players", "2", "--strategies", "random", "--deals", "10", "--seed", "1",
                          "--out", str(out), "--quiet")  # fmt: skip
    assert code == 0 and not dead.exists() and not dead_now.exists() and out.exists()
    assert elsewhere.exists() and mine.exists()
    assert alive.exists() == os.path.exists(f"/proc/{os.getpid()}1")  # a live process keeps its file


@pytest.mark.parametrize("threads", ["1", "2"])
def test_an_exception_raised_in_a_strategy_is_one_line_naming_it_and_nothing_is_kept(tmp_path, threads):
    out = tmp_path / "run.parquet"
    result = run_cli("simulate", "--strategy-file", str(REPO / "tests" / "raising_strategy.py"), "--players", "2",
                     "--strategies", "raiser,random", "--deals", "50", "--seed", "1", "--threads", threads,
                     "--out", str(out))  # fmt: skip
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1] == (
        "briscola: error: a strategy raised StrategyError: raiser gives up at trick 3"
    )
    assert not out.exists() and list(tmp_path.glob(".*.tmp")) == []
