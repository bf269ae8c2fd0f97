"""A whole Colomino game for 2–4 players, implementing :class:`engines.game.GameState`.

Flow (seed + SPEC): the 144 tiles go into a bag (shuffled with a seeded RNG, so games
are reproducible); every player draws five. On a turn the player places three tiles,
fewer only when no more fit; then draws back to five. A move is one
:class:`~engines.colomino.rules.Placement`; after the third placement the turn ends by
itself, and :data:`~engines.colomino.rules.END_TURN` is the (only) legal move when no rack
tile fits before that. A tile put onto a joker sends the joker back to the placing
player's rack, where it may be played again in the same turn. A joker put down in the
current turn cannot be replaced in that same turn (placed tiles may not be taken back,
seed: "Eingesetzte Steine dürfen nicht mehr verlegt oder weggenommen werden"); otherwise
one cell could pay its court twice.

Courts pay 1, 2, 3 … chips of their kind for the 1st, 2nd, 3rd court of a turn (yellow
= 1 point, blue = 2 points).

End (our documented readings): when a tile is placed in row 0 (the row next to the goal
line), the current turn is finished and then every player plays one more turn
(``Rules(final_round="all")``, the player who reached it included) or only the other
players (``"others"``). The game also ends when a full round of turns passes without any
tile placed (nobody can place; racks and bag do not change during passes), and at the
end of the turn in which the bag and every rack are empty. Winners: most points, then most blue
chips; players still tied share the win, and if every player is tied it is a draw (no
winners).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from engines.errors import IllegalMoveError
from engines.game import GameState

from .board import BoardState
from .layout import Layout, default_layout
from .rules import CLOSED, END_TURN, Board, EndTurn, Placement, Rules
from .tiles import JOKER_CODE, Tile, full_tile_set

RACK_SIZE = 5
TILES_PER_TURN = 3


@dataclass(frozen=True)
class PlayerScore:
    """A player's chips: ``yellow`` (1 point each) and ``blue`` (2 points each)."""

    yellow: int
    blue: int

    @property
    def points(self) -> int:
        """Yellow + 2 × blue."""
        return self.yellow + 2 * self.blue


class _LegalMoves:
    """Lazy, re-iterable view of the legal moves of a :class:`ColominoGame`."""

    def __init__(self, game: ColominoGame) -> None:
        self._game = game

    def __iter__(self) -> Iterator:
        game = self._game
        if game.is_over():
            return
        found = False
        rack = game.racks[game.player]
        for move in game.board.legal_placements(rack, game.turn_cells):
            found = True
            yield move
        if not found:
            yield END_TURN

    def __contains__(self, move) -> bool:
        return self._game.move_problem(move) is None


