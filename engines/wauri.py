"""Wauri (a Mancala from Grand Cayman): rules, position format and a search.

Board and numbering (SPEC "Wauri"). Internally a position is a 14-slot array::

    index  0..5   south pits 1..6 (south's sowing order)
    index  6      south's store (on south's right)
    index  7..12  north pits 1..6 (north's sowing order)
    index 13      north's store (on north's right)

Sowing is counter-clockwise: from south pit ``i`` the seeds go one by one into south
pits ``i+1..6``, south's store, north pits 1..6, (never north's store), south pit 1, ...
and symmetrically for north. The cycle therefore has 13 holes (12 pits + the mover's own
store) and the emptied starting pit *is* re-sown on laps of 13 or more seeds: 13 seeds
put one seed into every other hole and the last one back into the starting pit.

* A move is a pit number 1-6 of the mover's row holding at least one seed; there is no
  pass.
* If the last seed falls into the mover's own store the same player moves again (an
  extra move); otherwise the turn passes. There are no captures.
* Main rule (seed text): the game ends when the player to move cannot move (all own
  pits empty) -- that player wins. The opponent, who still has seeds, loses.
* Variant (option ``rule=Rule.VARIANT``): a player wins as soon as their own row is
  empty after a move (checked after every complete sowing, never in the middle of one),
  even if the opponent could feed them seeds on the next move, and even when the move
  that emptied the row earned an extra move.

Edge cases (documented decisions):

* A move only adds seeds to the opponent's row, so a move can only empty the mover's own
  row. A move that empties the mover's row either ends in the mover's store (extra move:
  the mover is to move with an empty row and wins under both rules) or passes the turn
  (main rule: the game goes on and the mover wins if the row is still empty when their
  turn comes; variant: the mover wins at once).
* Both rows can be empty only after a move that ends in the mover's store (a last seed
  in a pit leaves that pit non-empty), so the player to move is the one who emptied the
  board last. For any position with both rows empty we declare the player to move the
  winner under both rules: under the main rule that is the seed's rule verbatim; under
  the variant such a position never arises in play (the first emptied row already ended
  the game), and for a photographed one we follow the main rule rather than guess the
  unknown history.
* Under the variant, a position whose player *not* to move has an empty row is over
  (that player won); under the main rule it is not over (the opponent must move and may
  feed the empty row).
* Games are finite: stores never shrink, a move that crosses into the opponent's row
  passes the mover's store and adds to it, and moves that stay in the mover's row move
  seeds strictly forward. Input is nevertheless bounded: at most :data:`MAX_SEEDS` seeds
  in total.

The search (:func:`search`, :class:`Searcher`) is an iterative-deepening negamax
alpha-beta (principal-variation search) with a transposition table keyed by the 15-tuple
(14 slots + side to move), move ordering (TT move, extra moves, history heuristic), a
time/node budget and mate-distance scores, so results that reach the end of the game on
every line are reported as proven wins or losses (small endgames are solved exactly).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import Enum

from .errors import FormatError, IllegalMoveError
from .game import GameState

__all__ = [
    "MAX_SEEDS",
    "NORTH",
    "PLAYERS",
    "SOUTH",
    "Move",
    "Position",
    "Rule",
    "SearchResult",
    "Searcher",
    "WauriState",
    "evaluate",
    "explain",
    "search",
    "sow",
    "turn_outcomes",
]

SOUTH = "south"
NORTH = "north"
PLAYERS = (SOUTH, NORTH)

PITS = 6
SLOTS = 14
CYCLE = 13  # holes a player sows into: 12 pits + own store
STORE = (6, 13)  # store index of south (0) and north (1)
MAX_SEEDS = 1000  # total seeds accepted in a position (the real board has 48)

# Keys a position object may carry besides the SPEC fields: derived or recogniser
# metadata (``play`` adds "winner", ``recognize`` adds "confidence"/"warnings" and with
# --previous "moves"/"explained"). They are accepted and ignored.
IGNORED_KEYS = frozenset({"winner", "confidence", "warnings", "moves", "explained"})
REQUIRED_KEYS = ("game", "south", "north", "stores", "to_move")


class Rule(Enum):
    """Which end-of-game rule applies."""

    MAIN = "main"  # the player who cannot move at the start of their turn wins
    VARIANT = "variant"  # a player wins as soon as their own row is empty


def _cycle(player: int) -> tuple[int, ...]:
    """The 13 absolute slot indices ``player`` sows into, starting at their pit 1."""
    start = 7 * player
    return tuple((start + k) % SLOTS for k in range(CYCLE))


CYCLES = (_cycle(0), _cycle(1))
# TARGETS[p][i]: slots receiving seeds 1..13 when player p sows from own pit i (0-based).
TARGETS = tuple(
    tuple(tuple(CYCLES[p][(i + k) % CYCLE] for k in range(1, CYCLE + 1)) for i in range(PITS))
    for p in (0, 1)
)


# ---------------------------------------------------------------------------------------
# Moves


@dataclass(frozen=True, slots=True)
class Move:
    """A Wauri move: the pit number 1-6 in the mover's sowing order."""

    pit: int

    def __post_init__(self):
        if type(self.pit) is not int or not 1 <= self.pit <= PITS:
            raise FormatError(f"move: {self.pit!r} is not a pit number 1-6")

    @classmethod
    def parse(cls, text: str, what: str = "move") -> Move:
        """Parse ``"1"``..``"6"`` (surrounding blanks allowed); :class:`FormatError` else."""
        token = str(text).strip()
        if not (len(token) == 1 and token in "123456"):
            raise FormatError(f"{what}: {text!r} is not a pit number 1-6")
        return cls(int(token))

    def __str__(self) -> str:
        return str(self.pit)


