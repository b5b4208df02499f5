"""The ``briscola`` command line.

Data goes to stdout (a table, or JSON with ``--json``); progress, notes and errors go
to stderr. Known mistakes exit with code 2 and one line naming the problem; set
``BRISCOLA_DEBUG=1`` to see tracebacks. Heavy modules (numba, pyarrow) are imported
inside the commands so that ``briscola --help`` starts at once.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import itertools
import json
import os
import shlex
import signal
import sys
import time
import traceback
import warnings
from pathlib import Path
from typing import Annotated

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup

from sim.base.config import MATCH_FORMATS, PLAYER_COUNTS, RULE_VALUES
from sim.pipeline.backends import BACKENDS  # light modules (each backend's options, not its code): --help stays fast

TABLES = [str(players) for players in PLAYER_COUNTS]
RULE_CHOICES = [f"{key}={value}" for key, values in RULE_VALUES.items() for value in values]


class _PlainArgument(TyperArgument):
    """An argument shown as click shows it, ``A`` or ``STRATEGY...``, without typer's
    ``{A}`` and ``<str>``."""

    def _usage_display_name(self) -> str:
        name = self.display_name_raw if self.required else f"[{self.display_name_raw}]"
        return name + ("..." if self.nargs != 1 else "")

    def display_type_rich(self, ctx) -> None:
        return None


class _PlainHelp:
    """Help pages without typer's artefacts: plain argument names, and no ``<bool>`` on
    the switches typer adds itself (--help, the completion ones). A command class is
    where typer lets us change how its parameters are shown."""

    def get_params(self, ctx):
        params = super().get_params(ctx)
        for param in params:
            if type(param) is TyperArgument:
                param.__class__ = _PlainArgument  # a subclass that only changes how it is shown
            elif getattr(param, "is_flag", False):
                param.metavar = ""  # a switch takes no value
        return params


class _Command(_PlainHelp, TyperCommand):
    pass


class _Group(_PlainHelp, TyperGroup):
    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as stop:  # typer would turn it into a silent exit 130
            raise _Stopped from stop


class _Stopped(Exception):
    """A Ctrl-C or SIGTERM that ended a command before its run could keep anything."""


app = typer.Typer(
    cls=_Group,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="Monte Carlo simulator of Briscola: compare strategies over millions of deals.",
)

EXIT_BAD_INPUT = 2
EXIT_FAILED = 1
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143  # stopped by SIGTERM: 128 + 15, as batch systems expect


def _show_version(asked: bool) -> None:  # noqa: FBT001 - typer passes the switch
    if asked:
        from sim.base.version import __version__

        print(f"briscola {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_show_version, is_eager=True, help="Show the version and exit.", metavar=""),
    ] = False,
) -> None:
    """Monte Carlo simulator of Briscola: compare strategies over millions of deals."""


def parse_count(text: str) -> int:
    """A count of deals as people write it: ``1000000``, ``1_000_000`` or ``1e6``."""
    from sim.base.config import ConfigError
    from sim.base.config import parse_count as count

    if isinstance(text, int):  # an option's default
        return text
    try:
        return count(text)
    except ConfigError as error:
        raise typer.BadParameter(str(error)) from None


def _complete_strategies(incomplete: str) -> list[str]:
    """Strategy names for shell completion; after a comma, the next name of a list."""
    from strategies.registry import available_strategies, builtin_aliases

    done, _, last = incomplete.rpartition(",")
    prefix = f"{done}," if done else ""
    names = sorted([*available_strategies(), *builtin_aliases()])
    return [prefix + name for name in names if name.startswith(last)]


def _complete_from(choices):
    """Shell completion among fixed ``choices``."""
    return lambda incomplete: [choice for choice in choices if choice.startswith(incomplete)]


def _flag(name: str, help: str):
    """A switch: given or not, no value, no --no- twin."""
    return typer.Option(name, help=help, metavar="", show_default=False)


StrategyFileOption = Annotated[
    list[Path] | None,
    typer.Option(help="A Python file of strategies to add (repeatable); see docs/strategies.md.", metavar="PATH"),
]
ThreadsOption = Annotated[int | None, typer.Option(help="Threads to use (default: all cores).", metavar="T")]
RuleOption = Annotated[
    list[str] | None,
    typer.Option(
        help="A rule option (repeatable): trump_redeal, removed_two, partner_view, signals; at 5 players first_lead, bid_multiplier, auction.",
        metavar="KEY=VALUE",
        autocompletion=_complete_from(RULE_CHOICES),
    ),
]
OverwriteOption = Annotated[bool, _flag("--overwrite", "Replace an existing output.")]
JsonOption = Annotated[bool, _flag("--json", "Print the summary as one JSON object.")]
QuietOption = Annotated[bool, _flag("--quiet", "No progress bar and no notes on stderr.")]
SummaryOnlyOption = Annotated[bool, _flag("--summary-only", "Write no result file, only print the summary.")]
TablePlayersOption = Annotated[
    int,
    typer.Option(
        help="Table size: 2, 3, 4, 6, or 5 for Briscola Chiamata.", metavar="P", autocompletion=_complete_from(TABLES)
    ),
]
SeedOption = Annotated[
    int, typer.Option(help="The same seed deals the same cards.", parser=parse_count, metavar="S", show_default=False)
]
MatchOption = Annotated[
    str,
    typer.Option(
        help="deal, best-of-3, best-of-5, two-deals-120, or five-deals at 5 players (then --deals counts matches).",
        metavar="FORMAT",
        autocompletion=_complete_from(MATCH_FORMATS),
    ),
]


def _backends_help() -> str:
    """``local (this machine) or dask (a Dask cluster: ...).``: every backend, as registered."""
    described = [f"{backend.name} ({backend.about})" for backend in BACKENDS.values()]
    return " or ".join([", ".join(described[:-1]), described[-1]] if len(described) > 1 else described) + "."


BackendOption = Annotated[
    str,
    typer.Option(
        help=_backends_help(),
        metavar="NAME",
        autocompletion=_complete_from(BACKENDS),  # read when asked: every backend registered by then
    ),
]


def _with_backend_options(command):
    """Gives a command every backend's own options (``sim.pipeline.backends``), after ``--backend``,
    and hands them to it gathered in ``backend_options`` (None: not given): a new
    backend's options reach every command that runs experiments with no line here."""
    options = [option for backend in BACKENDS.values() for option in backend.options]
    signature = inspect.signature(command, eval_str=True)
    parameters = [parameter for parameter in signature.parameters.values() if parameter.name != "backend_options"]
    after = [parameter.name for parameter in parameters].index("backend") + 1
    added = [
        inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=None,
                          annotation=Annotated[option.type | None, typer.Option(help=option.help, metavar=option.metavar)])
        for option in options
    ]  # fmt: skip
    parameters = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in parameters]  # typer passes all by name

    @functools.wraps(command)
    def with_options(**values):
        given = {option.name: values.pop(option.name) for option in options}
        return command(**values, backend_options=given)

    with_options.__signature__ = signature.replace(parameters=[*parameters[:after], *added, *parameters[after:]])
    return with_options


