"""Studies (``briscola batch``): plans checked before anything runs, chunks equal to the
commands' own rows, resume after a crash, and the same dataset on a real Dask cluster
with a worker killed mid-run."""

from __future__ import annotations

import functools
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import sim
from tests.helpers import OUTSIDER, REPO, SLOW_FILE, dataset, dying_worker, run_cli, run_here

PLAN = """
seed = 11

[[simulate]]
name = "teams"
players = 4
strategies = ["greedy", "random"]
deals = 6000
rules = { trump_redeal = "ace-three" }

[[compare]]
name = "duel"
a = ["expert", "hoarder"]
b = "greedy"
deals = 3000
sprt = [0, 40]

[[compare]]
name = "three"
a = "greedy"
b = "random"
players = 3
deals = 900
match = "best-of-3"

[[tournament]]
name = "league"
strategies = ["random", "greedy", "highest"]
deals = 1500
"""


def write_plan(folder: Path, text: str = PLAN) -> Path:
    path = folder / "plan.toml"
    path.write_text(text)
    return path


def batch(folder: Path, *args):
    """``briscola batch plan.toml ARGS`` in ``folder``, in this process."""
    return run_here("batch", "plan.toml", *args, cwd=folder)


def dask_batch(folder: Path, *args, env):
    """The same in a fresh process, whose Dask reads its configuration from ``env``."""
    return run_cli("batch", "plan.toml", *args, cwd=folder, env={"PYTHONPATH": str(REPO), **env})


def summaries(study: Path) -> dict:
    """Every experiment's summary, less its timings, as ``briscola status --json`` prints
    them."""
    shown = run_here("status", study, "--json")
    assert shown.returncode == 0, shown.stderr
    outcome = json.loads(shown.stdout)
    return {e["name"]: {k: v for k, v in (e["summary"] or {}).items() if k not in ("seconds", "deals_per_second")}
            for e in outcome["experiments"]}  # fmt: skip


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The plan's study run at once on this machine, in chunks of 1,000."""
    folder = tmp_path_factory.mktemp("reference")
    write_plan(folder)
    result = batch(folder, "--out", "study", "--chunk-deals", "1000", "--json", "--quiet")
    assert result.returncode == 0, result.stderr
    return folder / "study", json.loads(result.stdout)


def test_a_study_holds_what_each_command_writes(reference, tmp_path):
    study, outcome = reference
    assert outcome["status"] == "complete"
    names = [e["name"] for e in outcome["experiments"]]
    assert names == ["teams", "duel/a=expert", "duel/a=hoarder", "three", "league"]
    env = {"PYTHONPATH": str(REPO)}
    commands = {
        "teams": ["simulate", "--players", "4", "--strategies", "greedy,random", "--deals", "6000", "--seed", "11",
                  "--rule", "trump_redeal=ace-three"],
        "duel/a=hoarder": ["compare", "hoarder", "greedy", "--deals", "3000", "--seed", "11", "--sprt", "0,40"],
        "three": ["compare", "greedy", "random", "--players", "3", "--deals", "900", "--seed", "11", "--match", "best-of-3"],
    }  # fmt: skip
    loaded = sim.load(study)
    for name, command in commands.items():
        out = tmp_path / f"{command[0]}-{len(list(tmp_path.iterdir()))}.parquet"
        ran = run_here(*command, "--out", str(out), "--json", "--quiet", env=env)
        assert ran.returncode == 0, ran.stderr
        printed = json.loads(ran.stdout)
        experiment = loaded.experiment(name)
        pd.testing.assert_frame_equal(
            experiment.deals.reset_index(drop=True), sim.read_results(out).deals, check_categorical=False
        )
        seats = sim.load(out).config["strategies"]  # the command's file: each seat's strategy and fingerprint
        assert experiment.config["fingerprints"] == {seat["name"]: seat["fingerprint"] for seat in seats}
        mine = {e["name"]: e for e in outcome["experiments"]}[name]["summary"]
        for key in printed:
            if key not in ("seconds", "deals_per_second"):
                assert mine[key] == printed[key], (name, key)
    league = loaded.experiment("league")
    tournament = json.loads(run_here("tournament", "random", "greedy", "highest", "--deals", "1500", "--seed", "11",
                                    "--summary-only", "--json", env=env).stdout)  # fmt: skip
    assert {e["name"]: e for e in outcome["experiments"]}["league"]["summary"] == tournament
    assert sorted(league.deals["pair"].astype(str).unique()) == ["0_1", "0_2", "1_2"]