MOVES = tuple(Move(p) for p in range(1, PITS + 1))


def _as_move(move) -> Move:
    if isinstance(move, Move):
        return move
    if type(move) is int:
        return Move(move)
    if isinstance(move, str):
        return Move.parse(move)
    raise FormatError(f"move: {move!r} is not a pit number 1-6")


# ---------------------------------------------------------------------------------------
# Positions


def _check_count(value, where: str) -> int:
    if type(value) is not int or value < 0:
        raise FormatError(f"{where}: must be a non-negative integer, got {value!r}")
    if value > MAX_SEEDS:
        raise FormatError(f"{where}: {value} seeds is more than the maximum {MAX_SEEDS}")
    return value


def _check_row(value, name: str) -> tuple[int, ...]:
    if not isinstance(value, list | tuple):
        raise FormatError(f"{name}: must be a list of {PITS} seed counts")
    if len(value) != PITS:
        raise FormatError(f"{name}: must have {PITS} pits, got {len(value)}")
    return tuple(_check_count(v, f"{name}[{i}] (pit {i + 1})") for i, v in enumerate(value))


@dataclass(frozen=True, slots=True)
class Position:
    """An immutable Wauri position in SPEC terms (rows in their owners' sowing order)."""

    south: tuple[int, ...]
    north: tuple[int, ...]
    south_store: int = 0
    north_store: int = 0
    to_move: str = SOUTH

    def __post_init__(self):
        object.__setattr__(self, "south", _check_row(self.south, "south"))
        object.__setattr__(self, "north", _check_row(self.north, "north"))
        _check_count(self.south_store, "stores.south")
        _check_count(self.north_store, "stores.north")
        if self.to_move not in PLAYERS:
            raise FormatError(f"to_move: must be 'south' or 'north', got {self.to_move!r}")
        total = sum(self.south) + sum(self.north) + self.south_store + self.north_store
        if total > MAX_SEEDS:
            raise FormatError(f"position: {total} seeds in total, more than {MAX_SEEDS}")

    @classmethod
    def start(cls, seeds_per_pit: int = 4) -> Position:
        """The starting position: ``seeds_per_pit`` seeds in every pit, south to move."""
        return cls((seeds_per_pit,) * PITS, (seeds_per_pit,) * PITS)

    @classmethod
    def from_json(cls, obj) -> Position:
        """Build a position from the SPEC JSON object; :class:`FormatError` names bad fields."""
        if not isinstance(obj, Mapping):
            raise FormatError("position: must be a JSON object")
        for key in obj:
            if key not in REQUIRED_KEYS and key not in IGNORED_KEYS:
                raise FormatError(f"position: unknown key {key!r}")
        for key in REQUIRED_KEYS:
            if key not in obj:
                raise FormatError(f"{key}: missing")
        if obj["game"] != "wauri":
            raise FormatError(f"game: must be 'wauri', got {obj['game']!r}")
        stores = obj["stores"]
        if not isinstance(stores, Mapping):
            raise FormatError("stores: must be an object {\"south\": n, \"north\": n}")
        for key in stores:
            if key not in PLAYERS:
                raise FormatError(f"stores: unknown key {key!r}")
        for key in PLAYERS:
            if key not in stores:
                raise FormatError(f"stores.{key}: missing")
        return cls(
            _check_row(obj["south"], "south"),
            _check_row(obj["north"], "north"),
            stores["south"],
            stores["north"],
            obj["to_move"],
        )

    def to_json(self) -> dict:
        """The SPEC JSON object of this position."""
        return {
            "game": "wauri",
            "south": list(self.south),
            "north": list(self.north),
            "stores": {"south": self.south_store, "north": self.north_store},
            "to_move": self.to_move,
        }

    @classmethod
    def from_board(cls, board, side: int) -> Position:
        """From the internal 14-slot array and side index (0 south, 1 north)."""
        return cls(tuple(board[0:6]), tuple(board[7:13]), board[6], board[13], PLAYERS[side])

    def board(self) -> tuple[int, ...]:
        """The internal 14-slot array (see the module docstring)."""
        return (*self.south, self.south_store, *self.north, self.north_store)

    @property
    def side(self) -> int:
        """0 if south is to move, 1 if north."""
        return PLAYERS.index(self.to_move)

    def total(self) -> int:
        """All seeds on the board (pits and stores)."""
        return sum(self.board())

    def __str__(self) -> str:
        """A text diagram from south's seat: north's row reversed on top."""
        top = " ".join(f"{n:2d}" for n in reversed(self.north))
        bottom = " ".join(f"{n:2d}" for n in self.south)
        mark = {SOUTH: "", NORTH: ""}
        mark[self.to_move] = " *"
        return (
            f"     {top}{mark[NORTH]}\n"
            f"{self.north_store:3d}{' ' * (3 * PITS + 2)}{self.south_store:3d}\n"
            f"     {bottom}{mark[SOUTH]}"
        )