def _deals_option(help: str):
    return typer.Option(help=help, parser=parse_count, metavar="N", show_default=False)


def _out_option(help: str):
    return typer.Option(help=help, metavar="PATH", show_default=False)


@app.command(cls=_Command)
@_with_backend_options
def simulate(
    ctx: typer.Context,
    players: Annotated[
        int,
        typer.Option(
            help="Table size: 2, 3, 4, 6, or 5 for Briscola Chiamata.",
            metavar="P",
            show_default=False,
            autocompletion=_complete_from(TABLES),
        ),
    ],
    strategies: Annotated[
        str,
        typer.Option(
            help="NAME[:key=value...] per seat, per team (4 and 6 players) or one for all, comma-separated; "
            "see briscola strategies.",
            metavar="LIST",
            show_default=False,
            autocompletion=_complete_strategies,
        ),
    ],
    deals: Annotated[int, _deals_option("Deals to play (1e6 and 1_000_000 are fine).")],
    seed: SeedOption,
    threads: ThreadsOption = None,
    out: Annotated[
        str | None, _out_option("Result file, or a folder/ for the default name (default: under results/).")
    ] = None,
    trace: Annotated[Path | None, _out_option("Also write every deal move by move, for audits.")] = None,
    rule: RuleOption = None,
    summary_only: SummaryOnlyOption = False,
    match: MatchOption = "deal",
    overwrite: OverwriteOption = False,
    json_output: JsonOption = False,
    quiet: QuietOption = False,
    strategy_file: StrategyFileOption = None,
    backend: BackendOption = "local",
    backend_options: dict | None = None,  # each backend's own (_with_backend_options)
) -> None:
    """Play deals with a strategy per seat; write one Parquet row per deal and print a summary."""
    experiment = _experiment("simulate", quiet, players=players, strategies=strategies, deals=deals, seed=seed,
                             rules=rule, threads=threads, strategy_files=strategy_file, match=match)  # fmt: skip
    how = _how(ctx, out=out, overwrite=overwrite, summary_only=summary_only, backend=backend,
               backend_options=backend_options, threads=threads, trace=trace)  # fmt: skip
    _run(experiment, how, json_output, quiet)


