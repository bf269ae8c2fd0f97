"""Move suggestion for the 2-player open-hand CARIBO game.

Two-ply minimax (the mover's placement, then every reply of the opponent, with
alpha-beta cut-offs) over a mobility evaluation: per player, the number of their tiles
that can still be placed, plus a tenth of a point per placement, minus two points per
tile still in hand; the mover's value minus twice the opponent's.  Blocking the
opponent matters more than keeping one's own options, because a blocked opponent
passes and the mover plays on (and gains a tile on them for a blocked ending).  Finished games score
±1 000 000 (0 for a draw).  Ties are broken at random when an ``rng`` is given, else by
the order of :meth:`engines.caribo.board.Board.legal_placements`.

With open hands (2 players) this uses exactly the information both players have.
Measured strength: ``benchmarks/caribo_strength.py``.
"""

from __future__ import annotations

import random

from .game import CariboGame, Move

WIN = 1_000_000.0
OWN_TILE = 1.0
OWN_PLACEMENT = 0.1
OPPONENT_FACTOR = 2.0
HAND_TILE = 2.0


def evaluate(game: CariboGame, player: int) -> float:
    """Score of the position for ``player`` (higher is better)."""
    if game.is_over():
        winners = game.winners()
        if not winners:
            return 0.0
        return WIN if player in winners else -WIN
    board = game.board
    score = 0.0
    for p in range(game.n_players):
        hand = game.hands[p]
        value = (
            OWN_TILE * board.playable_tiles(hand).bit_count()
            + OWN_PLACEMENT * board.count_placements(hand)
            - HAND_TILE * hand.bit_count()
        )
        score += value if p == player else -OPPONENT_FACTOR * value / (game.n_players - 1)
    return score


def _reply_value(game: CariboGame, player: int, cutoff: float | None) -> float:
    """The worst score ``player`` can get after the opponent's best reply (min node)."""
    if game.is_over():
        return evaluate(game, player)
    worst = None
    for reply in list(game.legal_moves()):
        game.push(reply)
        value = evaluate(game, player)
        game.pop()
        if worst is None or value < worst:
            worst = value
            if cutoff is not None and worst < cutoff:
                break  # this move is already worse than the best one found
    return worst


def ranked_moves(game: CariboGame, depth: int = 2) -> list[tuple[Move, float]]:
    """Every legal move with its (exact, uncut) ``depth``-ply value, best first."""
    player = game.current_player()
    out = []
    for move in list(game.legal_moves()):
        game.push(move)
        value = _reply_value(game, player, None) if depth >= 2 else evaluate(game, player)
        game.pop()
        out.append((move, value))
    out.sort(key=lambda mv: -mv[1])
    return out


def suggest_move(game: CariboGame, rng: random.Random | None = None, depth: int = 2) -> Move:
    """The suggested move for the player to move (``PASS`` if they must pass)."""
    moves = list(game.legal_moves())
    if not moves:
        raise ValueError("the game is over")
    if len(moves) == 1:
        return moves[0]
    player = game.current_player()
    best_value = None
    best: list[Move] = []
    for move in moves:
        game.push(move)
        if depth >= 2:
            value = _reply_value(game, player, best_value)
        else:
            value = evaluate(game, player)
        game.pop()
        if best_value is None or value > best_value:
            best_value, best = value, [move]
        elif value == best_value:
            best.append(move)
    return rng.choice(best) if rng is not None else best[0]