def test_an_sprt_stops_where_the_command_stops_whatever_the_chunks(reference, tmp_path):
    study, outcome = reference
    duel = {e["name"]: e for e in outcome["experiments"]}["duel/a=expert"]["summary"]
    printed = json.loads(run_here("compare", "expert", "greedy", "--deals", "3000", "--seed", "11", "--sprt", "0,40",
                                 "--summary-only", "--json", env={"PYTHONPATH": str(REPO)}).stdout)  # fmt: skip
    assert duel == printed and printed["deals"] < 3000  # decided early
    write_plan(tmp_path)
    result = batch(tmp_path, "--out", "coarse", "--chunk-deals", "2500", "--quiet")  # a decision inside a chunk
    assert result.returncode == 0, result.stderr
    pd.testing.assert_frame_equal(dataset(tmp_path / "coarse"), dataset(study))
    assert summaries(tmp_path / "coarse") == summaries(study)


def test_summary_only_keeps_exact_summaries_and_no_rows(reference, tmp_path):
    study, _ = reference
    write_plan(tmp_path)
    result = batch(tmp_path, "--out", "light", "--chunk-deals", "700", "--summary-only", "--quiet")
    assert result.returncode == 0, result.stderr
    assert not list((tmp_path / "light").rglob("*.parquet"))
    assert summaries(tmp_path / "light") == summaries(study)


def start_batch(folder: Path, *args, env=None) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "sim.app.cli", "batch", "plan.toml", *args], cwd=folder,
                            env={**os.environ, "PYTHONPATH": str(REPO), **(env or {})},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip


def test_a_study_killed_at_a_random_point_resumes_to_the_same_dataset(reference, tmp_path):
    study, _ = reference
    write_plan(tmp_path)
    process = start_batch(tmp_path, "--out", "study", "--chunk-deals", "300", "--quiet")
    # A random point, the same on every run of the test: after some of its 80 or so chunks are
    # recorded, then a fraction of a chunk more. Counting chunks, not seconds, keeps the
    # point well before the end on a machine of any speed.
    chance = random.Random(7)
    recorded, extra = chance.randint(3, 15), chance.uniform(0, 0.05)
    deadline = time.monotonic() + 120
    while len(list((tmp_path / "study").rglob("_chunks/*.json"))) < recorded:
        assert time.monotonic() < deadline and process.poll() is None, "the study never got going"
        time.sleep(0.01)
    time.sleep(extra)
    assert process.poll() is None, "the study ended before it could be killed"
    process.kill()
    process.communicate()
    assert process.returncode == -signal.SIGKILL
    partial = sim.load(tmp_path / "study")
    assert partial.partial  # readable at once, and says what is missing
    result = batch(tmp_path, "--out", "study", "--resume", "--quiet")
    assert result.returncode == 0, result.stderr
    pd.testing.assert_frame_equal(dataset(tmp_path / "study"), dataset(study))
    assert summaries(tmp_path / "study") == summaries(study)
    assert not list((tmp_path / "study").rglob(".*.tmp"))
    lost = sorted((tmp_path / "study").rglob("part-*.parquet"))[5]
    lost.unlink()  # a chunk's rows gone: played again
    result = batch(tmp_path, "--out", "study", "--resume", "--quiet")
    assert result.returncode == 0 and lost.exists()
    pd.testing.assert_frame_equal(dataset(tmp_path / "study"), dataset(study))


def test_resume_refuses_a_changed_plan_and_a_study_is_not_overwritten(reference, tmp_path):
    write_plan(tmp_path)
    assert batch(tmp_path, "--out", "study", "--chunk-deals", "1000", "--quiet").returncode == 0
    again = batch(tmp_path, "--out", "study", "--quiet")
    assert again.returncode == 2 and "pass --resume" in again.stderr
    write_plan(tmp_path, PLAN.replace("deals = 6000", "deals = 7000"))
    changed = batch(tmp_path, "--out", "study", "--resume", "--quiet")
    assert changed.returncode == 2 and len(changed.stderr.strip().splitlines()) == 1
    assert "experiment 'teams': deals 6000 -> 7000" in changed.stderr