# ---------------------------------------------------------------------------------------
# The fast core on 14-slot arrays


def sow(board: list[int], side: int, pit_index: int) -> bool:
    """Sow from ``side``'s pit ``pit_index`` (0-based) in place; True if an extra move follows.

    The pit must hold at least one seed (not checked here).
    """
    start = 7 * side + pit_index
    n = board[start]
    board[start] = 0
    laps, rest = divmod(n, CYCLE)
    if laps:
        for slot in CYCLES[side]:
            board[slot] += laps
    targets = TARGETS[side][pit_index]
    for slot in targets[:rest]:
        board[slot] += 1
    return targets[(n - 1) % CYCLE] == STORE[side]


def _row_empty(board, side: int) -> bool:
    s = 7 * side
    return not any(board[s : s + 6])


def _winner_side(board, side: int, rule: Rule) -> int | None:
    """The winning side index if the game is over, else None."""
    if _row_empty(board, side):
        return side
    if rule is Rule.VARIANT and _row_empty(board, 1 - side):
        return 1 - side
    return None


# ---------------------------------------------------------------------------------------
# GameState


class LegalMoves:
    """A lazy, re-iterable view of the legal moves of a state (pits holding seeds)."""

    __slots__ = ("_state",)

    def __init__(self, state: WauriState):
        self._state = state

    def __iter__(self) -> Iterator[Move]:
        st = self._state
        if st.is_over():
            return
        base = 7 * st._side
        board = st._board
        for i in range(PITS):
            if board[base + i]:
                yield MOVES[i]

    def __contains__(self, move) -> bool:
        try:
            return self._state.why_illegal(_as_move(move)) is None
        except FormatError:
            return False

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __bool__(self) -> bool:
        return any(True for _ in self)

    def __repr__(self) -> str:
        return f"<LegalMoves {[m.pit for m in self]}>"


