"""CARIBO game flow for 2–4 players and the 2-player championship match.

Rules (seed): all 36 tiles are dealt evenly (18/12/9); the holder of the black tile
``S`` opens by placing it; play passes clockwise (player ``i`` to ``i + 1 mod n``);
placing is compulsory when possible, otherwise the player passes (a :data:`PASS` move).
The game ends when a player's hand is empty (that player wins) or when nobody can place
a tile any more (fewest tiles left wins; ties give several winners).  Decisions where
the seed is silent (documented here, tested in ``tests/test_caribo_game.py``):

* Players are ``0 .. n-1`` in clockwise order.
* The opening is one canonical placement at ``(0, 0)`` in rotation 0 (the empty
  table is symmetric); ``push`` also accepts any other cell/rotation for it.
* A blocked game in which *all* players hold the same number of tiles is a draw:
  ``winners()`` is empty.  Otherwise the players with fewest tiles win (2 players: one
  winner; 3–4 players: possibly several).
* Championship mode (2 players): 3 one-colour + 15 two-colour tiles each; from game 2
  the loser of the previous game opens with *any* tile of their hand; after a drawn game
  the holder of ``S`` opens with ``S``.  Best of five: the match ends as soon as a player
  has 3 wins or after 5 games; a drawn game counts as played but gives no win; a match
  whose 5 games leave the wins equal is drawn.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from engines.errors import IllegalMoveError
from engines.game import GameState

from .board import Board, Placement, hand_mask, iter_bits
from .errors import DuplicateTileError, IllegalPlacementError
from .tiles import ALL_ROTATIONS, ALL_TILES, TILE_ID, Tile

BLACK_ID = TILE_ID[("S", "S")]
DEAL_SIZES = {2: 18, 3: 12, 4: 9}


@dataclass(frozen=True, slots=True)
class Pass:
    """The forced pass of a player who cannot place any tile."""

    def __str__(self) -> str:
        return "pass"


PASS = Pass()
Move = Placement | Pass


def tiles_of_mask(mask36: int) -> list[Tile]:
    """The physical tiles (rotation 0) of a 36-bit mask."""
    return [ALL_TILES[t] for t in iter_bits(mask36)]


class LegalMoves:
    """Lazy, re-iterable view of the legal moves of a game position."""

    __slots__ = ("_game", "_key", "_cache")

    def __init__(self, game: CariboGame) -> None:
        self._game = game
        self._key = len(game._history)
        self._cache: list | None = None

    def _moves(self) -> list:
        if self._cache is None:
            if len(self._game._history) != self._key:
                raise RuntimeError("the game changed since legal_moves() was called")
            self._cache = self._game._generate()
        return self._cache

    def __iter__(self) -> Iterator:
        return iter(self._moves())

    def __len__(self) -> int:
        return len(self._moves())

    def __contains__(self, move: object) -> bool:
        return move in self._moves()

    def __bool__(self) -> bool:
        return bool(self._moves())


class CariboGame(GameState):
    """A CARIBO game between 2–4 players with known hands (see module docstring)."""

    def __init__(
        self,
        hands: Sequence[Iterable[Tile | int]],
        *,
        first_player: int | None = None,
        open_with_any: bool = False,
    ) -> None:
        """Start a game from dealt hands (tiles or tile ids).

        By default the holder of ``S`` opens with ``S``.  ``open_with_any`` (championship
        games 2+) lets ``first_player`` open with any tile of their hand.
        """
        if len(hands) not in DEAL_SIZES:
            raise ValueError(f"players: {len(hands)} players; CARIBO is for 2, 3 or 4")
        self.hands: list[int] = [hand_mask(h) for h in hands]
        total = 0
        for h in self.hands:
            if total & h:
                raise ValueError("hands: a tile was dealt twice")
            total |= h
        if total != (1 << 36) - 1:
            raise ValueError("hands: the deal must use all 36 tiles")
        self.n_players = len(hands)
        self.open_with_any = bool(open_with_any)
        holder = next(i for i, h in enumerate(self.hands) if h >> BLACK_ID & 1)
        if open_with_any:
            if first_player is None:
                raise ValueError("first_player: required when opening with any tile")
            self.to_move = first_player
        else:
            if first_player is not None and first_player != holder:
                raise ValueError("first_player: the holder of S opens")
            self.to_move = holder
        self.first_player = self.to_move
        self.board = Board()
        self._history: list[tuple[Move, int]] = []
        self._over_cache: tuple[int, bool] | None = None

    # -- construction -------------------------------------------------------------------
    @classmethod
    def deal(
        cls,
        players: int = 2,
        rng: random.Random | int | None = None,
        *,
        championship: bool = False,
        opener: int | None = None,
    ) -> CariboGame:
        """Shuffle and deal all 36 tiles (``rng``: a Random or a seed).

        ``championship`` (2 players): 3 one-colour and 15 two-colour tiles each; with
        ``opener`` set, that player opens with any tile (games 2+ of a match).
        """
        if players not in DEAL_SIZES:
            raise ValueError(f"players: {players}; CARIBO is for 2, 3 or 4")
        if not isinstance(rng, random.Random):
            rng = random.Random(rng)
        ids = list(range(36))
        if championship:
            if players != 2:
                raise ValueError("championship mode is for 2 players")
            singles, pairs = ids[:6], ids[6:]
            rng.shuffle(singles)
            rng.shuffle(pairs)
            hands = [singles[:3] + pairs[:15], singles[3:] + pairs[15:]]
        else:
            rng.shuffle(ids)
            k = DEAL_SIZES[players]
            hands = [ids[i * k : (i + 1) * k] for i in range(players)]
        return cls(hands, first_player=opener, open_with_any=opener is not None)

    @classmethod
    def from_position(
        cls,
        board: Board,
        hands: Sequence[Iterable[Tile | int]],
        to_move: int = 0,
        *,
        open_with_any: bool = False,
    ) -> CariboGame:
        """A game that continues from a laid ``board`` (its tiles have no history).

        ``hands`` and the board must hold the 36 tiles exactly once.  On an empty board
        the holder of ``S`` must be ``to_move`` unless ``open_with_any``.
        """
        if len(hands) not in DEAL_SIZES:
            raise ValueError(f"players: {len(hands)} players; CARIBO is for 2, 3 or 4")
        if board.duplicates:
            raise DuplicateTileError("board: a tile lies on the board twice")
        if not 0 <= to_move < len(hands):
            raise ValueError(f"to_move: no player {to_move}")
        masks = [hand_mask(h) for h in hands]
        total = board.used_mask
        for m in masks:
            if total & m:
                raise DuplicateTileError("hands: a tile is in two places")
            total |= m
        if total != (1 << 36) - 1:
            raise ValueError("hands: the hands and the board must hold all 36 tiles")
        game = cls.__new__(cls)
        game.hands = masks
        game.n_players = len(hands)
        game.open_with_any = bool(open_with_any)
        if len(board) == 0 and not open_with_any and not masks[to_move] >> BLACK_ID & 1:
            raise ValueError("to_move: the holder of S opens")
        game.to_move = to_move
        game.first_player = to_move
        game.board = board.copy()
        game._history = []
        game._over_cache = None
        return game

    def copy(self) -> CariboGame:
        """An independent copy including the history."""
        new = type(self).__new__(type(self))
        new.hands = list(self.hands)
        new.n_players = self.n_players
        new.open_with_any = self.open_with_any
        new.to_move = self.to_move
        new.first_player = self.first_player
        new.board = self.board.copy()
        new._history = list(self._history)
        new._over_cache = self._over_cache
        return new

    # -- GameState interface ----------------------------------------------------------------
    def current_player(self) -> int:
        """The player to move (0-based, clockwise order)."""
        return self.to_move

    def hand(self, player: int | None = None) -> list[Tile]:
        """The tiles (rotation 0) in a player's hand (default: the player to move)."""
        return tiles_of_mask(self.hands[self.to_move if player is None else player])

    def _generate(self) -> list:
        if self.is_over():
            return []
        hand = self.hands[self.to_move]
        if len(self.board) == 0:
            if self.open_with_any:
                return [Placement(0, 0, ALL_ROTATIONS[6 * t]) for t in iter_bits(hand)]
            return [Placement(0, 0, ALL_TILES[BLACK_ID])]
        moves = self.board.legal_placements(hand)
        return moves if moves else [PASS]

    def legal_moves(self) -> LegalMoves:
        """Lazy view of the legal moves; ``[PASS]`` when the player cannot place."""
        return LegalMoves(self)

    def placements(self) -> list[Placement]:
        """The legal placements of the player to move (empty if they must pass)."""
        return [m for m in self._generate() if isinstance(m, Placement)]

    def can_place(self, player: int) -> bool:
        """Whether ``player`` could place a tile on the current board."""
        if len(self.board) == 0:
            return bool(self.hands[player]) and (
                self.open_with_any or bool(self.hands[player] >> BLACK_ID & 1)
            )
        return self.board.has_legal_placement(self.hands[player])

    def push(self, move: Move) -> None:
        """Play a placement or :data:`PASS`; raises :class:`IllegalMoveError` if illegal."""
        if self.is_over():
            raise IllegalMoveError("the game is over")
        player = self.to_move
        if isinstance(move, Pass):
            if self.can_place(player):
                raise IllegalMoveError(f"player {player} can place a tile and may not pass")
        elif isinstance(move, Placement):
            tid = TILE_ID[move.tile.identity]
            if not self.hands[player] >> tid & 1:
                raise IllegalMoveError(
                    f"tile {move.tile.identity_code} is not in player {player}'s hand"
                )
            if len(self.board) == 0 and not self.open_with_any and tid != BLACK_ID:
                raise IllegalPlacementError("the holder of S opens with S")
            self.board.push(move)
            self.hands[player] &= ~(1 << tid)
        else:
            raise IllegalMoveError(f"not a CARIBO move: {move!r}")
        self._history.append((move, player))
        self.to_move = (player + 1) % self.n_players
        self._over_cache = None

    def pop(self) -> Move:
        """Undo the last move and return it."""
        if not self._history:
            raise IndexError("pop from a game without moves")
        move, player = self._history.pop()
        if isinstance(move, Placement):
            self.board.pop()
            self.hands[player] |= 1 << TILE_ID[move.tile.identity]
        self.to_move = player
        self._over_cache = None
        return move

    @property
    def history(self) -> tuple[tuple[Move, int], ...]:
        """``(move, player)`` pairs in the order played."""
        return tuple(self._history)

    def is_over(self) -> bool:
        """A hand is empty, or nobody can place a tile."""
        key = len(self._history)
        if self._over_cache is not None and self._over_cache[0] == key:
            return self._over_cache[1]
        over = any(h == 0 for h in self.hands) or not any(
            self.can_place(p) for p in range(self.n_players)
        )
        self._over_cache = (key, over)
        return over

    def winners(self) -> list[int]:
        """Winners of the finished game; empty for a draw (see module docstring)."""
        if not self.is_over():
            return []
        counts = [h.bit_count() for h in self.hands]
        best = min(counts)
        winners = [p for p, c in enumerate(counts) if c == best]
        if len(winners) == self.n_players:
            return []
        return winners

    # -- information -----------------------------------------------------------------------
    @property
    def hands_open(self) -> bool:
        """2-player games are played with open hands (seed)."""
        return self.n_players == 2

    def observation(self, player: int) -> dict:
        """What ``player`` may know: board, own hand, others' counts (2 players: both hands)."""
        obs = {
            "player": player,
            "to_move": self.to_move,
            "board": self.board.notation(),
            "placed": [p.to_json() for p in self.board.move_stack],
            "hand": [t.identity_code for t in self.hand(player)],
            "hand_counts": [h.bit_count() for h in self.hands],
        }
        if self.hands_open:
            obs["hands"] = [[t.identity_code for t in self.hand(p)] for p in range(self.n_players)]
        return obs