@app.command(cls=_Command)
@_with_backend_options
def compare(
    ctx: typer.Context,
    a: Annotated[
        str,
        typer.Argument(
            help="Strategy A: NAME[:key=value...].",
            metavar="A",
            show_default=False,
            autocompletion=_complete_strategies,
        ),
    ],
    b: Annotated[
        str,
        typer.Argument(
            help="Strategy B, A's opponent.", metavar="B", show_default=False, autocompletion=_complete_strategies
        ),
    ],
    deals: Annotated[int, _deals_option("Duplicate deals to play (the most, with --sprt).")],
    seed: SeedOption,
    players: TablePlayersOption = 2,
    threads: ThreadsOption = None,
    out: Annotated[
        str | None, _out_option("Result file, a row per game, or a folder/ (default: under results/).")
    ] = None,
    trace: Annotated[Path | None, _out_option("Also write every game move by move (its seating in game).")] = None,
    rule: RuleOption = None,
    sprt: Annotated[
        str | None,
        typer.Option(
            help="Stop once the SPRT accepts Elo <= ELO0 or >= ELO1.", metavar="ELO0,ELO1", show_default=False
        ),
    ] = None,
    alpha: Annotated[float, typer.Option(help="SPRT: chance of accepting ELO1 wrongly.", metavar="P")] = 0.05,
    beta: Annotated[float, typer.Option(help="SPRT: chance of accepting ELO0 wrongly.", metavar="P")] = 0.05,
    summary_only: SummaryOnlyOption = False,
    match: MatchOption = "deal",
    overwrite: OverwriteOption = False,
    json_output: JsonOption = False,
    quiet: QuietOption = False,
    strategy_file: StrategyFileOption = None,
    backend: BackendOption = "local",
    backend_options: dict | None = None,  # each backend's own (_with_backend_options)
) -> None:
    """Is A better than B? Duplicate deals from every seating, score and Elo with intervals, optional SPRT."""
    experiment = _experiment("compare", quiet, players=players, strategies=[a, b], deals=deals, seed=seed, rules=rule,
                             threads=threads, strategy_files=strategy_file, match=match, sprt=sprt, alpha=alpha,
                             beta=beta)  # fmt: skip
    how = _how(ctx, out=out, overwrite=overwrite, summary_only=summary_only, backend=backend,
               backend_options=backend_options, threads=threads, trace=trace)  # fmt: skip
    _run(experiment, how, json_output, quiet)


def _experiment(kind: str, quiet: bool, rules, strategy_files, **options):
    """The checked Experiment of a command's options (``make_experiment``'s), and a note on
    too many threads."""
    from sim.pipeline.experiments import make_experiment

    experiment = make_experiment(kind, rules=rules or (), strategy_files=strategy_files or (), **options)
    _note_threads(experiment.config, quiet)
    return experiment


def _how(ctx: typer.Context, **how):
    """How to run a command (``sim.pipeline.running.HowToRun``), its command line kept in its files."""
    from sim.pipeline.running import HowToRun

    return HowToRun(command=_command(ctx), **how)


def _note_threads(config, quiet: bool) -> None:
    """Says on stderr when --threads asks for more threads than there are cores."""
    from sim.base.config import default_threads
    from sim.runtime.play import effective_threads

    cores = default_threads()
    if config.threads > cores and not quiet:
        used = effective_threads(config)
        print(
            f"briscola: note: --threads {config.threads} is more than the {cores} cores here; using {used}",
            file=sys.stderr,
        )


@app.command(cls=_Command)
@_with_backend_options
def tournament(
    ctx: typer.Context,
    strategies: Annotated[
        list[str],
        typer.Argument(
            help="Two or more strategies: NAME[:key=value...].",
            metavar="STRATEGY",
            show_default=False,
            autocompletion=_complete_strategies,
        ),  # fmt: skip
    ],
    deals: Annotated[int, _deals_option("Duplicate deals per pair.")],
    seed: SeedOption,
    players: TablePlayersOption = 2,
    threads: ThreadsOption = None,
    out: Annotated[
        str | None, _out_option("Dataset folder (a file per pair), or parent/ (default: under results/).")
    ] = None,
    trace: Annotated[
        Path | None, _out_option("Also write every game of every pair move by move, in one file (pair and game).")
    ] = None,
    rule: RuleOption = None,
    summary_only: SummaryOnlyOption = False,
    match: MatchOption = "deal",
    overwrite: OverwriteOption = False,
    json_output: JsonOption = False,
    quiet: QuietOption = False,
    strategy_file: StrategyFileOption = None,
    backend: BackendOption = "local",
    backend_options: dict | None = None,  # each backend's own (_with_backend_options)
) -> None:
    """Every pair compared on the same duplicate deals: the score matrix and a rating per strategy."""
    experiment = _experiment("tournament", quiet, players=players, strategies=strategies, deals=deals, seed=seed,
                             rules=rule, threads=threads, strategy_files=strategy_file, match=match)  # fmt: skip
    how = _how(ctx, out=out, overwrite=overwrite, summary_only=summary_only, backend=backend,
               backend_options=backend_options, threads=threads, trace=trace)  # fmt: skip
    _run(experiment, how, json_output, quiet)


def _run(experiment, how, json_output: bool, quiet: bool) -> None:
    """Runs a command's experiment (``sim.pipeline.running.run``: here into its file, or on another
    backend as a study of one experiment); shows its summary."""
    from sim.pipeline.running import run

    _show(run(experiment, how, _Terminal(quiet)), json_output, quiet)


