"""Random board states reached by the rules (the engines decide what is legal).

Every generator is deterministic from its seed and returns the state in the SPEC format:
CARIBO ``{"game": "caribo", "notation": ...}``, the Colomino board JSON, the Wauri position
JSON — plus a short ``source`` string saying how it was made.
"""

from __future__ import annotations

import random

DIFFICULTY_LEVELS = ("easy", "normal", "hard")


def random_caribo_state(seed: int, difficulty: str = "normal") -> tuple[dict, str]:
    """A CARIBO board from a random legal game (partial or finished) or a solved figure.

    Games are dealt to 2-4 players and played by uniformly random legal moves (the engine's
    :class:`engines.caribo.game.CariboGame`); figures come from the engine's library with
    their stored solution.
    """
    from engines.caribo import format_board
    from engines.caribo.game import PASS, CariboGame

    rng = random.Random(f"caribo-state-{seed}-{difficulty}")
    if rng.random() < 0.25:
        try:
            from engines.caribo.puzzles import library

            figures = sorted(library().values(), key=lambda f: f.name)
        except (ImportError, OSError, ValueError):  # library not built
            figures = []
        if figures:
            fig = rng.choice(figures)
            return {"game": "caribo", "notation": fig.solution}, f"figure:{fig.name}"
    players = rng.choice([2, 3, 4])
    game = CariboGame.deal(players, rng)
    lo, hi = {"easy": (3, 14), "normal": (6, 36), "hard": (14, 36)}[difficulty]
    target = rng.randint(lo, hi)
    plies = 0
    while not game.is_over() and len(game.board.tiles) < target and plies < 400:
        moves = list(game.legal_moves())
        real = [m for m in moves if m is not PASS]
        game.push(rng.choice(real) if real else moves[0])
        plies += 1
    state = {"game": "caribo", "notation": format_board(game.board)}
    over = "finished" if game.is_over() else "partial"
    return state, f"random-game:{players}p:{len(game.board.tiles)}tiles:{over}"


def random_colomino_state(seed: int, difficulty: str = "normal") -> tuple[dict, str]:
    """A Colomino board grown by random legal play (:class:`engines.colomino.ColominoGame`)."""
    from engines.colomino import ColominoGame, state_to_json

    rng = random.Random(f"colomino-state-{seed}-{difficulty}")
    p12 = {"easy": 0.2, "normal": 0.5, "hard": 0.8}[difficulty]
    size = 12 if rng.random() < p12 else 9
    game = ColominoGame(players=rng.choice([2, 3, 4]), size=size, seed=rng.randrange(1 << 30))
    lo, hi = {"easy": (4, 25), "normal": (8, 60), "hard": (20, 110)}[difficulty]
    target = min(rng.randint(lo, hi), size * size - 10)
    plies = 0
    while not game.is_over() and game.board_state().tile_count() < target and plies < 2000:
        game.push(rng.choice(list(game.legal_moves())))
        plies += 1
    state = state_to_json(game.board_state())
    return state, f"random-game:{size}x{size}:{game.board_state().tile_count()}tiles"


def random_wauri_state(seed: int, difficulty: str = "normal") -> tuple[dict, str]:
    """A Wauri position reached by random legal play (:class:`engines.wauri.WauriState`).

    Hard photos prefer positions with big piles (the most seeds in one pit).
    """
    from engines.wauri import WauriState

    rng = random.Random(f"wauri-state-{seed}-{difficulty}")
    state = WauriState()
    seen = [state.position()]
    while not state.is_over() and len(seen) < 400:
        state.push(rng.choice(list(state.legal_moves())))
        seen.append(state.position())
    if difficulty == "hard":  # the biggest pile among a few dozen positions of the game
        cands = rng.sample(seen, min(30, len(seen)))
        pos = max(cands, key=lambda p: max(p.south + p.north))
    elif difficulty == "easy":
        pos = seen[rng.randrange(0, max(1, min(len(seen), 12)))]
    else:
        pos = rng.choice(seen)
    return pos.to_json(), f"random-game:ply{seen.index(pos)}"


GENERATORS = {
    "caribo": random_caribo_state,
    "colomino": random_colomino_state,
    "wauri": random_wauri_state,
}
