"""scripts/bench_compare.py's game mode: a fresh engine process plays a short game against
itself, and the nodes of every ply are summed (the engine runs; each search is a few plies)."""
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import bench_compare  # noqa: E402

REPO = str(Path(__file__).resolve().parents[1])


def test_a_game_sums_the_nodes_of_every_ply():
    one, _, _, _ = bench_compare.go_process(sys.executable, REPO, "depth 2")
    game, nps, uciok, ready = bench_compare.go_process(sys.executable, REPO, "depth 2", plies=4)
    assert game > one > 0              # four searches, the first of them the one above
    assert nps > 0 and 0 < uciok <= ready


def test_a_sides_environment_reaches_the_engine():
    # a misspelt tunable stops the engine's modules from loading, which it reports
    env = {"BASILISK_SEARCH": "NO_SUCH_TUNABLE=1"}
    engine = bench_compare.Engine(sys.executable, REPO, env)
    try:
        engine.send("uci")
        engine.send("isready")
        lines = engine.read_until(lambda line: line == "readyok")
    finally:
        engine.close()
    assert any("NO_SUCH_TUNABLE" in line for line in lines), lines
    assert "NO_SUCH_TUNABLE" not in os.environ.get("BASILISK_SEARCH", "")