class ChampionshipMatch:
    """A best-of-five championship match between players 0 and 1 (see module docstring).

    ``results`` holds, per game played, the winning player or ``None`` for a draw.
    """

    def __init__(self, seed: int | random.Random | None = None) -> None:
        self.rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        self.results: list[int | None] = []

    def wins(self) -> list[int]:
        """Games won by player 0 and player 1."""
        return [sum(1 for r in self.results if r == p) for p in (0, 1)]

    def is_over(self) -> bool:
        """Three wins for one player, or five games played."""
        return max(self.wins()) >= 3 or len(self.results) >= 5

    def winner(self) -> int | None:
        """The match winner, ``None`` while running or for a drawn match."""
        if not self.is_over():
            return None
        w0, w1 = self.wins()
        return None if w0 == w1 else (0 if w0 > w1 else 1)

    def next_opener(self) -> int | None:
        """Who opens with any tile next game (``None``: the holder of ``S`` opens with S)."""
        if not self.results or self.results[-1] is None:
            return None
        return 1 - self.results[-1]

    def next_game(self) -> CariboGame:
        """Deal the next game of the match."""
        if self.is_over():
            raise IllegalMoveError("the match is over")
        return CariboGame.deal(2, self.rng, championship=True, opener=self.next_opener())

    def record(self, game: CariboGame) -> None:
        """Record a finished game's result."""
        if not game.is_over():
            raise IllegalMoveError("the game is not over")
        if self.is_over():
            raise IllegalMoveError("the match is over")
        winners = game.winners()
        self.results.append(winners[0] if len(winners) == 1 else None)
