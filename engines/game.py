"""The state interface shared by the three engines (in the spirit of OpenSpiel).

A concrete state keeps its own move stack so that ``push``/``pop`` are exact inverses;
``legal_moves`` is a lazy, re-iterable view; terminal states answer ``winners``.
Random-simulation invariant tests in ``tests/`` drive every engine through this
interface only, so the engines stay alike.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable, Sequence


class GameState(ABC):
    """A position of one game plus the history that led to it."""

    @abstractmethod
    def current_player(self) -> Hashable:
        """The player to move (engine-specific label, e.g. ``"south"`` or ``0``)."""

    @abstractmethod
    def legal_moves(self) -> Iterable:
        """Legal moves for the player to move; never empty before the game is over.

        Where the rules force a pass, the pass is a move of its own.
        """

    @abstractmethod
    def push(self, move) -> None:
        """Play ``move``; raises :class:`engines.errors.IllegalMoveError` if it is illegal."""

    @abstractmethod
    def pop(self):
        """Undo the last pushed move and return it."""

    @abstractmethod
    def is_over(self) -> bool:
        """True when the game has ended."""

    @abstractmethod
    def winners(self) -> Sequence[Hashable]:
        """Winners of a finished game (several on a shared win, empty on a draw)."""

    @abstractmethod
    def copy(self) -> GameState:
        """An independent copy including the history."""


def random_playout(state: GameState, rng: random.Random, max_plies: int = 100_000) -> int:
    """Play uniformly random legal moves until the game ends; return the plies played.

    Raises ``RuntimeError`` if the game has not ended after ``max_plies`` (a rules bug).
    """
    plies = 0
    while not state.is_over():
        if plies >= max_plies:
            raise RuntimeError(f"game did not end within {max_plies} plies")
        moves = list(state.legal_moves())
        state.push(rng.choice(moves))
        plies += 1
    return plies
