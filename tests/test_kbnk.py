"""engine.kbnk: the K+B+N v K distance-to-mate table, checked move by move with python-chess,
and its use by the evaluation and the search."""

import random

import chess
import pytest

from engine import endgame, kbnk
from engine.endgame import EXACT, endgame_verdict
from engine.evaluate import clear_cache
from engine.kbnk import kbnk_dtm
from engine.notation import move_to_uci
from engine.position import Position
from engine.search import NoDeadline, Searcher
from engine.timeman import Limits


def dtm(board):
    """The table's plies to mate for a python-chess board holding K+B+N v K (None: no win)."""
    strong = chess.WHITE if board.knights & board.occupied_co[chess.WHITE] else chess.BLACK
    return kbnk_dtm(board.king(strong), (board.bishops & board.occupied_co[strong]).bit_length() - 1,
                    (board.knights & board.occupied_co[strong]).bit_length() - 1,
                    board.king(not strong), board.turn == strong), strong


def random_kbnk(rng):
    while True:
        board = chess.Board(None)
        strong = rng.choice(chess.COLORS)
        squares = rng.sample(range(64), 4)
        for sq, piece in zip(squares, (chess.Piece(chess.KING, strong), chess.Piece(chess.BISHOP, strong),
                                       chess.Piece(chess.KNIGHT, strong), chess.Piece(chess.KING, not strong))):
            board.set_piece_at(sq, piece)
        board.turn = rng.choice(chess.COLORS)
        if board.is_valid():
            return board


def test_every_entry_follows_from_its_moves():
    """Random legal placements, either colour strong, either to move: the table's value is what
    python-chess's moves and the table's values of the positions they reach make it.  With
    the lone king to move: mated is 0, stalemate or a capture (a dead draw) is no win, else
    1 + the longest of the replies when every reply still loses, otherwise no win.  With the
    strong side to move: 1 + the shortest win among its moves, or no win."""
    rng = random.Random(13)
    wins = draws = 0
    for _ in range(1500):
        board = random_kbnk(rng)
        value, strong = dtm(board)
        if board.turn != strong:
            if board.is_checkmate():
                expected = 0
            elif board.is_stalemate() or any(board.is_capture(m) for m in board.legal_moves):
                expected = None
            else:
                replies = []
                for move in board.legal_moves:
                    board.push(move)
                    replies.append(dtm(board)[0])
                    board.pop()
                expected = None if None in replies else 1 + max(replies)
        else:
            wins_after = []
            for move in board.legal_moves:
                board.push(move)
                after = dtm(board)[0]
                board.pop()
                if after is not None:
                    wins_after.append(after)
            expected = 1 + min(wins_after) if wins_after else None
        assert value == expected, board.fen()
        wins += value is not None
        draws += value is None
    assert wins > 1000 and draws > 20, (wins, draws)


def test_the_longest_mate_is_33_moves():
    """The known maximum of this ending: 33 moves with the strong side to move."""
    table = kbnk._table()[0]
    side = len(table) // 2
    assert max(v for v in table[:side] if v != kbnk.NOT_WON) == 65
    assert max(v for v in table[side:] if v != kbnk.NOT_WON) == 66


def test_the_eight_symmetries_agree():
    rng = random.Random(3)
    for _ in range(300):
        squares = rng.sample(range(64), 4)
        to_move = rng.random() < 0.5
        values = {kbnk_dtm(*(t[sq] for sq in squares), to_move) for t in kbnk._TRANSFORMS}
        assert len(values) == 1, squares


def test_the_verdict_scores_by_distance_from_either_side():
    assert endgame.USE_KBNK_TABLE
    board = chess.Board("8/8/4k3/8/4K3/8/3BN3/8 w - - 0 1")
    plies, _ = dtm(board)
    assert endgame_verdict(Position(board.fen())) == (EXACT, endgame.KBNK_WIN - plies)
    mirrored = board.mirror()           # black holds the pieces, black to move
    assert endgame_verdict(Position(mirrored.fen())) == (EXACT, endgame.KBNK_WIN - plies)
    board.turn = chess.BLACK
    plies, _ = dtm(board)
    assert endgame_verdict(Position(board.fen())) == (EXACT, plies - endgame.KBNK_WIN)
    # the lone king takes the undefended knight: a draw
    assert endgame_verdict(Position("8/8/8/8/4K3/8/3Bk3/5N2 b - - 0 1")) == (EXACT, 0)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_search_mates_within_the_fifty_move_rule(seed):
    """Both sides played by the search at 400 nodes a move: the mate comes, and no later than
    a few moves past the table's own distance (pruning may miss the shortest line)."""
    clear_cache()
    rng = random.Random(seed)
    while True:
        board = random_kbnk(rng)
        start, strong = dtm(board)
        if board.turn == strong and start is not None and start >= 41:
            break
    pos = Position(board.fen())
    searchers = {chess.WHITE: Searcher(4), chess.BLACK: Searcher(4)}
    limits = Limits()
    limits.nodes = 400
    for ply in range(100):
        if board.is_checkmate():
            break
        assert not board.is_game_over(), board.fen()
        side = chess.WHITE if pos.turn == 0 else chess.BLACK
        move, _ = searchers[side].search(pos, limits, NoDeadline())
        uci = chess.Move.from_uci(move_to_uci(move))
        assert uci in board.legal_moves
        board.push(uci)
        pos.make(move)
    assert board.is_checkmate(), board.fen()
    assert ply <= start + 10, (ply, start)



@pytest.mark.slow
def test_the_stored_table_is_what_the_solve_gives():
    """scripts/make_kbnk.py --check: solve the ending again (about 30 s) and compare."""
    import subprocess
    import sys
    from pathlib import Path
    script = Path(__file__).resolve().parent.parent / "scripts" / "make_kbnk.py"
    done = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert done.returncode == 0 and "matches" in done.stdout, done.stdout + done.stderr
    assert "longest win: 65 plies" in done.stdout
