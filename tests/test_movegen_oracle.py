"""Thousands of seeded random-playout positions compared with python-chess, move for move.

At every position: the legal move set, the FEN, the Polyglot key (where python-chess defines
it), check/checkmate/stalemate and the draw queries agree; every legal move's make/unmake
restores the position exactly; validate() recomputes all derived state and agrees.
"""

import random

import chess
import chess.polyglot
import pytest

from engine.movegen import generate_moves
from engine.notation import move_to_uci, parse_uci_move
from engine.position import Position
from engine.types import CAPTURE, PROMOTION, is_castle
from conftest import data_file

GAMES = 60
PLIES = 40          # 60 games x 40 plies = 2,400 positions per variant


def snapshot(pos):
    return (pos.board[:], pos.bbs[:], pos.occ[:], pos.turn, pos.castling, pos.ep,
            pos.halfmove, pos.fullmove, pos.key, pos.psq, len(pos.stack))


def corner_rights_only(board):
    """python-chess's Polyglot hash only knows corner-rook rights (standard castling)."""
    rights = board.castling_rights
    return rights & ~(chess.BB_A1 | chess.BB_H1 | chess.BB_A8 | chess.BB_H8) == 0 and all(
        board.king(c) in (chess.E1, chess.E8) or not (rights & chess.BB_RANK_1 if c else rights & chess.BB_RANK_8)
        for c in chess.COLORS)


def compare(pos, board, chess960):
    ours = sorted(move_to_uci(m, chess960) for m in generate_moves(pos))
    theirs = sorted(m.uci() for m in board.legal_moves)
    fen = board.fen()
    assert ours == theirs, "move sets differ at %s\n only ours: %s\n only theirs: %s" % (
        fen, sorted(set(ours) - set(theirs)), sorted(set(theirs) - set(ours)))
    assert pos.fen() == fen
    if corner_rights_only(board):
        assert pos.key == chess.polyglot.zobrist_hash(board), fen
    assert pos.in_check() == board.is_check(), fen
    assert (not ours and pos.in_check()) == board.is_checkmate(), fen
    assert (not ours and not pos.in_check()) == board.is_stalemate(), fen
    assert pos.has_insufficient_material() == board.is_insufficient_material(), fen
    assert (pos.halfmove >= 100) == board.is_fifty_moves() or board.is_checkmate(), fen
    pos.validate()
    for move in generate_moves(pos):
        if not move >> 12 & (CAPTURE | PROMOTION):      # quiet
            text = move_to_uci(move, chess960)
            gives = board.gives_check(chess.Move.from_uci(text))
            if is_castle(move):
                assert pos.quiet_gives_check(move), "castling must answer True: " + text
            else:
                assert pos.quiet_gives_check(move) == gives, "gives_check(%s) at %s" % (text, fen)
    before = snapshot(pos)
    for move in generate_moves(pos):
        pos.make(move)
        pos.validate()
        pos.unmake()
        assert snapshot(pos) == before, "make/unmake of %s changed %s" % (move_to_uci(move, chess960), fen)


def playouts(start_fens, chess960, seed):
    rng = random.Random(seed)
    positions = 0
    for game in range(GAMES):
        fen = start_fens[game % len(start_fens)]
        pos = Position(fen)
        board = chess.Board(fen, chess960=chess960)
        for ply in range(PLIES):
            compare(pos, board, chess960)
            positions += 1
            legal = list(board.legal_moves)
            if not legal or board.is_repetition(3):
                break
            # prefer captures and promotions now and then, to reach odd material
            tactical = [m for m in legal if board.is_capture(m) or m.promotion]
            move = rng.choice(tactical if tactical and rng.random() < 0.3 else legal)
            ours = parse_uci_move(pos, move.uci(), chess960)
            assert ours is not None, "python-chess move %s not found at %s" % (move.uci(), board.fen())
            board.push(move)
            pos.make(ours)
        # replaying the whole game back must end where it started
        while pos.stack:
            pos.unmake()
        assert pos.fen() == chess.Board(fen, chess960=chess960).fen()
    return positions


def test_random_playouts_standard():
    starts = [chess.STARTING_FEN,
              "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
              "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
              "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
              "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"]
    assert playouts(starts, False, seed=1) >= 2000


def test_random_playouts_chess960():
    lines = data_file("openings", "FRC_openings.epd").read_text().split("\n")
    rng = random.Random(2)
    starts = []
    for line in rng.sample([ln for ln in lines if ln.strip()], GAMES):
        fields = line.split()
        board = chess.Board(" ".join(fields[:4]) + " 0 1", chess960=True)
        starts.append(board.fen())
    assert playouts(starts, True, seed=3) >= 2000


def test_unknown_move_text_is_rejected():
    pos = Position()
    for text in ("e2e5", "e7e5", "a1a1", "zz", "", "e2e4qq", "e1g1", "0000"):
        assert parse_uci_move(pos, text) is None, text


def test_move_text_is_ascii():
    pos = Position("4k3/P7/8/8/8/8/4P3/4K2R w K - 0 1")
    for text in ("e2e4", " e2e4\n", "E2E4", "a7a8q", "e1g1", "e1h1"):
        assert parse_uci_move(pos, text) is not None, text
    # str.strip() removes these spaces, lower() turns the Kelvin sign into 'k': not move text
    for text in ("\u3000e2e4", "e2e4\u00a0", "\u2028e2e4", "\uff45\uff12\uff45\uff14", "a7a8\u212a",
                 "e\u00b2e4"):
        assert parse_uci_move(pos, text) is None, ascii(text)