@dataclass(slots=True)
class _Undo:
    move: Move
    board: tuple[int, ...]
    side: int


class WauriState(GameState):
    """A Wauri game in progress: position, rule and move history (push/pop are inverses)."""

    def __init__(self, position: Position | None = None, rule: Rule = Rule.MAIN):
        """A state at ``position`` (default: the start position) under ``rule``."""
        position = Position.start() if position is None else position
        if not isinstance(rule, Rule):
            raise FormatError(f"rule: must be a Rule, got {rule!r}")
        self._board = list(position.board())
        self._side = position.side
        self.rule = rule
        self._stack = []

    # -- GameState interface -----------------------------------------------------------

    def current_player(self) -> str:
        """``"south"`` or ``"north"`` (also when the game is over: the player who would move)."""
        return PLAYERS[self._side]

    def legal_moves(self) -> LegalMoves:
        """The legal moves (pits with seeds), empty only when the game is over."""
        return LegalMoves(self)

    def push(self, move) -> None:
        """Play ``move`` (a :class:`Move`, or a pit number); IllegalMoveError if illegal."""
        move = _as_move(move)
        problem = self.why_illegal(move)
        if problem is not None:
            raise IllegalMoveError(f"pit {move.pit} for {PLAYERS[self._side]}: {problem}")
        self._stack.append(_Undo(move, tuple(self._board), self._side))
        if not sow(self._board, self._side, move.pit - 1):
            self._side = 1 - self._side

    def pop(self) -> Move:
        """Undo the last move and return it (IndexError if there is none)."""
        undo = self._stack.pop()
        self._board[:] = undo.board
        self._side = undo.side
        return undo.move

    def is_over(self) -> bool:
        """True when the game has ended under this state's rule."""
        return _winner_side(self._board, self._side, self.rule) is not None

    def winners(self) -> list[str]:
        """``[winner]`` once the game is over, ``[]`` before (Wauri has no draws)."""
        w = _winner_side(self._board, self._side, self.rule)
        return [] if w is None else [PLAYERS[w]]

    def copy(self) -> WauriState:
        """An independent copy including the history."""
        other = WauriState.__new__(WauriState)
        other._board = list(self._board)
        other._side = self._side
        other.rule = self.rule
        other._stack = list(self._stack)  # entries are never mutated
        return other

    # -- extras ------------------------------------------------------------------------

    def winner(self) -> str | None:
        """The winner (``"south"``/``"north"``) or None while the game goes on."""
        w = _winner_side(self._board, self._side, self.rule)
        return None if w is None else PLAYERS[w]

    def position(self) -> Position:
        """The current position as an immutable :class:`Position`."""
        return Position.from_board(self._board, self._side)

    def board(self) -> tuple[int, ...]:
        """The 14-slot array (see the module docstring)."""
        return tuple(self._board)

    @property
    def history(self) -> list[Move]:
        """The moves pushed so far, oldest first."""
        return [u.move for u in self._stack]

    def gives_extra_move(self, move) -> bool:
        """True if the (legal) ``move`` ends in the mover's store."""
        move = _as_move(move)
        n = self._board[7 * self._side + move.pit - 1]
        return n > 0 and TARGETS[self._side][move.pit - 1][(n - 1) % CYCLE] == STORE[self._side]

    def why_illegal(self, move) -> str | None:
        """Why ``move`` is illegal here (``"pit is empty"``, game over), None if legal."""
        move = _as_move(move)
        w = _winner_side(self._board, self._side, self.rule)
        if w is not None:
            return f"the game is over ({PLAYERS[w]} won)"
        if not self._board[7 * self._side + move.pit - 1]:
            return "pit is empty"
        return None

    def __repr__(self) -> str:
        return f"WauriState({self.position()!r}, rule={self.rule})"


