"""``boardcam colomino score|moves``: Colomino turn scoring and legal placements.

* ``boardcam colomino score BEFORE AFTER`` prints the placements in the scoring order
  chosen, the courts, the chips and the points; exit 1 with
  ``{"legal": false, "problems": [...]}`` when the change is not a legal turn. BEFORE
  and AFTER are board states (JSON) or photos (``.jpg``/``.jpeg``/``.png``, read with
  :mod:`vision.colomino_recognition`), mixed as you like; with a photo the answer also
  carries ``"photos": {"before"|"after": {"confidence", "warnings"}}``, and a photo
  whose base line could not be told is turned to agree best with the other board.
* ``boardcam colomino moves BOARD.json --rack RRGB,YYBB,*`` prints every legal single
  placement ``{"row", "col", "tile"}`` (one per distinct resulting board; an empty list
  when nothing fits, still exit 0).

Boards are literal JSON, ``@file`` or a path ending in ``.json``.
"""

from __future__ import annotations

from engines.colomino import (
    Board,
    BoardState,
    Layout,
    Rules,
    parse_state,
    parse_tile_list,
    score_turn,
)
from engines.errors import FormatError

from ..cli_support import EXIT_NEGATIVE, EXIT_OK, UsageError, emit, read_json_argument

PHOTO_SUFFIXES = (".jpg", ".jpeg", ".png")


class _NoBoard(Exception):
    """A photo argument shows no board (a negative answer, not malformed input)."""


def register(sub) -> None:
    """Add the ``colomino`` command and its sub-commands."""
    p = sub.add_parser("colomino", help="Colomino rules: score a turn, list placements")
    csub = p.add_subparsers(dest="colomino_command", metavar="SUBCOMMAND")
    csub.required = True

    score = csub.add_parser("score", help="check and score the turn between two boards")
    score.add_argument("before", metavar="BEFORE",
                       help="board before the turn (JSON/@file or a .jpg/.png photo)")
    score.add_argument("after", metavar="AFTER",
                       help="board after the turn (JSON/@file or a .jpg/.png photo)")
    _add_rule_options(score)
    score.set_defaults(func=run_score)

    moves = csub.add_parser("moves", help="legal single placements for a rack")
    moves.add_argument("board", metavar="BOARD", help="board state (JSON/@file)")
    moves.add_argument("--rack", required=True, metavar="CODES",
                       help="rack tiles, comma-separated codes (RRGB,YYBB,*)")
    _add_rule_options(moves)
    moves.set_defaults(func=run_moves)


def _add_rule_options(p) -> None:
    p.add_argument("--side-walls", action="store_true",
                   help="the east/west board edges enclose courts too")


def _board(value: str, what: str) -> BoardState:
    obj = read_json_argument(value, what)
    try:
        return parse_state(obj)
    except FormatError as exc:
        raise UsageError(f"{what}: {exc}") from None


def _is_photo(value: str) -> bool:
    return not value.lstrip().startswith(("{", "[", "@")) and value.lower().endswith(
        PHOTO_SUFFIXES)


def _photo_board(path: str, what: str, previous: BoardState | None = None):
    """Recognise a photo argument: ``(BoardState, answer)``; raises :class:`_NoBoard`.
    ``previous``: the board before (the AFTER photo is read as its next position: the
    tiles placed before stay, and their colours are carried into the new tiles' edges)."""
    from engines.colomino import state_to_json
    from vision.colomino_recognition import answer_state, recognize
    from vision.image_io import read_photo
    from vision.recognize import NothingFound

    try:
        image = read_photo(path)
    except FormatError as exc:
        raise UsageError(f"{what}: {exc}") from None
    try:
        answer = recognize(image, previous=None if previous is None
                           else state_to_json(previous))
    except NothingFound as exc:
        raise _NoBoard(f"{what}: {exc} in {path}") from None
    return answer_state(answer), answer


def _turned_to_match(state: BoardState, other: BoardState) -> BoardState:
    """``state`` turned by the quarter turn that differs least from ``other``."""
    from vision.colomino_recognition import rotate_cw

    best, rows, rim = None, [list(r) for r in state.cells], dict(state.layout.rim)
    for _ in range(4):
        diff = sum(a != b for ra, rb in zip(rows, other.cells, strict=True)
                   for a, b in zip(ra, rb, strict=True))
        if best is None or diff < best[0]:
            best = (diff, [list(r) for r in rows], dict(rim))
        rows, rim = rotate_cw(rows, rim)
    _, rows, rim = best
    layout = other.layout if dict(other.layout.rim) == rim else Layout(state.size, rim, ())
    return BoardState(state.size, tuple(tuple(r) for r in rows), layout)


def run_score(args) -> int:
    """``colomino score``: exit 0 with the score, 1 when the turn is not legal (or a
    photo shows no board)."""
    boards, photos = {}, {}
    try:
        for key, value, what in (("before", args.before, "BEFORE"),
                                 ("after", args.after, "AFTER")):
            if _is_photo(value):
                boards[key], answer = _photo_board(value, what, boards.get("before"))
                photos[key] = answer
            else:
                boards[key] = _board(value, what)
    except _NoBoard as exc:
        emit({"legal": False, "problems": [str(exc)]})
        return EXIT_NEGATIVE
    before, after = boards["before"], boards["after"]
    # a photo whose base line is unknown: turn it to agree with the other board
    for key, other in (("after", "before"), ("before", "after")):
        ans = photos.get(key)
        if ans is not None and ans.get("base_known") is False \
                and boards[key].size == boards[other].size:
            boards[key] = _turned_to_match(boards[key], boards[other])
            before, after = boards["before"], boards["after"]
            break
    result = score_turn(before, after, Rules(side_walls=args.side_walls))
    out = result.to_json()
    if photos:
        out["photos"] = {k: {"confidence": a.get("confidence"),
                             "warnings": a.get("warnings", [])} for k, a in photos.items()}
    emit(out)
    return EXIT_OK if result.legal else EXIT_NEGATIVE


def run_moves(args) -> int:
    """``colomino moves``: every legal single placement of a rack tile."""
    state = _board(args.board, "BOARD")
    try:
        rack = parse_tile_list(args.rack, "--rack")
    except FormatError as exc:
        raise UsageError(str(exc)) from None
    board = Board.from_state(state, Rules(side_walls=args.side_walls))
    emit([p.to_json() for p in board.legal_placements(rack)])
    return EXIT_OK