@app.command(cls=_Command)
@_with_backend_options
def batch(
    plan: Annotated[
        Path, typer.Argument(help="The study's plan (TOML); see docs/studies.md.", metavar="PLAN", show_default=False)
    ],
    out: Annotated[Path | None, _out_option("The study's folder (default: the plan's out, or results/PLAN).")] = None,
    resume: Annotated[bool, _flag("--resume", "Continue the study in --out: play only what is missing.")] = False,
    backend: BackendOption = "local",
    backend_options: dict | None = None,  # each backend's own (_with_backend_options)
    chunk_deals: Annotated[
        int | None,
        typer.Option(
            help="Deals (or matches) per chunk (default: about a minute of work).", parser=parse_count, metavar="N"
        ),
    ] = None,
    threads: ThreadsOption = None,
    summary_only: Annotated[bool, _flag("--summary-only", "Keep the summaries only, no rows.")] = False,
    json_output: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Run a study: every experiment of a plan, in chunks that survive a crash; here or on Dask."""
    from sim.pipeline.plan import read_plan
    from sim.pipeline.running import HowToRun, run_plan

    how = HowToRun(out=out, summary_only=summary_only, backend=backend, backend_options=backend_options,
                   threads=threads, resume=resume, chunk_deals=chunk_deals)  # fmt: skip
    done = run_plan(read_plan(plan), how, _Terminal(quiet))
    _show_study(done.outcome, json_output, quiet)
    if done.interrupted:
        raise typer.Exit(EXIT_INTERRUPTED)


@app.command(cls=_Command)
def status(
    folder: Annotated[
        Path, typer.Argument(help="A study's folder (briscola batch).", metavar="FOLDER", show_default=False)
    ],
    json_output: JsonOption = False,
) -> None:
    """Show how far a study has come: chunks, deals, time, what is left."""
    from sim.pipeline.study import read_outcome

    _show_study(read_outcome(folder), json_output, quiet=True, ran=False)


def _show_study(outcome: dict, json_output: bool, quiet: bool, ran: bool = True) -> None:
    """The study's table or JSON. After a run (``ran``) its status on stderr (unless
    quiet), and how to continue a partial study, once (even if quiet); else (``status``)
    the table's title says how."""
    from sim.present.report import show_study

    if json_output:
        print(json.dumps(outcome))
    else:
        show_study(outcome, resume_in_title=not ran)
    if ran and (outcome["resume"] or not quiet):
        go_on = f"; continue it with {outcome['resume']}" if outcome["resume"] else ""
        print(f"study {outcome['out']}: {outcome['status']}{go_on}", file=sys.stderr)


@app.command(cls=_Command)
def report(
    path: Annotated[
        Path,
        typer.Argument(
            help="A result file (simulate, compare) or a tournament folder.", metavar="PATH", show_default=False
        ),
    ],
    overwrite: OverwriteOption = False,
    json_output: JsonOption = False,
) -> None:
    """Summarise a result file or dataset and write plots beside it (PNG, and index.html holding them)."""
    from sim.present.plots import report_folder, show_report, write_report
    from sim.web.people import is_people_folder

    if is_people_folder(path):  # the deals people played (briscola play): their ratings
        _show_people(path, json_output)
        return

    found = write_report(path, overwrite)
    if json_output:
        print(json.dumps(found))
    else:
        show_report(found)
    if found["written"]:
        print(f"wrote {found['html']} and {len(found['plots'])} plots", file=sys.stderr)
    else:
        print(f"kept the existing report {report_folder(path)}; pass --overwrite to draw it again", file=sys.stderr)


def _show_people(path: Path, json_output: bool) -> None:
    from sim.present.report import show_people
    from sim.web.people import person_ratings

    with _read_errors_as_bad_input():
        ratings = person_ratings(path)
    if json_output:
        print(ratings.to_json(orient="records"))
    else:
        show_people(ratings, path)


@app.command(cls=_Command)
def diff(
    first: Annotated[
        Path, typer.Argument(help="A result file (simulate or compare).", metavar="FIRST", show_default=False)
    ],
    second: Annotated[
        Path,
        typer.Argument(
            help="Another of the same seed and table, e.g. with another rule.", metavar="SECOND", show_default=False
        ),
    ],
    json_output: JsonOption = False,
) -> None:
    """Does a rule or a parameter change the outcome? Two runs of one seed, deal by deal."""
    from sim.present.report import paired_dict, show_paired

    for path in (first, second):  # a study: a command run on another backend, its one experiment
        _given_file(path, "two result files (simulate or compare)", study=True)
    with _read_errors_as_bad_input():
        row = paired_dict(first, second)
    if json_output:
        print(json.dumps(row))
    else:
        show_paired(row)


@app.command(cls=_Command)
def luck(
    run: Annotated[
        Path, typer.Argument(help="A comparison's result file (briscola compare).", metavar="RUN", show_default=False)
    ],
    par_deals: Annotated[
        int, typer.Option(help="Deals whose exact par is solved, at 2 players (about a second each); 0: none.", min=0)
    ] = 100,
    json_output: JsonOption = False,
) -> None:
    """How much of a comparison do the cards decide, and what is each dealt card worth?"""
    from sim.present.luck import luck_dict
    from sim.present.report import show_luck

    _given_file(run, "a comparison's result file", study=True)
    with _read_errors_as_bad_input():
        row = luck_dict(run, par_deals)
    if json_output:
        print(json.dumps(row))
    else:
        show_luck(row)