class ColominoGame(GameState):
    """A Colomino game in progress; players are numbered 0 .. n-1, player 0 starts."""

    def __init__(
        self,
        players: int = 2,
        size: int = 9,
        seed: int | None = None,
        rules: Rules | None = None,
        layout: Layout | None = None,
        bag: Sequence[str] | None = None,
    ) -> None:
        """Deal a new game. ``bag`` (pattern codes, drawn from the end) overrides the
        seeded shuffle of the full 144-tile set."""
        if not 2 <= players <= 4:
            raise ValueError(f"players: Colomino is for 2 to 4 players, got {players}")
        if layout is not None and layout.size != size:
            raise ValueError(f"layout: made for size {layout.size}, the game has size {size}")
        self.rules = rules or Rules()
        self.board = Board(size, layout or default_layout(size), self.rules)
        if bag is None:
            tiles = full_tile_set()
            random.Random(seed).shuffle(tiles)
        else:
            tiles = [Tile.parse(t, "bag").pattern for t in bag]
        self.bag: list[str] = tiles
        self.racks: list[list[str]] = [[] for _ in range(players)]
        for rack in self.racks:
            self._draw(rack)
        self.n = players
        self.yellow = [0] * players
        self.blue = [0] * players
        self.player = 0
        self.placed_this_turn = 0
        self.courts_this_turn = 0
        self.turn_cells: frozenset[tuple[int, int]] = frozenset()
        self.passes_in_row = 0
        self.end_triggered_by: int | None = None
        self.final_turns_left: int | None = None
        self.over = False
        self.history: list = []
        self._undo: list = []

    # -- GameState ---------------------------------------------------------------------
    def current_player(self) -> int:
        """The index of the player to move."""
        return self.player

    def legal_moves(self) -> _LegalMoves:
        """Placements of the current rack (lazy); just ``END_TURN`` when none fits."""
        return _LegalMoves(self)

    def move_problem(self, move) -> str | None:
        """Why ``move`` is illegal now, or ``None``."""
        if self.over:
            return "the game is over"
        rack = self.racks[self.player]
        if isinstance(move, EndTurn):
            if self.board.has_legal_placement(rack, self.turn_cells):
                return "end: a rack tile still fits, the turn needs three tiles"
            return None
        if not isinstance(move, Placement):
            return f"move: not a Colomino move: {move!r}"
        if move.tile.pattern not in rack:
            return f"move: tile {move.tile.code} is not on player {self.player}'s rack"
        if (move.row, move.col) in self.turn_cells:
            return f"rows[{move.row}][{move.col}]: a joker put down this turn cannot be replaced"
        return self.board.placement_problem(move.row, move.col, move.tile)

    def push(self, move) -> None:
        """Play one placement or end the turn; raises IllegalMoveError when illegal."""
        problem = self.move_problem(move)
        if problem is not None:
            raise IllegalMoveError(problem)
        snapshot = self._snapshot()
        cell = None
        if isinstance(move, Placement):
            board = self.board
            kind = board.court_at(move.row, move.col)
            prev = board.put(move.row, move.col, move.tile)
            cell = (move.row, move.col, prev)
            rack = self.racks[self.player]
            rack.remove(move.tile.pattern)
            if prev is not None:  # a joker comes back to the rack
                rack.append(JOKER_CODE)
            if kind is not None:
                self.courts_this_turn += 1
                if kind == CLOSED:
                    self.blue[self.player] += self.courts_this_turn
                else:
                    self.yellow[self.player] += self.courts_this_turn
            if move.row == 0 and self.end_triggered_by is None:
                self.end_triggered_by = self.player
            self.placed_this_turn += 1
            self.turn_cells = self.turn_cells | {(move.row, move.col)}
            drawn = self._end_turn() if self.placed_this_turn == TILES_PER_TURN else []
        else:
            drawn = self._end_turn()
        self.history.append(move)
        self._undo.append((snapshot, cell, drawn))

    def pop(self):
        """Undo the last move and return it."""
        if not self._undo:
            raise IndexError("pop: no move to undo")
        snapshot, cell, drawn = self._undo.pop()
        if cell is not None:
            self.board.put(cell[0], cell[1], cell[2])
        self.bag.extend(reversed(drawn))
        (
            racks, self.yellow, self.blue, self.player, self.placed_this_turn,
            self.courts_this_turn, self.turn_cells, self.passes_in_row, self.end_triggered_by,
            self.final_turns_left, self.over,
        ) = snapshot
        self.racks = [list(r) for r in racks]
        self.yellow, self.blue = list(self.yellow), list(self.blue)
        return self.history.pop()

    def is_over(self) -> bool:
        """True once the game has ended."""
        return self.over

    def winners(self) -> list[int]:
        """Most points, then most blue chips; all tied = draw (empty list)."""
        keys = [(s.points, s.blue) for s in self.scores()]
        best = max(keys)
        top = [i for i, k in enumerate(keys) if k == best]
        return [] if len(top) == self.n else top

    def copy(self) -> ColominoGame:
        """An independent copy, history included."""
        other = ColominoGame.__new__(ColominoGame)
        other.__dict__.update(self.__dict__)
        other.board = self.board.copy()
        other.bag = self.bag[:]
        other.racks = [r[:] for r in self.racks]
        other.yellow = self.yellow[:]
        other.blue = self.blue[:]
        other.history = self.history[:]
        other._undo = [
            (snap, cell, list(drawn)) for snap, cell, drawn in self._undo
        ]
        return other

    # -- information -------------------------------------------------------------------
    def scores(self) -> list[PlayerScore]:
        """Every player's chips."""
        return [PlayerScore(y, b) for y, b in zip(self.yellow, self.blue, strict=True)]

    def board_state(self) -> BoardState:
        """The board as an immutable SPEC board state."""
        return self.board.to_state()

    def tile_count(self) -> int:
        """All tiles in bag, racks and on the board (always 144 for the full set)."""
        on_board = sum(t is not None for row in self.board.grid for t in row)
        return len(self.bag) + sum(len(r) for r in self.racks) + on_board

    # -- internals ---------------------------------------------------------------------
    def _snapshot(self) -> tuple:
        return (
            tuple(tuple(r) for r in self.racks), tuple(self.yellow), tuple(self.blue), self.player,
            self.placed_this_turn, self.courts_this_turn, self.turn_cells, self.passes_in_row,
            self.end_triggered_by, self.final_turns_left, self.over,
        )

    def _draw(self, rack: list[str]) -> list[str]:
        drawn = []
        while len(rack) < RACK_SIZE and self.bag:
            tile = self.bag.pop()
            rack.append(tile)
            drawn.append(tile)
        return drawn

    def _end_turn(self) -> list[str]:
        drawn = self._draw(self.racks[self.player])
        self.passes_in_row = 0 if self.placed_this_turn else self.passes_in_row + 1
        if self.end_triggered_by is not None:
            if self.final_turns_left is None:
                self.final_turns_left = (
                    self.n if self.rules.final_round == "all" else self.n - 1
                )
            else:
                self.final_turns_left -= 1
            if self.final_turns_left == 0:
                self.over = True
        if self.passes_in_row >= self.n:
            self.over = True
        if not self.bag and not any(self.racks):
            self.over = True
        self.player = (self.player + 1) % self.n
        self.placed_this_turn = 0
        self.courts_this_turn = 0
        self.turn_cells = frozenset()
        return drawn
