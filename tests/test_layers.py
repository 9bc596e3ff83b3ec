"""The engine's layering (STYLE.md): a module imports only from layers below it, nothing
but the command line imports `uci`, and nothing under engine/ imports python-chess."""

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[1] / "engine"

LAYER = {
    "types": 0, "streams": 0, "tunables": 0, "runtime": 0, "bitboard": 1, "jit": 1.5, "weights": 1, "nnue": 1, "zobrist": 2, "psqt": 2, "position": 3,
    "movegen": 4, "notation": 5, "evaluate": 5, "perft": 5, "tt": 6, "ordering": 6,
    "timeman": 6, "book": 6, "search": 7, "skill": 7.5, "smp": 7.5, "engine": 8, "uci": 9, "__main__": 10, "__init__": -1,
    "kpk": 2, "kbnk": 0, "endgame": 4,  # evaluate (5) calls endgame, which probes kpk and kbnk
}


def engine_imports(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
            if node.module == "engine":
                # `from engine import search` imports the module engine.search
                for alias in node.names:
                    if alias.name in LAYER:
                        yield "engine." + alias.name


def test_every_module_has_a_layer():
    for path in ENGINE.glob("*.py"):
        assert path.stem in LAYER, "engine/%s has no layer in tests/test_layers.py" % path.name


def test_imports_point_downwards():
    for path in ENGINE.glob("*.py"):
        me = LAYER[path.stem]
        for name in engine_imports(path):
            root = name.split(".")[0]
            assert root != "chess", "engine/%s imports python-chess" % path.name
            if root == "engine" and "." in name:
                other = name.split(".")[1]
                assert other in LAYER, name
                assert LAYER[other] < me, "engine/%s (layer %d) imports %s (layer %d)" % (
                    path.name, me, other, LAYER[other])


def test_only_the_command_line_imports_uci():
    for path in ENGINE.glob("*.py"):
        if path.stem in ("uci", "__main__"):
            continue
        for name in engine_imports(path):
            assert name != "engine.uci", "engine/%s imports engine.uci" % path.name

