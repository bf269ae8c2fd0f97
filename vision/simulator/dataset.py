"""Many photos with truth, deterministic from one seed; and the ``sample_images`` preset.

Every photo ``NAME.jpg`` gets ``NAME.json`` next to it (the truth, see the package
docstring); ``index.json`` lists them all. Photo *i* of a dataset uses its own seed
derived from (dataset seed, i), so any single photo can be re-rendered alone with
``boardcam render --seed <truth seed>``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .photo import Photo
from .states import GENERATORS

GAMES = ("caribo", "colomino", "wauri")


def photo_seed(dataset_seed: int, index: int) -> int:
    """The seed of photo ``index`` in a dataset (stable, 48 bits)."""
    ss = np.random.SeedSequence([int(dataset_seed) & 0xFFFFFFFFFFFF, int(index)])
    return int(ss.generate_state(1, dtype=np.uint64)[0] & 0xFFFFFFFFFFFF)


def render_state(
    game: str,
    state,
    seed: int,
    difficulty: str = "normal",
    width: int | None = None,
    height: int | None = None,
    source: str = "given",
) -> Photo:
    """Photograph one board state of ``game`` (state in the SPEC format)."""
    if game == "caribo":
        from .caribo_render import render_caribo

        return render_caribo(state, seed, difficulty, width, height, source=source)
    if game == "colomino":
        from .colomino_render import render_colomino

        return render_colomino(state, seed, difficulty, width, height, source=source)
    if game == "wauri":
        from .wauri_render import render_wauri

        return render_wauri(state, seed, difficulty, width, height, source=source)
    raise ValueError(f"game must be one of {', '.join(GAMES)}")


def write_photo(photo: Photo, out: Path) -> tuple[Path, Path]:
    """Write ``out`` (JPEG) and the truth next to it (same name, ``.json``)."""
    out = Path(out)
    out.write_bytes(photo.jpeg)
    truth_path = out.with_suffix(".json")
    truth = dict(photo.truth)
    truth["image"] = out.name
    truth_path.write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
    return out, truth_path


def random_photo(
    game: str,
    seed: int,
    difficulty: str,
    width: int | None = None,
    height: int | None = None,
) -> Photo:
    """A random legal state of ``game`` photographed under random conditions."""
    state, source = GENERATORS[game](seed, difficulty)
    return render_state(game, state, seed, difficulty, width, height, source=source)


def make_dataset(
    game: str,
    count: int,
    difficulty: str,
    seed: int,
    out_dir: Path,
    width: int | None = None,
    height: int | None = None,
    progress=None,
) -> list[dict]:
    """Render ``count`` photos into ``out_dir``; ``game="all"`` cycles through the games.

    Returns the index entries (also written to ``out_dir/index.json``).
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    games = GAMES if game == "all" else (game,)
    entries = []
    for i in range(count):
        g = games[i % len(games)]
        s = photo_seed(seed, i)
        photo = random_photo(g, s, difficulty, width, height)
        name = f"{g}_{difficulty}_{i:05d}.jpg"
        write_photo(photo, out_dir / name)
        entries.append(_entry(name, photo))
        if progress:
            progress(i + 1, count, name)
    index = {"dataset_seed": seed, "difficulty": difficulty, "game": game, "photos": entries}
    (out_dir / "index.json").write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    return entries


def _entry(name: str, photo: Photo) -> dict:
    t = photo.truth
    c = t["conditions"]
    return {
        "image": name,
        "truth": name.rsplit(".", 1)[0] + ".json",
        "game": t["game"],
        "difficulty": t["difficulty"],
        "seed": t["seed"],
        "source": t.get("source", ""),
        "size": t["image_size"],
        "light": f"{c['light_kind']} {round(c['kelvin'])}K",
        "table": c["table"]["kind"],
        "tilt": round(t["camera"]["tilt"], 1),
        "arm_shadow": c["arm_shadow"] is not None,
        "jpeg_quality": c["jpeg_quality"],
    }