BAD_PLANS = [
    ("seed = 1\n[[simulation]]\nname = 'x'\n", "unknown key or section 'simulation'"),
    (
        "seed = 1\n[[simulate]]\nname = 'x'\nplayers = 2\nstrategies = ['greedy']\ndeals = 10\ncolour = 'red'\n",
        "[[simulate]] entry 1 ('x'): unknown key 'colour'; valid keys: name, players",
    ),
    ("seed = 1\n[[compare]]\nname = 'x'\na = 'greedy'\ndeals = 10\n", "[[compare]] entry 1 ('x'): key 'b' is missing"),
    ("[[compare]]\nname = 'x'\na = 'greedy'\nb = 'random'\ndeals = 10\n", "key 'seed' is missing"),
    (
        "seed = 1\n[[compare]]\nname = 'x'\na = 'greedy'\nb = 'nosuch'\ndeals = 10\n",
        "key 'b': unknown strategy 'nosuch'; valid strategies: best, expert",
    ),
    (
        "seed = 1\n[[compare]]\nname = 'x'\na = 'pimc:samples=0'\nb = 'random'\ndeals = 10\n",
        "out of range; valid: int in [1, 4096]",
    ),
    (
        "seed = 1\n[[simulate]]\nname = 'x'\nplayers = 2\nstrategies = ['greedy']\ndeals = 10\nrules = { colour = 'red' }\n",
        "key 'rules': unknown rule 'colour'",
    ),
    (
        "seed = 1\n[[simulate]]\nname = 'x'\nplayers = 2\nstrategies = ['greedy']\ndeals = 10\nrules = { partner_view = 'none' }\n",
        "applies to 4, 6 players only",
    ),
    (
        "seed = 1\n[[simulate]]\nname = 'x'\nplayers = [2, 7]\nstrategies = ['greedy']\ndeals = 10\n",
        "key 'players': --players 7 is not a Briscola table; valid: 2, 3, 4, 5, 6",
    ),
    (
        "seed = 1\n[[simulate]]\nname = 'x'\nplayers = 2\nstrategies = ['greedy']\ndeals = 0\n",
        "key 'deals': --deals 0 must be between 1 and 2**62",
    ),
    ("seed = 1\n[[compare]]\nname = 'x'\na = 'greedy'\nb = 'random'\ndeals = 10\nsprt = [10, 0]\n", "key 'sprt'"),
    ("seed = 1\n[[compare]]\nname = 'x'\na = 'greedy'\nb = 'random'\ndeals = 10\nmatch = 'best-of-4'\n", "key 'match'"),
    (
        "seed = 1\n[[compare]]\nname = 'x'\na = 'greedy'\nb = 'random'\ndeals = 10\n[[tournament]]\nname = 'x'\n"
        "strategies = ['greedy', 'random']\ndeals = 10\n",
        "the experiment name 'x' is used twice",
    ),
    ("seed = 1\n[[compare]]\nname = 'x/y'\na = 'greedy'\nb = 'random'\ndeals = 10\n", "must be letters, digits"),
    ("seed = 1\n[[compare]]\nname = 'x'\na = []\nb = 'random'\ndeals = 10\n", "an empty list gives no experiment"),
    ("seed = 1\n[[compare]\n", "is not valid TOML"),
    ("seed = 1\n", "the plan has no experiment"),
    ("seed = 1\n[[compare]]\nname = 'x'\na = 5\nb = 'random'\ndeals = 10\n", "key 'a': 5 is not a strategy (a string)"),
    (
        "seed = 1\n[[compare]]\nname = 'x'\na = 'greedy'\nb = 'random'\ndeals = 10\nalpha = 'x'\n",
        "key 'alpha': 'x' is not a number",
    ),
    (
        "seed = 1\n[[simulate]]\nname = 'x'\nplayers = 2\nstrategies = 5\ndeals = 10\n",
        "key 'strategies': 5 is not a list",
    ),
    (
        "seed = 1\n[[simulate]]\nname = 'x'\nplayers = 2\nstrategies = 'greedy'\ndeals = 10\nrule = 'trump_redeal=off'\n",
        "key 'rule': 'trump_redeal=off' is not a list",
    ),
    (
        "seed = 1\n[[simulate]]\nname = 'x'\nplayers = 2\nstrategies = 'greedy'\ndeals = 1.5\n",
        "key 'deals': '1.5' is not a whole number",
    ),
    (
        "seed = 1\n[[simulate]]\nname = 'x'\nplayers = 2\nstrategies = 'greedy'\ndeals = 10\ntrace = 'yes'\n",
        "key 'trace': 'yes' is not true or false",
    ),
    (
        "seed = 1\n[[tournament]]\nname = 'x'\nstrategies = ['greedy', 'random']\ndeals = 10\nmatch = 'best-of-3'\n"
        "trace = true\n",
        "a tournament keeps traces deal by deal, not with --match best-of-3",
    ),
    (
        "seed = 1\n[[compare]]\nname = 'x'\na = 'greedy'\nb = 'random'\ndeals = 10\nmatch = 'best-of-3'\ntrace = true\n",
        "keeps traces deal by deal",
    ),
]


