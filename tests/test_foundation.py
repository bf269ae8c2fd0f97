"""The skeleton: packages import one way, the CLI answers bad input with exit 2."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_engines_import_nothing_of_the_other_packages():
    for path in (ROOT / "engines").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                assert top not in {"vision", "calibration", "companion_web", "cv2", "flask"}, (
                    f"{path.relative_to(ROOT)} imports {name}"
                )


def test_unknown_command_is_one_line_exit_2(cli):
    result = cli("frobnicate")
    assert result.code == 2
    assert result.err.count("\n") == 1
    assert "invalid choice" in result.err


def test_missing_at_file_is_exit_2(cli, tmp_path):
    from companion_web.cli_support import UsageError, read_argument

    try:
        read_argument(f"@{tmp_path / 'nope.txt'}", "BOARD")
    except UsageError as exc:
        assert "BOARD" in str(exc) and "no such file" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("expected UsageError")


def test_status_page_and_api(client):
    assert client.get("/").status_code == 200
    data = client.get("/api/status").get_json()
    assert set(data["engines"]) == {"caribo", "colomino", "wauri"}


def test_unknown_route_is_json_404(client):
    response = client.get("/no/such/page")
    assert response.status_code == 404
    assert response.get_json() == {"error": "not found"}


def test_layout_is_the_specs():
    for folder in ("vision", "engines", "companion_web", "calibration"):
        assert (ROOT / folder / "__init__.py").is_file()
    assert (ROOT / "pyproject.toml").is_file()
    assert (ROOT / "sample_images").is_dir()
    assert Path(ROOT / "tests").is_dir()
