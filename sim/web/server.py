"""``briscola play``'s web server (Starlette): the page, and a small JSON API over
``PersonTable``s held in memory, one per table started.

- ``GET /``: the page (``static/index.html``: plain HTML and JavaScript, no build step).
- ``POST /api/tables`` with ``{"players", "seat", "others", "seed", "deal", "rules"}``:
  a new table; answers ``{"id", "seen"}``.
- ``GET /api/tables/{id}``: what the person's seat sees now.
- ``POST /api/tables/{id}/play`` with ``{"decision"}``: the person's card (``1D``), bid or
  call; answers what the seat sees once the strategies have replied.
- ``GET /api/tables/{id}/analysis``: once the deal is over, every card played valued
  (``PersonTable.analysis``, as ``briscola analyse`` values a trace).
- ``GET /api/replay``: the traced deal ``briscola play --replay`` was given
  (``sim/web/replay.py``), which the page then steps through; 404 without one.

Every answer to a bad request is a 4xx with ``{"error": "..."}`` in one line, never a
traceback: 400 for what the request got wrong (and what is valid), 404 for a table that
is not there, 409 for a strategy that failed while playing on (the page shows it, naming
the strategy's own message).
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from sim.base.config import BAD_INPUT, IllegalDecisionError, Rules, parse_rules
from sim.web.people import check_name, save_deal
from sim.web.table import PersonTable

STATIC = Path(__file__).parent / "static"
MAX_TABLES = 1000  # tables kept in memory; the oldest goes first
NEW_TABLE_KEYS = {"players", "seat", "others", "seed", "deal", "rules", "name"}


class BadRequest(Exception):
    """What a request got wrong, in one line."""


def create_app(strategy_files=(), replay: dict | None = None, out: Path | None = None) -> Starlette:
    """The server's app: its tables live as long as it does; ``replay``, a traced deal to
    show (``sim.web.replay.replayed``); ``out``, the people folder where every finished
    deal is saved under its player's name (``sim/web/people.py``; None: not saved)."""
    tables: dict[str, PersonTable] = {}

    async def new_table(request: Request) -> JSONResponse:
        asked = await _json(request)
        unknown = set(asked) - NEW_TABLE_KEYS
        if unknown:
            raise BadRequest(f"unknown keys {sorted(unknown)}; valid: {sorted(NEW_TABLE_KEYS)}")
        players = _int(asked, "players", 2)
        try:
            person = check_name(asked.get("name", "guest"))
        except ValueError as error:
            raise BadRequest(str(error)) from error
        table = PersonTable.new(
            person=person, players=players, seat=_int(asked, "seat", 0), others=asked.get("others", "expert"),
            rules=_rules(asked.get("rules", {}), players), seed=_int(asked, "seed", secrets.randbelow(2**31)),
            deal=_int(asked, "deal", 0), strategy_files=strategy_files,
        )  # fmt: skip
        if len(tables) >= MAX_TABLES:
            tables.pop(next(iter(tables)))
        key = secrets.token_urlsafe(9)
        tables[key] = table
        return JSONResponse({"id": key, "seen": table.seen()})

    async def seen(request: Request) -> JSONResponse:
        return JSONResponse(_table(tables, request).seen())

    async def play(request: Request) -> JSONResponse:
        table = _table(tables, request)
        asked = await _json(request)
        if "decision" not in asked:
            raise BadRequest('give {"decision": CARD} (a card such as "1D"; at an auction a level, -1 to pass)')
        _play(table, asked["decision"])
        seen = table.seen()
        if table.done and out is not None:  # on disk once it ends: a closed tab loses nothing
            seen["saved"] = str(save_deal(table, out))
        return JSONResponse(seen)

    async def analysis(request: Request) -> JSONResponse:
        return JSONResponse(_table(tables, request).analysis())

    async def replayed(request: Request) -> JSONResponse:
        if replay is None:
            raise HTTPException(404, "no deal to replay: start the server with briscola play --replay TRACE --deal N")
        return JSONResponse(replay)

    async def page(request: Request) -> FileResponse:
        return FileResponse(STATIC / "index.html")

    routes = [
        Route("/", page),
        Route("/api/tables", new_table, methods=["POST"]),
        Route("/api/tables/{key}", seen),
        Route("/api/tables/{key}/play", play, methods=["POST"]),
        Route("/api/tables/{key}/analysis", analysis),
        Route("/api/replay", replayed),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    handlers = {BadRequest: _refused(400), **dict.fromkeys(BAD_INPUT, _refused(400)), StrategyFailed: _refused(409),
                IllegalDecisionError: _refused(409), HTTPException: _http_error, Exception: _refused(500)}  # fmt: skip
    return Starlette(routes=routes, exception_handlers=handlers)


class StrategyFailed(Exception):
    """A strategy at the table failed while the deal played on: the page says which."""


def _play(table: PersonTable, decision) -> None:
    """The person's decision; a strategy failing in the replies that follow is
    StrategyFailed (409), the person's own mistake ConfigError (400)."""
    from sim.base.config import ConfigError

    try:
        table.play(decision)
    except ConfigError:
        raise
    except (*BAD_INPUT, IllegalDecisionError, SystemError) as error:  # jitted code's raise comes as a SystemError
        cause = error.__cause__ if isinstance(error, SystemError) and error.__cause__ is not None else error
        raise StrategyFailed(f"a strategy failed after your card: {cause}") from error


def _refused(status: int):
    async def handler(request: Request, error: Exception) -> JSONResponse:
        text = str(error) if status != 500 else f"the server failed: {type(error).__name__}: {error}"
        return JSONResponse({"error": " ".join(text.split())}, status_code=status)

    return handler


async def _http_error(request: Request, error: HTTPException) -> JSONResponse:
    return JSONResponse({"error": error.detail}, status_code=error.status_code)


async def _json(request: Request) -> dict:
    try:
        asked = json.loads(await request.body() or b"{}")
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise BadRequest(f"the request's body is not JSON: {error}") from error
    if not isinstance(asked, dict):
        raise BadRequest("the request's body must be a JSON object")
    return asked


def _table(tables: dict, request: Request) -> PersonTable:
    key = request.path_params["key"]
    if key not in tables:
        raise HTTPException(404, f"no table {key!r} here: start one with POST /api/tables")
    return tables[key]


def _int(asked: dict, key: str, default: int) -> int:
    value = asked.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest(f"{key} must be a whole number, not {value!r}")
    return value


def _rules(asked, players: int) -> Rules:
    if not isinstance(asked, dict):
        raise BadRequest('rules must be an object such as {"signals": "trumps"}')
    return parse_rules([f"{key}={value}" for key, value in asked.items()], players)