@pytest.mark.parametrize("text, message", BAD_PLANS)
def test_a_bad_plan_gets_one_line_naming_the_plan_entry_and_key_and_writes_nothing(tmp_path, monkeypatch,
                                                                                   text, message):  # fmt: skip
    write_plan(tmp_path, text)
    monkeypatch.chdir(tmp_path)  # in this process: the same main() a fresh one runs, without its start
    code, _, err = run_here("batch", "plan.toml", "--out", "study")
    assert code == 2 and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "plan.toml" in lines[0] and message in lines[0], err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.toml"]


def test_backend_options_are_checked(tmp_path, monkeypatch):
    write_plan(tmp_path)
    monkeypatch.chdir(tmp_path)
    for args, message in ((["--backend", "spark"], "is not a backend"), (["--workers", "2"], "are for --backend dask"),
                          (["--backend", "dask"], "--scheduler ADDRESS (a running cluster) or --workers N")):  # fmt: skip
        code, _, err = run_here("batch", "plan.toml", "--out", "study", *args)
        assert code == 2 and message in err and not (tmp_path / "study").exists(), err


@pytest.mark.slow  # a Dask fault: workers or a scheduler killed and waited for; CI runs it (-m slow)
def test_a_local_dask_cluster_gives_the_same_study_even_when_a_worker_dies(reference, tmp_path):
    study, _ = reference
    write_plan(tmp_path)
    kill = dying_worker("teams|2000", once=tmp_path / "killed")  # its worker dies the first time it plays it
    result = dask_batch(tmp_path, "--out", "dask", "--chunk-deals", "1000", "--backend", "dask", "--workers", "2",
                        "--json", env=kill)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "killed").read_text().startswith("briscola-chunk|teams|part-000000002000|")  # a worker died
    assert "a Dask worker left the cluster" in result.stderr  # and the run said so
    pd.testing.assert_frame_equal(dataset(tmp_path / "dask"), dataset(study))
    assert summaries(tmp_path / "dask") == summaries(study)
    status = json.loads(run_here("status", "dask", "--json", env={"PYTHONPATH": str(REPO)}, cwd=tmp_path).stdout)
    assert status == json.loads(result.stdout)  # status prints what batch printed