# (game, difficulty, seed, width, height): the committed sample_images set
SAMPLE_PRESET = [  # seeds picked for variety of light, table, arm shadow and framing
    ("caribo", "easy", 107, 1600, 1200),  # daylight, wood, the seed's butterfly
    ("caribo", "normal", 121, 1920, 1080),  # daylight, cloth
    ("caribo", "normal", 113, 1080, 1440),  # lamp, stone, arm shadow
    ("caribo", "hard", 101, 1920, 1080),  # lamp, gingham, arm shadow
    ("caribo", "hard", 108, 1600, 1200),  # daylight, wood, arm shadow
    ("caribo", "normal", 110, 1280, 720),  # lamp, gingham
    ("colomino", "easy", 102, 1600, 1200),  # daylight, wood
    ("colomino", "normal", 106, 1920, 1080),  # daylight, cloth
    ("colomino", "normal", 126, 1080, 1440),  # lamp, wood, arm shadow
    ("colomino", "hard", 100, 1920, 1080),  # lamp, gingham, arm shadow
    ("colomino", "hard", 111, 1600, 1200),  # daylight, cloth
    ("colomino", "normal", 112, 1280, 720),  # daylight, floral
    ("wauri", "easy", 100, 1600, 1200),  # daylight, wood
    ("wauri", "normal", 104, 1920, 1080),  # daylight, gingham
    ("wauri", "normal", 113, 1080, 1440),  # lamp, wood, arm shadow
    ("wauri", "hard", 108, 1920, 1080),  # lamp, cloth, arm shadow
    ("wauri", "hard", 111, 1600, 1200),  # daylight, floral
    ("wauri", "normal", 106, 1280, 720),  # lamp, stone
]


def make_samples(out_dir: Path, progress=None) -> list[dict]:
    """Render the committed ``sample_images`` set and its README table into ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    entries = []
    for n, (game, diff, seed, w, h) in enumerate(SAMPLE_PRESET):
        photo = random_photo(game, seed, diff, w, h)
        name = f"{game}_{diff}_{seed}.jpg"
        write_photo(photo, out_dir / name)
        entries.append(_entry(name, photo))
        if progress:
            progress(n + 1, len(SAMPLE_PRESET), name)
    index = {"preset": "samples", "photos": entries}
    (out_dir / "index.json").write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    (out_dir / "README.md").write_text(samples_readme(entries), encoding="utf-8")
    return entries


def samples_readme(entries: list[dict]) -> str:
    """The README of ``sample_images``: how the photos were made, one table row each."""
    lines = [
        "# sample_images",
        "",
        "Simulated phone photos of the three games, each with its exact ground truth",
        "(`NAME.json` next to `NAME.jpg`; the truth format is documented in",
        "`vision/simulator/__init__.py`). Rendered by the table simulator",
        "(`vision/simulator/`) and reproducible byte for byte on the same library versions:",
        "",
        "    boardcam dataset --preset samples sample_images      # or: make samples",
        "",
        "Each photo is `random_photo(game, seed, difficulty, width, height)`: a random legal",
        "state made by the game's engine (column *how it was made*: a random game with",
        "2-4 players, a solved library figure, a Colomino game grown by the rules, a Wauri",
        "position after random play) photographed under random conditions of that difficulty",
        "(lamp light is shown without white balance, hence the orange pictures). The",
        "seeds were picked for variety of light, table, arm shadow and framing.",
        "",
        "Orientation: CARIBO truth is the notation as laid (a recogniser may answer any 60°",
        "rotation); Colomino truth is in SPEC coordinates whatever the board's rotation in",
        "the photo (`south_side` says where the base line is); Wauri: the photographer",
        "usually sits at south, `south_side` names the image side nearest south's row.",
        "",
        "| file | game | difficulty | size | light | table | tilt | arm shadow | JPEG q "
        "| how it was made |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for e in entries:
        lines.append(
            f"| {e['image']} | {e['game']} | {e['difficulty']} | {e['size'][0]}×{e['size'][1]} "
            f"| {e['light']} | {e['table']} | {e['tilt']}° | {'yes' if e['arm_shadow'] else 'no'}"
            f" | {e['jpeg_quality']} | seed {e['seed']}, {e['source']} |"
        )
    lines.append("")
    return "\n".join(lines)
