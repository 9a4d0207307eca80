"""The offline audit tools of docs/record-format.md §5: ``pbem replay|moves|verify``, and
``pbem reproduce``, which plays a finished game's computer moves again (docs/computer.md).

They read record files and need no server, no database and no configuration:
an auditor with only the package can check any published game. Exit codes are
part of the contract: 0 good, 1 an illegal move or a failed check, 2 not a record.
"""

from __future__ import annotations

import json
import sys

import click

from .engine import (
    Match,
    NotCanonical,
    Record,
    RecordError,
    ReplayError,
    position_json,
    read_record,
    replay,
    result_json,
    strict_json,
    verify,
)
from .events import EVENT_FORMAT, EventRecord, is_event, verify_event
from .events import parse as parse_event


def _shown(path: str) -> str:
    """A file's name as a line shows it: quoted and escaped if it holds a line break or
    another character that does not print (a name could otherwise forge an ``ok`` line)."""
    return path if path.isprintable() else ascii(path)


def _load(path: str) -> Record:
    try:
        return read_record(path)
    except RecordError as exc:
        click.echo(f"{_shown(path)}: not a game record: {exc}", err=True)
        sys.exit(2)


def _replay(path: str, record: Record) -> Match:
    try:
        return replay(record)
    except RecordError as exc:
        click.echo(f"{_shown(path)}: cannot replay: {exc}", err=True)
        sys.exit(2)
    except NotCanonical as exc:
        click.echo(
            f"{_shown(path)}: move {exc.n} ({exc.text!r}) is not canonical: a record writes "
            f"{exc.canonical!r}",
            err=True,
        )
        sys.exit(1)
    except ReplayError as exc:
        click.echo(f"{_shown(path)}: illegal move {exc.n} ({exc.text!r}): {exc.error}", err=True)
        sys.exit(1)


def _player(record: Record, seat: int | None) -> str:
    if seat is None:
        return "nobody"
    for p in record.players:
        if p.get("seat") == seat and p.get("name"):
            return f"seat {seat} ({p['name']})"
    return f"seat {seat}"


def describe(record: Record, match: Match) -> str:
    """The result and the final position as text a person reads."""
    lines = []
    if match.is_over:
        lines.append(
            f"Finished: {_player(record, match.winner)} wins, seals "
            f"{match.seals[0]}–{match.seals[1]}, after {len(record.moves)} moves."
        )
    else:
        lines.append(
            f"In progress after {len(record.moves)} moves: round {match.round_number}, "
            f"{_player(record, match.to_move)} to move; seals {match.seals[0]}–{match.seals[1]}."
        )
    for r in match.results:
        end = "three goods piles empty" if r.end == "piles" else "the deck ran out"
        lines.append(
            f"  Round {r.number}: {r.scores[0]}–{r.scores[1]} rupees ({end}); "
            f"camel token: {_player(record, r.camel_token)}; seal: {_player(record, r.seal)}."
        )
    p = position_json(match)
    lines.append(f"Position (round {p['round']}{', over' if p['round_over'] else ''}):")
    lines.append(f"  market:  {' '.join(p['market'])}")
    for seat in (0, 1):
        lines.append(
            f"  {_player(record, seat)}: hand {' '.join(p['hands'][seat]) or '-'}; "
            f"herd {p['herds'][seat]}; goods tokens {p['goods_tokens'][seat]}; "
            f"bonus tokens {p['bonus_tokens'][seat]}"
        )
    lines.append(f"  deck ({len(p['deck'])}): {' '.join(p['deck']) or '-'}")
    lines.append(f"  discard: {' '.join(p['discard']) or '-'}")
    piles = "; ".join(f"{g} {v}" for g, v in p["tokens"].items())
    lines.append(f"  tokens:  {piles}")
    return "\n".join(lines)


@click.command("replay")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the result and position as JSON.")
def replay_command(file: str, as_json: bool) -> None:
    """Replay a record: the result and the final position."""
    record = _load(file)
    match = _replay(file, record)
    if as_json:
        out = {"result": result_json(match), "position": position_json(match)}
        click.echo(json.dumps(out, indent=1))
    else:
        click.echo(describe(record, match))