# ---------------------------------------------------------------------------------------
# Explaining a photographed change


def turn_outcomes(
    before: Position, rule: Rule = Rule.MAIN, max_moves: int = 12
) -> list[tuple[list[int], Position]]:
    """Every position one turn of the player to move can reach, with the pits played.

    A turn is a move plus the extra moves it earns; positions in the middle of a turn
    (after an extra move) are included too, since a photo may be taken then. Breadth
    first, so shorter sequences come first; each distinct position appears once (its
    shortest sequence). A recogniser can rank these hypotheses against noisy counts.
    """
    side = before.side
    start = before.board()
    out: list[tuple[list[int], Position]] = []
    seen = {start}
    frontier: list[tuple[tuple[int, ...], list[int]]] = [(start, [])]
    for _ in range(max_moves):
        nxt: list[tuple[tuple[int, ...], list[int]]] = []
        for board, pits in frontier:
            if _winner_side(board, side, rule) is not None:
                continue
            for i in range(PITS):
                if not board[7 * side + i]:
                    continue
                child = list(board)
                extra = sow(child, side, i)
                key = tuple(child)
                if key in seen:
                    continue
                seen.add(key)
                line = [*pits, i + 1]
                out.append((line, Position.from_board(key, side if extra else 1 - side)))
                if extra:
                    nxt.append((key, line))
        frontier = nxt
        if not frontier:
            break
    return out


def explain(
    before: Position,
    after: Position,
    rule: Rule = Rule.MAIN,
    max_moves: int = 12,
    check_to_move: bool = False,
) -> list[int] | None:
    """The pits of one turn (a move plus any extra moves) leading from ``before`` to ``after``.

    Compares pits and stores; ``to_move`` of ``after`` is compared only with
    ``check_to_move``. The shortest explaining sequence is returned (``[]`` if nothing
    changed), None if no legal turn of at most ``max_moves`` moves explains ``after``.
    """
    if before.board() == after.board() and (
        not check_to_move or before.to_move == after.to_move
    ):
        return []
    target = after.board()
    for pits, position in turn_outcomes(before, rule, max_moves):
        if position.board() == target and (
            not check_to_move or position.to_move == after.to_move
        ):
            return pits
    return None


# ---------------------------------------------------------------------------------------
# Search

WIN = 100_000  # score of a won terminal position; minus the plies needed to get there
MATE_BOUND = WIN - 10_000  # |score| above this is a proven result
MAX_DEPTH = 200
_EXACT, _LOWER, _UPPER = 0, 1, 2


class _Timeout(Exception):
    pass


@dataclass(frozen=True)
class SearchResult:
    """The answer of :func:`search`; scores are from the view of the player to move."""

    move: Move | None
    score: int  # heuristic units (seeds x 10) or +-(WIN - plies) for proven results
    depth: int
    nodes: int
    seconds: float
    proven: bool
    pv: tuple[tuple[str, int], ...] = ()

    @property
    def plies_to_end(self) -> int | None:
        """For a proven result, the plies until the game ends with best play."""
        return WIN - abs(self.score) if self.proven else None

    @property
    def result(self) -> str | None:
        """``"win"``/``"loss"`` for the player to move when proven, else None."""
        if not self.proven:
            return None
        return "win" if self.score > 0 else "loss"