@app.command(cls=_Command)
def analyse(
    trace: Annotated[
        Path,
        typer.Argument(
            help="A trace file (simulate, compare or tournament --trace).", metavar="TRACE", show_default=False
        ),
    ],
    samples: Annotated[int, typer.Option(help="The search's deals of the hidden cards per decision.", min=1)] = 16,
    rollouts: Annotated[int, typer.Option(help="Orders of the stock per sampled deal.", min=1)] = 1,
    out: Annotated[Path | None, _out_option("Write every move valued (a row per card played).")] = None,
    overwrite: OverwriteOption = False,
    json_output: JsonOption = False,
) -> None:
    """Where does A lose to B? Every move of a traced run valued by the search: best card, cost, verdict."""
    from sim.base.files import check_output_path
    from sim.present.analyse import analyse as analyse_moves
    from sim.present.analyse import move_costs, par_shortfall, write_moves
    from sim.present.report import show_move_costs

    _given_file(trace, "a trace file")
    if out is not None:
        check_output_path(out, overwrite, "--out")
    with _read_errors_as_bad_input():
        moves = analyse_moves(trace, samples=samples, rollouts=rollouts)
    costs, shortfall = move_costs(moves), par_shortfall(moves)
    if out is not None:
        write_moves(moves, out, trace, samples, rollouts)
    if json_output:
        print(json.dumps({"costs": costs.to_dict("records"), "par_shortfall": shortfall.to_dict("records")}))
    else:
        show_move_costs(costs, shortfall, len(moves))


@app.command(cls=_Command)
def play(
    port: Annotated[int, typer.Option(help="The port to serve the page on.", min=1, max=65535)] = 8765,
    host: Annotated[
        str, typer.Option(help="The address to bind: 127.0.0.1 keeps the page to this machine; 0.0.0.0 opens it.")
    ] = "127.0.0.1",
    no_browser: Annotated[bool, _flag("--no-browser", "Do not open the page in a browser.")] = False,
    replay: Annotated[
        Path | None, typer.Option(help="A trace file (--trace of a run): replay one of its deals.", metavar="TRACE")
    ] = None,
    deal: Annotated[int, typer.Option(help="With --replay: the deal to replay.", min=0)] = 0,
    game: Annotated[int | None, typer.Option(help="With --replay: the seating, in a comparison's trace.")] = None,
    pair: Annotated[str | None, typer.Option(help="With --replay: the pair (i_j), in a tournament's trace.")] = None,
    out: Annotated[
        Path, typer.Option(help="Where every finished deal is kept, by player (briscola report reads it).")
    ] = Path("results/people"),
    strategy_file: StrategyFileOption = None,
) -> None:
    """Play a deal in your browser, at any table, against and beside any strategies; or replay a traced one."""
    from sim.base.config import ConfigError

    try:
        import uvicorn

        from sim.web.server import create_app
    except ImportError as error:
        raise ConfigError(
            f"briscola play needs the web extra ({error.name} is missing): pip install -e '.[web]'"
        ) from error
    _check_port_free(host, port)
    shown = None
    if replay is not None:
        from sim.web.replay import replayed

        _given_file(replay, "a trace file", option="--replay ")
        with _read_errors_as_bad_input():
            shown = replayed(replay, deal, game=game, pair=pair)
    url = f"http://{'127.0.0.1' if host == '0.0.0.0' else host}:{port}/"
    reach = "only this machine can reach it" if host in ("127.0.0.1", "localhost") else "other machines can reach it"
    print(f"serving the table on {url} (bound to {host}: {reach}); Ctrl-C stops", file=sys.stderr, flush=True)
    if not no_browser:
        import webbrowser

        webbrowser.open(url)
    if out.exists() and not out.is_dir():
        raise ConfigError(f"--out {out} is a file; give a folder for the deals played")
    app = create_app(tuple(str(p) for p in strategy_file or ()), replay=shown, out=out)
    uvicorn.run(app, host=host, port=port, log_level="warning")


def _given_file(path: Path, give: str, study: bool = False, option: str = "") -> None:
    """One line, exit 2, unless ``path`` is a file (or with ``study`` a study's folder)."""
    from sim.base.config import ConfigError

    if path.is_file() or study and (path / "_study.json").exists():
        return
    raise ConfigError(f"{option}{path} {'is a folder' if path.is_dir() else 'does not exist'}; give {give}")


@contextlib.contextmanager
def _read_errors_as_bad_input():
    """What reading a user's file raises (unreadable, damaged, not ours) as one line, exit 2."""
    from sim.base.config import ConfigError

    try:
        yield
    except (ValueError, OSError) as error:
        raise ConfigError(str(error)) from error


def _check_port_free(host: str, port: int) -> None:
    import socket

    from sim.base.config import ConfigError

    with socket.socket() as probe:
        try:
            probe.bind((host, port))
        except OSError as error:
            raise ConfigError(
                f"cannot serve on {host}:{port} ({error.strerror}); give another --port or --host"
            ) from error