@click.command("moves")
@click.argument("file", type=click.Path(dir_okay=False))
def moves_command(file: str) -> None:
    """The legal moves after the record's last move, one per line."""
    record = _load(file)
    match = _replay(file, record)
    if match.is_over:
        click.echo(f"{_shown(file)}: the game is over: there are no legal moves", err=True)
        sys.exit(1)
    for move in match.legal_moves():
        click.echo(str(move))


@click.command("verify")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False))
@click.option(
    "--game",
    "game_ids",
    multiple=True,
    metavar="GAME_ID",
    help="Verify a game stored in the server's database instead of a file.",
)
def verify_command(files: tuple[str, ...], game_ids: tuple[str, ...]) -> None:
    """Check records: format, seed against commitment, hash chain, times, replay, position
    digests, result and dispute evidence. An event record (jaipur-event/1) is checked by
    recomputing its pairings and standings, and against the game records named with it.
    One line per file: ``ok``, ``FAIL`` (a check failed) or ``NOT A RECORD``. Exit 0 when
    every file holds, 1 when a check fails, 2 when a file is not a record."""
    if not files and not game_ids:
        raise click.UsageError("name record files, or --game GAME_ID")
    worst = 0  # 0 every file holds, 1 a check failed, 2 a file is not a record
    if game_ids:
        from .admin.games import verify_stored  # the database is needed only here

        if not all([verify_stored(game_id) for game_id in game_ids]):
            worst = 1
    events: list[tuple[str, EventRecord]] = []
    games: list[tuple[str, Record]] = []
    for path in files:
        try:
            event = _event(path)
            if event is not None:
                events.append((path, event))
                continue
            record = read_record(path)
        except RecordError as exc:
            click.echo(f"NOT A RECORD {_shown(path)}: {exc}")
            worst = 2
            continue
        games.append((path, record))
        worst = max(worst, _verify_game(path, record))
    for path, event in events:
        worst = max(worst, _verify_event(path, event, [g for _, g in games]))
    if events:
        worst = max(worst, _unmatched(events, games))
    sys.exit(worst)


def _unmatched(events: list[tuple[str, EventRecord]], games: list[tuple[str, Record]]) -> int:
    """Every game record named with event records is one of their games: one on no board
    of them is a failure, said, not dropped."""
    ids = {r.game_id for _, event in events for r in event.results if r.game_id}
    named = " or ".join(_shown(path) for path, _ in events)
    worst = 0
    for path, game in games:
        if game.game_id not in ids:
            click.echo(f"FAIL {_shown(path)}: game {game.game_id} is on no board of {named}")
            worst = 1
    return worst


def _event(path: str) -> EventRecord | None:
    """The event record in ``path``, or None if the file says it is no event record."""
    try:
        with open(path, "rb") as f:
            data = strict_json(f.read())
    except OSError:
        return None  # read_record says why
    except RecordError:
        return None
    return parse_event(data) if is_event(data) else None


def _verify_game(path: str, record: Record) -> int:
    try:
        report = verify(record)
    except Exception as exc:  # a file the checks did not foresee: said, never a traceback
        click.echo(f"NOT A RECORD {_shown(path)}: it could not be checked ({exc!r})")
        return 2
    if report.ok:
        names = ", ".join(c.name for c in report.checks)
        click.echo(f"ok   {_shown(path)}: {record.format}, {len(record.moves)} moves; {names} hold")
        for what in report.unchecked:
            click.echo(f"     not checked: {what}")
        return 0
    failed = report.first_failure
    assert failed is not None
    click.echo(f"FAIL {_shown(path)}: {failed.name}: {failed.detail}")
    return 1


def _verify_event(path: str, event: EventRecord, games: list[Record]) -> int:
    """An event against itself and the game records named with it (those of its games)."""
    ids = {r.game_id for r in event.results if r.game_id}
    try:
        report = verify_event(event, [g for g in games if g.game_id in ids])
    except Exception as exc:  # as for a game: said, never a traceback
        click.echo(f"NOT A RECORD {_shown(path)}: it could not be checked ({exc!r})")
        return 2
    if not report.ok:
        failed = report.first_failure
        assert failed is not None
        click.echo(f"FAIL {_shown(path)}: {failed.name}: {failed.detail}")
        return 1
    rounds = len({p.round for p in event.pairings})
    played = sum(1 for c in report.checks if c.name.startswith("game "))
    names = ", ".join(c.name for c in report.checks if not c.name.startswith("game "))
    click.echo(
        f"ok   {_shown(path)}: {EVENT_FORMAT}, {event.rules.format.value}, {len(event.entrants)} "
        f"entrants, {rounds} rounds, {len(event.results)} results; {names} hold; "
        f"{played} game records match"
    )
    for what in report.unchecked:
        click.echo(f"     not checked: {what}")
    return 0