def evaluate(board, side: int, rule: Rule = Rule.MAIN) -> int:
    """Heuristic score of a non-terminal position for ``side`` to move (seeds x 10).

    Under both rules a player wins by getting rid of the seeds in their own row (seeds
    put into the own store are gone for good, seeds sown into the opponent's row are a
    burden for the opponent), so the core term is 10 x (opponent's pit seeds - own pit
    seeds). Each available extra move (a pit whose seeds end exactly in the own store)
    adds a small tempo bonus of 3. Self-play trials of distance-weighted variants at
    3000 nodes per move were within noise of this one (53% over 100 games), so the simple
    form stays.
    """
    own = 7 * side
    opp = 7 - own
    own_seeds = 0
    opp_seeds = 0
    bonus = 0
    for i in range(PITS):
        n = board[own + i]
        own_seeds += n
        opp_seeds += board[opp + i]
        if n == PITS - i:
            bonus += 3  # an extra move is available
    return 10 * (opp_seeds - own_seeds) + bonus


class Searcher:
    """Iterative-deepening negamax alpha-beta (PVS) with a transposition table.

    Nodes are 15-tuples: the 14 slots followed by the side to move, which is also the
    transposition-table key. Moves are ordered TT move first, then extra moves, then by a
    history heuristic. An extra move keeps the side to move, so its value is taken
    without negation and with the same window.
    """

    def __init__(
        self,
        rule: Rule = Rule.MAIN,
        tt_size: int = 400_000,
        evaluator=None,
        clock=time.perf_counter,
    ):
        """``evaluator(board, side, rule)`` defaults to :func:`evaluate`; the table holds at
        most ``tt_size`` entries (about 275 bytes each) and is cleared when full. ``clock``
        measures the time budget (wall clock by default; ``time.process_time`` gives
        budgets in CPU seconds, reproducible on a loaded machine)."""
        self.rule = rule
        self.clock = clock
        self.evaluator = evaluate if evaluator is None else evaluator
        self.tt: dict = {}
        self.tt_size = tt_size
        self.nodes = 0
        self.history = [[0] * PITS, [0] * PITS]
        self._deadline = float("inf")
        self._max_nodes = None

    def _negamax(self, node: tuple, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if not self.nodes & 1023:
            if self.clock() > self._deadline or (
                self._max_nodes is not None and self.nodes > self._max_nodes
            ):
                raise _Timeout
        side = node[14]
        base = 7 * side
        if not any(node[base : base + 6]):
            return WIN - ply  # the player to move cannot move: they win (both rules)
        if self.rule is Rule.VARIANT:
            ob = 7 - base
            if not any(node[ob : ob + 6]):
                return ply - WIN
        if depth <= 0:
            return self.evaluator(node, side, self.rule)

        entry = self.tt.get(node)
        tt_move = -1
        if entry is not None:
            e_depth, e_flag, e_value, tt_move = entry
            if e_depth >= depth:
                # mate scores are stored relative to this node
                if e_value > MATE_BOUND:
                    e_value -= ply
                elif e_value < -MATE_BOUND:
                    e_value += ply
                if e_flag == _EXACT:
                    return e_value
                if e_flag == _LOWER and e_value >= beta:
                    return e_value
                if e_flag == _UPPER and e_value <= alpha:
                    return e_value

        targets = TARGETS[side]
        store = STORE[side]
        cycle = CYCLES[side]
        history = self.history[side]
        first = []
        extra_moves = []
        others = []
        for i in range(PITS - 1, -1, -1):
            n = node[base + i]
            if n:
                extra = targets[i][(n - 1) % CYCLE] == store
                if i == tt_move:
                    first.append((i, extra))
                elif extra:
                    extra_moves.append((i, extra))
                else:
                    others.append((i, extra))
        if len(others) > 1:
            others.sort(key=lambda m: -history[m[0]])
        order = first + extra_moves + others

        alpha0 = alpha
        best = -WIN - 1
        best_move = order[0][0]
        other_side = 1 - side
        searched = 0
        for i, extra in order:
            child = list(node)
            n = child[base + i]
            child[base + i] = 0
            laps, rest = divmod(n, CYCLE)
            if laps:
                for slot in cycle:
                    child[slot] += laps
            for slot in targets[i][:rest]:
                child[slot] += 1
            if extra:
                child = tuple(child)
                if searched:
                    value = self._negamax(child, depth - 1, alpha, alpha + 1, ply + 1)
                    if alpha < value < beta:
                        value = self._negamax(child, depth - 1, alpha, beta, ply + 1)
                else:
                    value = self._negamax(child, depth - 1, alpha, beta, ply + 1)
            else:
                child[14] = other_side
                child = tuple(child)
                if searched:
                    value = -self._negamax(child, depth - 1, -alpha - 1, -alpha, ply + 1)
                    if alpha < value < beta:
                        value = -self._negamax(child, depth - 1, -beta, -alpha, ply + 1)
                else:
                    value = -self._negamax(child, depth - 1, -beta, -alpha, ply + 1)
            searched += 1
            if value > best:
                best = value
                best_move = i
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        history[i] += depth * depth
                        break

        flag = _EXACT
        if best <= alpha0:
            flag = _UPPER
        elif best >= beta:
            flag = _LOWER
        stored = best
        if stored > MATE_BOUND:
            stored += ply
        elif stored < -MATE_BOUND:
            stored -= ply
        if len(self.tt) >= self.tt_size:
            self.tt.clear()
        self.tt[node] = (depth, flag, stored, best_move)
        return best

    def _pv(self, node: tuple, limit: int) -> list[tuple[str, int]]:
        line = []
        seen = set()
        while len(line) < limit:
            side = node[14]
            if _winner_side(node, side, self.rule) is not None:
                break
            entry = self.tt.get(node)
            if entry is None or node in seen:
                break
            seen.add(node)
            i = entry[3]
            if not node[7 * side + i]:
                break
            line.append((PLAYERS[side], i + 1))
            child = list(node)
            if not sow(child, side, i):
                child[14] = 1 - side
            node = tuple(child)
        return line

    def search(
        self,
        position: Position,
        seconds: float | None = 1.0,
        max_depth: int = MAX_DEPTH,
        max_nodes: int | None = None,
    ) -> SearchResult:
        """Search ``position`` until ``seconds`` elapse, ``max_depth`` or a proven result.

        The transposition table is kept between calls (useful in a game); depth 1 always
        completes, so a move is always returned for a position that is not over.
        """
        start = self.clock()
        self.nodes = 0
        self._deadline = float("inf")
        self._max_nodes = max_nodes
        side = position.side
        node = (*position.board(), side)
        winner = _winner_side(node, side, self.rule)
        if winner is not None:
            return SearchResult(None, WIN if winner == side else -WIN, 0, 0, 0.0, True)
        legal = [i for i in range(PITS) if node[7 * side + i]]
        best_move, best_score, depth_done = legal[0], 0, 0
        for depth in range(1, max_depth + 1):
            if depth == 2:
                # depth 1 always completes (at most 6 children); the clock runs from here
                self._deadline = float("inf") if seconds is None else start + seconds
            try:
                score = self._negamax(node, depth, -WIN - 1, WIN + 1, 0)
            except _Timeout:
                break
            entry = self.tt.get(node)
            best_move = entry[3] if entry is not None else legal[0]
            best_score, depth_done = score, depth
            if abs(score) > MATE_BOUND:
                break
        proven = abs(best_score) > MATE_BOUND
        pv = tuple(self._pv(node, max(depth_done, 1)))
        return SearchResult(
            MOVES[best_move],
            best_score,
            depth_done,
            self.nodes,
            self.clock() - start,
            proven,
            pv,
        )


def search(
    position: Position,
    seconds: float | None = 1.0,
    rule: Rule = Rule.MAIN,
    max_depth: int = MAX_DEPTH,
    max_nodes: int | None = None,
) -> SearchResult:
    """Best move for the player to move in ``position`` (fresh transposition table).

    Stops after ``seconds`` (None: no time limit), at ``max_depth`` plies, after about
    ``max_nodes`` nodes, or as soon as the result is proven. Depth 1 always completes,
    so a legal move is always returned for a position that is not over.
    """
    return Searcher(rule).search(position, seconds, max_depth, max_nodes)