@app.command("strategies", cls=_Command)
def list_strategies(
    strategy_file: StrategyFileOption = None,
    json_output: Annotated[bool, _flag("--json", "Print the list as JSON.")] = False,
) -> None:
    """List every available strategy (built in and plug-in) with its version, parameters and measured strength."""
    from sim.present.report import print_strategies
    from strategies.registry import described_strategies

    described = described_strategies(tuple(str(p) for p in strategy_file or ()))
    if json_output:
        print(json.dumps(described))
    else:
        print_strategies(described)


@app.command(cls=_Command)
def check(
    strategy: Annotated[
        str,
        typer.Argument(
            help="The strategy to check: NAME[:key=value...].",
            metavar="STRATEGY",
            show_default=False,
            autocompletion=_complete_strategies,
        ),
    ],
    strategy_file: StrategyFileOption = None,
    deals: Annotated[
        int, _deals_option("Duplicate deals against random per table and rule option (default: 1,000).")
    ] = 1000,
    seed: Annotated[
        int, typer.Option(help="The seed (default: 1).", parser=parse_count, metavar="S", show_default=False)
    ] = 1,
    players: Annotated[
        str, typer.Option(help="The tables to check (default: 2,3,4,5,6).", metavar="P,...", show_default=False)
    ] = "2,3,4,5,6",
    decision_limit: Annotated[
        float, typer.Option(help="Seconds a decision may take, at most.", metavar="SECONDS")
    ] = 1.0,
    threads: ThreadsOption = None,
    json_output: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Check a strategy as the built-ins are checked, with its speed and score against random.

    Legal at every table and rule, audited by the reference engine, deterministic, blind to all but its view, in time.

    Exit code 1 at the first failed check; 2 if the strategy cannot be loaded, or if a batched one raises."""
    from sim.app.check import check_strategy
    from sim.base.config import ConfigError, parse_tables
    from sim.present.report import check_dicts, print_check
    from sim.runtime.play import canonical_strategies
    from strategies.registry import resolve_aliases

    tables = parse_tables(players)
    files = tuple(str(p) for p in strategy_file or ())
    canonical_strategies([resolve_aliases([strategy], p)[0][0] for p in tables], files)  # unknown: one line, exit 2
    if deals < 1:
        raise ConfigError(f"--deals {deals} must be at least 1")
    if not decision_limit > 0:
        raise ConfigError(f"--decision-limit {decision_limit:g} must be above 0 seconds")

    def table_done(report):
        if not quiet and report.not_played:
            print(f"{report.players} players: not played (not among its declared tables)", file=sys.stderr)
        elif not quiet:
            state = "failed" if report.failure else "ok"
            print(f"{report.players} players, rules {report.rules_text}: {state}", file=sys.stderr)

    reports = check_strategy(strategy, files, deals=deals, seed=seed, players=tables,
                             decision_limit=decision_limit, threads=threads, on_table=table_done)  # fmt: skip
    failure = next((r.failure for r in reports if r.failure), None)
    if json_output:
        print(
            json.dumps({"strategy": strategy, "seed": seed, "passed": failure is None, "tables": check_dicts(reports)})
        )
    else:
        print_check(strategy, reports)
    if failure is not None:
        print(f"briscola: check failed: {failure}", file=sys.stderr)
        raise typer.Exit(EXIT_FAILED)


def _command(ctx: typer.Context) -> str:
    return shlex.join(["briscola", *ctx.obj["argv"]])


def _show(outcome, json_output: bool, quiet: bool) -> None:
    """Data on stdout (JSON or a table), notes on stderr; exit 130 if interrupted."""
    if json_output:
        print(json.dumps(outcome.summary))
    elif outcome.summary is not None:
        from sim.present.report import show_summary

        show_summary(outcome.experiment.kind, outcome.summary, outcome.interrupted, outcome.seconds)
    for note in outcome.notes(quiet):
        print(note, file=sys.stderr)
    if outcome.interrupted:
        raise typer.Exit(EXIT_INTERRUPTED)


class _progress:
    """A rich progress bar on stderr, or nothing; yields a Progress: called with a count it
    advances the bar, ``status(text)`` shows what the run waits for beside it (None clears
    it), ``note(text)`` prints a line above it (on stderr, unless quiet). With ``lines``,
    and no bar (stderr is not a terminal: a batch job's log), a line at every tenth done.
    With ``time_left`` (a study's ``TimeLeft``: called with each count and its
    experiment), the time left is the study's work left at this run's pace, else the
    deals left at their pace so far."""

    def __init__(self, total: int, enabled: bool, done: int = 0, quiet: bool = False, lines: bool = False,
                 time_left=None):  # fmt: skip
        self.total, self.enabled, self.done, self.quiet, self.time_left = total, enabled, done, quiet, time_left
        self.lines = lines and not enabled and not quiet

    def __enter__(self) -> Progress:
        if not self.enabled:
            tenths = _Tenths(self.total, self.done, self.time_left) if self.lines else None
            return Progress(None, None, self.quiet, tenths, self.time_left)
        from rich.console import Console
        from rich.progress import BarColumn, TextColumn, TimeRemainingColumn
        from rich.progress import Progress as Bar

        left = TimeRemainingColumn() if self.time_left is None else TextColumn("[cyan]{task.fields[left]}")
        bar = Bar(
            TextColumn("deals"), BarColumn(), TextColumn("{task.completed:,.0f}/{task.total:,.0f}"), left,
            TextColumn("{task.fields[status]}"), console=Console(stderr=True), transient=True,
        )  # fmt: skip
        bar.start()
        self._bar = bar
        task = bar.add_task("deals", total=self.total, completed=self.done, status="", left="")
        return Progress(bar, task, self.quiet, time_left=self.time_left)

    def __exit__(self, *exc):
        if self.enabled:
            self._bar.stop()
        return False


def _say_if_first_run(quiet: bool, experiments) -> None:
    """A first run is silent while Numba compiles: say first what compiles."""
    from sim.runtime.compiling import compiling_note

    if quiet:
        return
    configs = [c for e in experiments for part in e.parts for c in e.run_kind.player(e, part).configs]
    note = compiling_note(configs)
    if note:
        print(f"briscola: {note}", file=sys.stderr)


class _Terminal:
    """What a run tells people (``sim.pipeline.running.Reporter``), on stderr: notes unless
    ``quiet``, alerts always, and its progress bar (or lines) when stderr is a terminal."""

    def __init__(self, quiet: bool):
        self.quiet = quiet

    def note(self, text: str) -> None:
        if not self.quiet:
            print(f"briscola: {text}", file=sys.stderr)

    def alert(self, text: str) -> None:
        print(f"briscola: {text}", file=sys.stderr)

    def playing_here(self, experiments) -> None:
        _say_if_first_run(self.quiet, experiments)

    def progress(self, total: int, done: int = 0, time_left=None, lines: bool = False) -> _progress:
        enabled = not self.quiet and sys.stderr.isatty()
        return _progress(total, enabled, done, quiet=self.quiet, lines=lines, time_left=time_left)


class Progress:
    """What a run reports as it goes (see ``_progress``)."""

    def __init__(self, bar, task, quiet: bool, tenths: _Tenths | None = None, time_left=None):
        self._bar, self._task, self._quiet, self._tenths, self._time_left = bar, task, quiet, tenths, time_left

    def __call__(self, n: int, experiment: str | None = None) -> None:
        """``n`` more units done (of ``experiment``, in a study)."""
        if self._time_left is not None and experiment is not None:
            self._time_left.add(n, experiment)
        if self._bar is not None:
            left = "" if self._time_left is None else _time_left_text(self._time_left.seconds())
            self._bar.update(self._task, advance=n, **({"left": left} if left else {}))
        elif self._tenths is not None:
            self._tenths.advance(n)

    def status(self, text: str | None) -> None:
        if self._bar is not None:
            self._bar.update(self._task, status=text or "")
        elif text and not self._quiet:
            print(f"briscola: {text}", file=sys.stderr)

    def note(self, text: str) -> None:
        if self._quiet:
            return
        if self._bar is not None:
            self._bar.console.print(f"briscola: {text}", highlight=False)
        else:
            print(f"briscola: {text}", file=sys.stderr)


def _time_left_text(seconds: float | None) -> str:
    """``about 3m20s left``; empty while nothing is known yet."""
    from sim.present.report import duration

    return "" if seconds is None else f"about {duration(seconds)} left"


class _Tenths:
    """Progress as lines on stderr, one each time another tenth of the deals is done, with
    the time left (``time_left``: a study's ``TimeLeft``)."""

    def __init__(self, total: int, done: int, time_left=None):
        self.total, self.done, self.started, self.time_left = total, done, time.monotonic(), time_left
        self.said = self._tenth()

    def _tenth(self) -> int:
        return 10 * self.done // max(self.total, 1)

    def advance(self, n: int) -> None:
        self.done += n
        if self._tenth() > self.said:
            self.said = self._tenth()
            minutes = (time.monotonic() - self.started) / 60
            left = _time_left_text(self.time_left.seconds()) if self.time_left is not None and self.said < 10 else ""
            print(f"briscola: {self.done:,}/{self.total:,} deals done ({10 * self.said}%), {minutes:.1f} min"
                  + (f", {left}" if left else ""), file=sys.stderr, flush=True)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Entry point: runs the app and maps known errors to one line and an exit code
    (with ``BRISCOLA_DEBUG=1``, the traceback comes first, the exit code is the same);
    warnings are one line on stderr too."""
    from sim.base.interrupt import STOPPED_BY

    STOPPED_BY.clear()  # what stopped an earlier command of this process is not this one's
    args = sys.argv[1:] if argv is None else list(argv)
    with warnings.catch_warnings():
        warnings.showwarning = _warn_in_one_line
        return _run_app(args)


def _warn_in_one_line(message, category, filename, lineno, file=None, line=None) -> None:
    print(f"briscola: warning: {message}", file=sys.stderr)


def _run_app(args: list[str]) -> int:
    """Runs the app on ``args``; known errors become one line and an exit code."""
    from sim.base.config import BAD_INPUT, ChunkFailed, IllegalDecisionError
    from sim.base.files import WriteFailed

    command = typer.main.get_command(app)
    try:
        code = command.main(args=args, prog_name="briscola", standalone_mode=False, obj={"argv": args})
        return code if isinstance(code, int) else 0
    except typer.Exit as stop:
        return stop.exit_code
    except _Stopped:
        return _interrupted()
    except typer.TyperException as error:
        if type(error).__name__ == "NoArgsIsHelpError":  # plain `briscola`: help, not an error
            print(error.format_message().strip())
            return 0
        message = error.format_message() + _spaced_list_hint(args)
        return _fail(message, getattr(error, "exit_code", EXIT_BAD_INPUT) or EXIT_BAD_INPUT)
    except BAD_INPUT as error:  # bad input: usage, configuration or a strategy
        return _fail(str(error), EXIT_BAD_INPUT)
    except (typer.Abort, KeyboardInterrupt):
        return _interrupted()
    except (ChunkFailed, IllegalDecisionError, WriteFailed) as error:  # a study that could not finish; a fault
        return _fail(str(error), EXIT_FAILED)
    except Exception as error:  # noqa: BLE001 - the last line of defence: one line, no traceback
        if _raised_by_ctrl_c(error):  # e.g. an import that Ctrl-C stopped wraps it in a RuntimeError
            return _fail("interrupted", EXIT_INTERRUPTED)
        if isinstance(error, SystemError) and isinstance(error.__cause__, Exception):
            # Numba reports an exception raised in jitted code (a strategy's) as the cause of a SystemError
            cause = error.__cause__
            return _fail(f"a strategy raised {type(cause).__name__}: {cause}", EXIT_FAILED)
        hint = "" if _debugging() else " (set BRISCOLA_DEBUG=1 for a traceback)"
        return _fail(f"{type(error).__name__}: {error}{hint}", EXIT_FAILED)


def _raised_by_ctrl_c(error: BaseException | None) -> bool:
    while error is not None:
        if isinstance(error, KeyboardInterrupt):
            return True
        error = error.__cause__ or error.__context__
    return False


def _debugging() -> bool:
    return os.environ.get("BRISCOLA_DEBUG", "") not in ("", "0")


def _spaced_list_hint(args: list[str]) -> str:
    """A hint for ``--strategies greedy random``: the list takes commas, not spaces."""
    if "--strategies" not in args:
        return ""
    after = args[args.index("--strategies") + 1 :]
    names = list(itertools.takewhile(lambda arg: not arg.startswith("-"), after))
    if len(names) < 2:
        return ""
    return f"; --strategies takes one comma-separated list: --strategies {','.join(names)}"


def _interrupted() -> int:
    """A run stopped before it played (compiling, warming up) or quit at a second Ctrl-C."""
    from sim.base.interrupt import STOPPED_BY

    return _fail("terminated (SIGTERM)" if signal.SIGTERM in STOPPED_BY else "interrupted", EXIT_INTERRUPTED)


def _fail(message: str, code: int) -> int:
    """Prints the error in one line (after its traceback, when debugging); returns ``code``."""
    if _debugging():
        traceback.print_exc()
    print(f"briscola: error: {message}", file=sys.stderr)
    return code


def run() -> None:
    """The console script: ``main``, then an exit that a late Ctrl-C cannot turn into a
    death by signal (the run is over, its files are written or removed)."""

    from sim.base.interrupt import STOPPED_BY, Terminated

    # The kernels' OpenMP threads sleep between calls instead of spinning: in lock-step,
    # spinning they took the cores from a batched strategy's own threads (onnxruntime on
    # 2 threads ran 1.2x slower); a kernel's call is long enough not to feel the wake-up.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

    def interrupt(signum, frame):
        # Python's own behaviour while the command runs (a frame below this one), and the
        # same for SIGTERM, so that what is half-written is removed. A signal that lands
        # in this frame came as the command returned: raising there would escape and kill
        # the process by signal, so it is ignored.
        if frame is None or frame.f_code is not run.__code__:
            if signum == signal.SIGTERM:
                STOPPED_BY.append(signum)
                raise Terminated
            raise KeyboardInterrupt

    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, interrupt)
    try:
        code = main()
    except KeyboardInterrupt:  # pressed while the command started or ended
        code = EXIT_INTERRUPTED
    finally:
        for number in (signal.SIGINT, signal.SIGTERM):  # the interpreter's exit would restore the default
            signal.signal(number, signal.SIG_IGN)
        _forget_interrupted_exec()
    sys.exit(EXIT_TERMINATED if code == EXIT_INTERRUPTED and signal.SIGTERM in STOPPED_BY else code)


def _forget_interrupted_exec() -> None:
    """Under ``python -m``, CPython kills itself by SIGINT at exit if any ``exec()`` of a
    string ended in KeyboardInterrupt, even one handled since (typer turns a Ctrl-C into
    exit 130; dataclasses and namedtuples exec strings on every first import). Each such
    ``exec()`` starts by clearing that mark, so an empty one does: the exit code is ours."""
    exec("")  # noqa: S102 - an empty string, run for its side effect only


if __name__ == "__main__":
    run()
