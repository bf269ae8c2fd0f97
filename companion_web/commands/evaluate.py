"""``boardcam evaluate DIR``: recogniser accuracy and speed on photos with truth files."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from companion_web.cli_support import UsageError, emit
from vision.recognize import GAMES


def register(sub) -> None:
    p = sub.add_parser("evaluate", help="measure the recognisers on photos with truth files")
    p.add_argument("folder", metavar="DIR")
    p.add_argument("--game", choices=GAMES, help="only photos of this game")
    p.add_argument("--limit", type=int, default=0, help="at most this many photos")
    p.add_argument("--json", dest="json_out", metavar="OUT.json", help="per-photo results")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def _table(rows: list[dict]) -> str:
    head = ("game", "difficulty", "photos", "perfect %", "piece errors", "segment err %",
            "failures", "time/decode")
    lines = [" | ".join(head), " | ".join("---" for _ in head)]
    for r in rows:
        lines.append(" | ".join(str(x) for x in (
            r["game"], r["difficulty"], r["photos"], r["perfect_percent"],
            f'{r["piece_errors"]}/{r["pieces"]}', r["segment_error_percent"], r["failures"],
            r["median_time_ratio"],
        )))
    return "\n".join(lines)


def run(args) -> int:
    from tqdm import tqdm

    from vision.evaluation import evaluate_photo, find_photos, summarize
    from vision.recognize import recognize, recognizer_module

    folder = Path(args.folder)
    if not folder.is_dir():
        raise UsageError(f"DIR: not a folder: {folder}")
    photos = find_photos(folder, args.game)
    if args.limit > 0:
        photos = photos[: args.limit]
    if not photos:
        raise UsageError(f"DIR: no photos with truth files in {folder}")
    for game in sorted({t["game"] for _, t in photos}):
        if game not in GAMES:
            raise UsageError(f"truth file names unknown game {game!r}")
        recognizer_module(game)  # RecognizerUnavailable → exit 2 with its message
    results = []
    for photo, truth in tqdm(photos, disable=args.no_progress, file=sys.stderr, unit="photo"):
        results.append(evaluate_photo(photo, truth, recognize))
    summary = [g.to_json() for g in summarize(results)]
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({
            "summary": summary,
            "photos": [
                {"photo": r.photo, "game": r.game, "difficulty": r.difficulty,
                 "perfect": r.comparison.perfect, "piece_errors": r.comparison.piece_errors,
                 "segment_errors": r.comparison.segment_errors, "seconds": round(r.seconds, 4),
                 "decode_seconds": round(r.decode_seconds, 4), "error": r.error}
                for r in results
            ],
        }, indent=1))
    sys.stderr.write(_table(summary) + "\n")
    emit({"summary": summary})
    return 0