@click.command("reproduce")
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--assume-program",
    metavar="NAME",
    help="Take the computer's moves that name no program (logged before pbem 0.4.0) as "
    "chosen by NAME, e.g. pbem-ai/2 for a game played with pbem 0.3.0.",
)
def reproduce_command(file: str, assume_program: str | None) -> None:
    """Play the computer's moves of a finished game again, from its record: the record is
    verified, then every move of the computer's seat that this version's program chose
    (the record's computer field says which) is searched again with the game's seed and
    compared with the log. Exit 0 when every one of its moves was played again and is
    the same; 1 when one differs, the record fails verification, or its computer field
    contradicts the record; 2 when the file is not a finished game's record against the
    computer, or none of its moves can be played again by this version; 3 when those
    played again are the same but others were chosen by another program (listed)."""
    from .ai import VERSION
    from .ai.reproduce import (
        ComputerFieldError,
        FieldContradicted,
        check_field,
        read_computer,
        reproduce,
    )

    record = _load(file)
    verified = _verify_game(file, record)
    if verified:
        sys.exit(verified)
    if record.seed is None or record.result is None:
        click.echo(f"{_shown(file)}: cannot reproduce: not a finished game's record", err=True)
        sys.exit(2)
    try:
        computer = read_computer(record)
        check_field(record, computer)
        done = list(reproduce(record, computer, assume_program))
    except FieldContradicted as exc:
        click.echo(f"FAIL {_shown(file)}: {exc}")
        sys.exit(1)
    except ComputerFieldError as exc:
        click.echo(f"{_shown(file)}: cannot reproduce: {exc}", err=True)
        sys.exit(2)
    if not done:
        click.echo(f"{_shown(file)}: cannot reproduce: the computer made no move", err=True)
        sys.exit(2)
    who = f"the computer (seat {computer.seat}, {computer.level})"
    for r in done:
        if r.again is not None and not r.same:
            click.echo(
                f"FAIL {_shown(file)}: {who}, move {r.n}: the record has {r.recorded!r}; "
                f"{VERSION} plays {r.again!r}"
            )
            click.echo(
                "     (the seat, the level and each move's program are the record's computer "
                "field, which no hash binds: a move differs if they are wrong too)"
            )
            sys.exit(1)
    again = [r for r in done if r.again is not None]
    skipped: dict[str, list[int]] = {}
    for r in done:
        if r.again is None:
            by = repr(r.program) if r.program is not None else "no program named"
            if r.program is None and assume_program is not None:
                by += f", taken as {assume_program!r}"
            skipped.setdefault(by, []).append(r.n)
    if again and not skipped:
        click.echo(
            f"ok   {_shown(file)}: {who}: all {len(again)} of its moves played again by "
            f"{VERSION}, the same"
        )
        sys.exit(0)
    if again:
        click.echo(
            f"PART {_shown(file)}: {who}: {len(again)} of its {len(done)} moves played again by "
            f"{VERSION}, the same; {len(done) - len(again)} not played again"
        )
    for by, numbers in skipped.items():
        click.echo(f"     not played again: {_numbers(numbers)} ({by}; this is {VERSION!r})")
    click.echo(
        "     (docs/computer.md lists the pbem versions of each program; --assume-program "
        "takes the moves that name none as one's)",
        err=True,
    )
    if not again:
        click.echo(f"{_shown(file)}: cannot reproduce: {VERSION} chose none of its moves", err=True)
        sys.exit(2)
    sys.exit(3)


def _numbers(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:8])
    more = f" and {len(numbers) - 8} more" if len(numbers) > 8 else ""
    return f"move{'s' if len(numbers) > 1 else ''} {shown}{more}"


COMMANDS = (replay_command, moves_command, verify_command, reproduce_command)