@pytest.mark.slow  # a Dask fault: workers or a scheduler killed and waited for; CI runs it (-m slow)
def test_a_chunk_dask_gives_up_on_ends_the_run_resumably(reference, tmp_path):
    study, _ = reference
    write_plan(tmp_path)
    always = {
        **dying_worker("league|1000"),  # its worker dies every time it plays it
        "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "1",  # and Dask gives up on its second death
    }
    failed = dask_batch(
        tmp_path, "--out", "dask", "--chunk-deals", "1000", "--backend", "dask", "--workers", "2", "--quiet", env=always
    )
    assert failed.returncode == 1 and "Traceback" not in failed.stderr
    assert "league" in failed.stderr and len(failed.stderr.strip().splitlines()) == 1
    assert failed.stderr.strip().endswith(
        "to finish the study: briscola batch plan.toml --out dask --resume --backend dask --workers 2"
    )  # resumed where it ran
    # Dask also gives up on a chunk that was waiting on the dying worker each time, so
    # another experiment may be left partial too: which one depends on timing.
    assert "league" in sim.load(tmp_path / "dask").partial
    resumed = batch(tmp_path, "--out", "dask", "--resume", "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    pd.testing.assert_frame_equal(dataset(tmp_path / "dask"), dataset(study))


def test_the_commands_run_on_dask_as_one_experiment_studies(tmp_path):
    env = {"PYTHONPATH": str(REPO)}
    command = ["compare", "expert", "greedy", "--players", "3", "--deals", "1500", "--seed", "3", "--json", "--quiet"]
    here = json.loads(run_here(*command, "--summary-only", env=env, cwd=tmp_path).stdout)
    there = run_cli(*command, "--backend", "dask", "--workers", "2", env=env, cwd=tmp_path)
    assert there.returncode == 0, there.stderr
    assert json.loads(there.stdout) == here
    study = sim.load(tmp_path / "results" / "compare_3p_expert-vs-greedy_seed3_1500deals")
    assert study.names == ["compare"] and not study.partial and len(study.deals) == 3 * 1500
    # report and diff read it as the command's own file: the same games, deal by deal
    folder = tmp_path / "results" / "compare_3p_expert-vs-greedy_seed3_1500deals"
    local = run_here(*command[:-2], "--out", "here.parquet", "--quiet", env=env, cwd=tmp_path)
    assert local.returncode == 0, local.stderr
    diff = json.loads(run_here("diff", str(folder), "here.parquet", "--json", env=env, cwd=tmp_path).stdout)
    assert diff["units"] == 1500 and diff["score"]["difference"] == 0 and diff["score"]["correlation"] == 1
    report = run_here("report", str(folder), "--json", env=env, cwd=tmp_path)
    assert report.returncode == 0 and json.loads(report.stdout)["summary"] == here, report.stderr


def test_report_and_diff_refuse_a_study_of_several_experiments_in_one_line(reference, tmp_path):
    study, _ = reference
    for args in (["report", str(study)], ["diff", str(study), str(study)]):
        refused = run_here(*args, env={"PYTHONPATH": str(REPO)}, cwd=tmp_path)
        assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
        assert "a study of" in refused.stderr and ".experiment(NAME)" in refused.stderr


def test_the_documented_study_plan_reads_as_the_docs_say():
    from sim.pipeline.plan import read_plan

    plan = read_plan(REPO / "examples" / "pimc-study.toml")
    names = [experiment.name for experiment in plan.experiments]
    assert names == ["baseline-4p", "pimc-vs-expert/a=pimc:samples=16,players=2", "pimc-vs-expert/a=pimc:samples=16,players=4",
                     "pimc-vs-expert/a=pimc:samples=64,players=2", "pimc-vs-expert/a=pimc:samples=64,players=4",
                     "rule-based-2p"]  # fmt: skip
    docs = (REPO / "docs" / "studies.md").read_text()
    assert all(f"| {name} |" in docs for name in names)


@pytest.mark.parametrize("plan_file", sorted((REPO / "examples").glob("*.toml")) + sorted((REPO / "benchmarks").glob("*.toml")),
                         ids=lambda path: f"{path.parent.name}/{path.name}")  # fmt: skip
def test_every_shipped_plan_reads(plan_file):
    # A plan's mistake (an unknown parameter, a table a strategy does not play) would
    # otherwise show only when someone runs it, possibly after hours of other experiments.
    from sim.pipeline.plan import read_plan

    plan = read_plan(plan_file)
    assert plan.experiments and all(experiment.config.deals > 0 for experiment in plan.experiments)


def wait_for_records(folder: Path, process: subprocess.Popen, at_least: int) -> None:
    deadline = time.monotonic() + 120
    while len(list(folder.rglob("_chunks/*.json"))) < at_least:
        assert time.monotonic() < deadline and process.poll() is None, "the study never got going"
        time.sleep(0.05)


@pytest.mark.parametrize("stop, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_or_sigterm_stops_a_study_which_then_resumes_to_the_same_dataset(reference, tmp_path, stop, code):
    from sim.base.interrupt import STUDY_STOPPING

    study, _ = reference
    write_plan(tmp_path)
    process = start_batch(tmp_path, "--out", "study", "--chunk-deals", "200")
    wait_for_records(tmp_path / "study", process, 2)
    process.send_signal(stop)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == code and "Traceback" not in stderr, stderr
    said = STUDY_STOPPING.removeprefix("briscola: ")
    assert (said if stop == signal.SIGINT else said.split(" (Ctrl-C again")[0]) in stderr
    assert "continue it with briscola batch plan.toml --out study --resume" in stderr  # the way on, said
    assert (stdout + stderr).count("briscola batch") == 1  # once: not a second, other command in the table
    assert sim.load(tmp_path / "study").partial
    assert batch(tmp_path, "--out", "study", "--resume", "--quiet").returncode == 0
    pd.testing.assert_frame_equal(dataset(tmp_path / "study"), dataset(study))


SLOW_PLAN = """
seed = 5
strategy_files = ["{slow}"]

[[compare]]
name = "slow"
a = "slow:seconds=0.01"
b = "random"
deals = 30
"""


def test_a_study_is_run_by_one_process_at_a_time(tmp_path):
    # Every decision of A takes 10 ms, so each 3-deal chunk takes about a second: the
    # first process is surely still running when the second one asks, on any machine.

    write_plan(tmp_path, SLOW_PLAN.format(slow=SLOW_FILE))
    process = start_batch(tmp_path, "--out", "study", "--chunk-deals", "3", "--quiet")
    wait_for_records(tmp_path / "study", process, 1)
    second = batch(tmp_path, "--out", "study", "--resume", "--quiet")
    assert process.poll() is None, "the first process ended before the second asked"
    assert second.returncode == 2 and "is being run by another briscola process" in second.stderr
    process.communicate(timeout=300)
    assert process.returncode == 0  # the second one touched nothing
    deals = sim.load(tmp_path / "study").experiment("slow").deals
    assert sorted(deals["deal"].unique()) == list(range(30)) and len(deals) == 60


def _study_of_a_plug_in_then_edited(tmp_path):
    """A complete study of the plug-in edge_file.py, which is then edited."""
    (tmp_path / "edge_file.py").write_text(OUTSIDER)
    write_plan(
        tmp_path,
        'seed = 2\nstrategy_files = ["edge_file.py"]\n[[compare]]\nname = "edge"\na = "edge"\nb = "random"\ndeals = 300\n',
    )
    assert batch(tmp_path, "--out", "study", "--chunk-deals", "100", "--quiet").returncode == 0
    (tmp_path / "edge_file.py").write_text(OUTSIDER + "\n# edited\n")


def test_an_edited_plug_in_is_a_changed_plan(tmp_path):
    _study_of_a_plug_in_then_edited(tmp_path)
    again = batch(tmp_path, "--out", "study", "--resume", "--quiet")
    assert again.returncode == 2 and "experiment 'edge': a --strategy-file's contents changed" in again.stderr
    assert "changed since it began" in again.stderr and "restore the plan" not in again.stderr  # it did not change


def test_status_says_what_a_study_plays_changed_since_it_began(tmp_path):
    """status of a study whose plug-in changed since it began says so, and offers no
    --resume command that would be refused (it said complete, or offered one)."""
    _study_of_a_plug_in_then_edited(tmp_path)
    status = functools.partial(run_cli, "status", "study", cwd=tmp_path, env={"PYTHONPATH": str(REPO)})
    shown = status()
    assert shown.returncode == 0, shown.stderr
    assert "complete with what it began with; what it plays changed since" in " ".join(shown.stdout.split())
    assert "changed since it began: experiment 'edge': a --strategy-file's contents changed" in shown.stdout
    changed = json.loads(status("--json").stdout)["changed"]
    assert "experiment 'edge': a --strategy-file's contents changed (restore the file, or start a new study)" in changed
    (tmp_path / "edge_file.py").write_text(OUTSIDER)  # restored: nothing to say
    assert json.loads(status("--json").stdout)["changed"] == []


def test_chunks_recorded_in_any_order_give_the_same_study(tmp_path):
    """Out-of-order completion (Dask) with an SPRT: chunks past its decision, recorded
    before it was known, are dropped; the study ends as when recorded in order."""
    from sim.pipeline.chunks import run_chunk
    from sim.pipeline.plan import read_plan
    from sim.pipeline.study import Study, read_outcome

    plan = read_plan(write_plan(tmp_path, 'seed = 11\n[[compare]]\nname = "duel"\na = "expert"\nb = "greedy"\n'
                                          'deals = 3000\nsprt = [0, 40]\n'))  # fmt: skip
    outcomes = []
    for folder, order in (("forward", 1), ("backward", -1)):
        study = Study.open(tmp_path / folder, plan, rows=True, resume=False, chunk_units=1000, threads=None)
        results = [run_chunk(experiment, chunk, rows=True) for experiment, chunk in study.pending()][::order]
        for result in results:
            study.record(result)
        study.close()
        outcome = read_outcome(tmp_path / folder)
        outcome["experiments"][0]["summary"].pop("seconds", None)
        outcomes.append(
            {
                **outcome,
                "out": None,
                "experiments": [{**e, "seconds": None, "seconds_per_unit": None} for e in outcome["experiments"]],
            }
        )
    assert outcomes[0] == outcomes[1] and outcomes[0]["experiments"][0]["summary"]["deals"] < 3000
    pd.testing.assert_frame_equal(dataset(tmp_path / "forward"), dataset(tmp_path / "backward"))


def test_chunk_sizes_do_not_count_compiling(monkeypatch):
    """The first call of a run compiles its kernels (seconds, with a cold cache); sizing
    chunks must not mistake that for the speed of play."""
    import sim.pipeline.study
    from sim.pipeline.experiments import make_experiment

    calls = []

    def run_chunk(experiment, chunk, rows):
        time.sleep(2.0 if not calls else chunk.n * 1e-7)  # 10M deals/s once compiled
        calls.append(chunk.n)

    monkeypatch.setattr(sim.pipeline.study, "run_chunk", run_chunk)
    experiment = make_experiment("simulate", players=2, strategies="greedy,random", deals=20_000_000, seed=1)
    assert sim.pipeline.study.calibrate(experiment).units == sim.pipeline.study.MAX_CHUNK_UNITS


def test_status_says_whether_a_study_is_running(tmp_path):
    write_plan(tmp_path, SLOW_PLAN.format(slow=SLOW_FILE))  # chunks of about a second: still running when asked
    process = start_batch(tmp_path, "--out", "study", "--chunk-deals", "3", "--quiet")
    wait_for_records(tmp_path / "study", process, 1)
    running = json.loads(run_here("status", "study", "--json", env={"PYTHONPATH": str(REPO)}, cwd=tmp_path).stdout)
    assert process.poll() is None, "the study ended before status was asked"
    process.kill()
    process.communicate()
    stopped = json.loads(run_here("status", "study", "--json", env={"PYTHONPATH": str(REPO)}, cwd=tmp_path).stdout)
    assert running["running"] and not stopped["running"] and stopped["status"] == "partial"
    table = run_here("status", "study", env={"PYTHONPATH": str(REPO), "COLUMNS": "80"}, cwd=tmp_path).stdout
    assert max(map(len, table.splitlines())) <= 80
    # the plan it was run with (the copy in the folder would do too, but for plug-ins named relative to the plan)
    said = f"notrunning:resumeitwithbriscolabatch{tmp_path / 'plan.toml'}--outstudy--resume"
    assert said in "".join(table.split())  # (a long path is folded to the width)


def test_a_chiamata_study_keeps_every_column_of_its_commands(tmp_path):
    """A 5-player experiment's rows hold Briscola Chiamata's columns, as its command writes them."""
    write_plan(tmp_path, "seed = 4\n[[simulate]]\nname = 'five'\nplayers = 5\nstrategies = ['expert']\ndeals = 300\n"
                         "[[simulate]]\nname = 'two'\nplayers = 2\nstrategies = ['greedy']\ndeals = 300\n")  # fmt: skip
    assert batch(tmp_path, "--out", "study", "--quiet").returncode == 0
    five = sim.load(tmp_path / "study").experiment("five").deals
    out = tmp_path / "five.parquet"
    command = [
        "simulate",
        "--players",
        "5",
        "--strategies",
        "expert",
        "--deals",
        "300",
        "--seed",
        "4",
        "--out",
        str(out),
    ]
    assert run_here(*command, "--quiet", env={"PYTHONPATH": str(REPO)}).returncode == 0
    assert {"bid", "caller", "called", "partner", "game_points_4", "caller_strength"} <= set(five.columns)
    pd.testing.assert_frame_equal(five.reset_index(drop=True), sim.read_results(out).deals, check_categorical=False)


def test_a_resumed_study_runs_on_the_threads_asked_now_not_those_of_its_first_run(tmp_path):
    """Threads change no result: a study begun with --threads 1 (on Dask, say) and
    resumed here without --threads uses every core, as a new run would."""
    from sim.pipeline.plan import read_plan
    from sim.pipeline.study import Study

    plan = read_plan(write_plan(tmp_path))
    Study.open(tmp_path / "study", plan, True, False, 1000, 1).close()
    resumed = Study.open(tmp_path / "study", plan, True, True, None, None)
    try:
        assert [s.experiment.config.threads for s in resumed.states] == [e.config.threads for e in plan.experiments]
        assert all(e.config.threads > 1 for e in plan.experiments)  # this machine has 2 cores
    finally:
        resumed.close()
    again = Study.open(tmp_path / "study", plan, True, True, None, 1)
    assert {s.experiment.config.threads for s in again.states} == {1}
    again.close()


def test_a_batch_without_a_terminal_says_its_progress_in_lines(tmp_path):
    """A batch job's log (stderr not a terminal: no bar) gets a line at every tenth of the
    deals done, in order; --quiet, none."""
    write_plan(tmp_path, "seed = 3\n[[simulate]]\nname = 's'\nplayers = 2\nstrategies = ['greedy', 'random']\n"
               "deals = 5000\n")  # fmt: skip
    done = batch(tmp_path, "--out", "study", "--chunk-deals", "500")
    assert done.returncode == 0, done.stderr
    said = [int(line.split("(")[1].split("%")[0]) for line in done.stderr.splitlines() if "deals done" in line]
    assert said == list(range(10, 101, 10)), done.stderr
    quiet = batch(tmp_path, "--out", "quiet", "--chunk-deals", "500", "--quiet")
    assert quiet.returncode == 0 and "deals done" not in quiet.stderr


def test_status_shows_the_experiment_in_play_and_the_work_it_has_left(tmp_path):
    """Sized chunks measure every experiment: the one being played is ``playing``, with its
    work left from that measure (it was ``pending 0/1 ... ?``, its total "0s (and more)")."""
    write_plan(tmp_path, SLOW_PLAN.format(slow=SLOW_FILE).replace("[[compare]]", "[[simulate]]\nname = 'quick'\n"
               "players = 2\nstrategies = ['greedy']\ndeals = 100\n[[compare]]"))  # fmt: skip
    process = start_batch(tmp_path, "--out", "study", "--quiet")  # chunks sized: one of the 30 slow deals, ~10 s
    wait_for_records(tmp_path / "study", process, 1)  # the quick one done
    deadline = time.monotonic() + 60
    while True:
        seen = json.loads(run_here("status", "study", "--json", env={"PYTHONPATH": str(REPO)}, cwd=tmp_path).stdout)
        if seen["experiments"][1]["status"] == "playing" or time.monotonic() > deadline:
            break
    table = run_here("status", "study", env={"PYTHONPATH": str(REPO), "COLUMNS": "200"}, cwd=tmp_path).stdout
    assert process.poll() is None, "the study ended before status was asked"
    process.kill()
    process.communicate()
    slow = seen["experiments"][1]
    assert slow["status"] == "playing" and slow["units_done"] == 0 and slow["seconds_per_unit"] > 0
    row = next(line for line in table.splitlines() if line.startswith("│ slow"))
    assert " playing " in row and not row.rstrip(" │").endswith("?")
    assert "work left 0s" not in table and "not known" not in table
    stopped = json.loads(run_here("status", "study", "--json", env={"PYTHONPATH": str(REPO)}, cwd=tmp_path).stdout)
    assert stopped["experiments"][1]["status"] == "pending"  # killed: no run plays it now


def test_the_time_left_weighs_each_experiments_deals_by_their_cost(tmp_path, monkeypatch):
    """A cheap experiment played first, a dear one left: counting deals would say 1 s."""
    import sim.pipeline.study
    from sim.pipeline.plan import read_plan
    from sim.pipeline.study import Study, TimeLeft

    write_plan(tmp_path, "seed = 1\n[[simulate]]\nname = 'cheap'\nplayers = 2\nstrategies = ['greedy']\n"
               "deals = 9000\n[[simulate]]\nname = 'dear'\nplayers = 2\nstrategies = ['greedy']\ndeals = 1000\n")  # fmt: skip
    study = Study.open(tmp_path / "study", read_plan(tmp_path / "plan.toml"), rows=False, resume=False,
                       chunk_units=1000, threads=1)  # fmt: skip
    cheap, dear = study.states
    cheap.sized, dear.sized = 0.05, None  # seconds a deal: sizing overrates cheap ones; not sized (--chunk-deals)
    clock = [100.0]
    monkeypatch.setattr(sim.pipeline.study.time, "monotonic", lambda: clock[0])
    left = TimeLeft(study)
    clock[0] += 9.0
    left.add(9000, "cheap")
    clock[0] += 10.0
    left.add(100, "dear")  # seen: 0.1 s a deal (and the cheap one 0.001 s, not as sized)
    assert left.seconds() == pytest.approx(900 * 0.1 * 19 / (9000 * 0.001 + 100 * 0.1))  # 90 s, at this run's pace
    monkeypatch.undo()
    study.close()


GRID = """
seed = 3

[[compare]]
name = "grid"
a = ["greedy", "highest"]
b = "random"
deals = 200
rules = { trump_redeal = ["off", "ace-three"] }
match = ["deal", "best-of-3"]

[[simulate]]
name = "alone"
players = 2
strategies = "greedy"
deals = 100
"""


def test_a_studys_grid_factors_are_columns_of_its_frame(tmp_path):
    """No parsing of "grid/a=greedy,trump_redeal=off,match=deal": the factors are data."""
    write_plan(tmp_path, GRID)
    assert batch(tmp_path, "--out", "study", "--quiet").returncode == 0
    study = sim.load(tmp_path / "study")
    factors = study.factors
    assert list(factors.columns) == ["a", "trump_redeal", "match"] and len(factors) == 9
    assert factors.loc["grid/a=highest,trump_redeal=ace-three,match=best-of-3"].to_dict() == {
        "a": "highest", "trump_redeal": "ace-three", "match": "best-of-3"}  # fmt: skip
    assert factors.loc["alone"].isna().all()  # an entry with no grid
    rows = study.deals
    assert {"a", "trump_redeal", "match_factor", "match"} <= set(rows.columns)  # the rows' own match column stays
    for name, mine in rows.groupby(rows["experiment"].astype(str)):
        expected = factors.loc[name].rename({"match": "match_factor"})
        assert mine[list(expected.index)].drop_duplicates().shape[0] == 1
        assert mine[list(expected.index)].iloc[0].equals(expected), name
    played = rows[rows["match_factor"] == "best-of-3"]
    assert played["match"].notna().all() and rows[rows["match_factor"] == "deal"]["match"].isna().all()
    one = study.experiment("grid/a=greedy,trump_redeal=off,match=deal")
    assert one.config["factors"] == {"a": "greedy", "trump_redeal": "off", "match": "deal"}
    shown = json.loads(run_here("status", tmp_path / "study", "--json").stdout)
    by_name = {e["name"]: e["factors"] for e in shown["experiments"]}
    assert by_name["grid/a=greedy,trump_redeal=off,match=deal"] == one.config["factors"] and by_name["alone"] == {}
