"""The move vocabulary of engine.types checked against python-chess's view of the same moves.

Every legal move of seeded random-playout positions is decoded with the helper functions
and with the shifted masks the hot code uses; both must agree with python-chess.
"""

import random

import chess

from engine.movegen import generate_moves
from engine.notation import move_to_uci
from engine.position import Position
from engine.types import (DOUBLE_PUSH, EP_CAPTURE, MOVE_CAPTURE, MOVE_CAPTURE_OR_PROMOTION,
                          MOVE_DOUBLE_PUSH, MOVE_EP, MOVE_PROMOTION, ROOK, SQ_MASK, TO_SHIFT,
                          FLAG_SHIFT, FROM_TO_BITS, encode_move, is_capture, is_castle, is_promotion,
                          move_flag, move_from, move_to, promotion_type)

STARTS = [chess.STARTING_FEN,
          "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
          "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
          "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
          "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8"]


def check_move(pos, board, move):
    theirs = chess.Move.from_uci(move_to_uci(move))
    where = "%s at %s" % (theirs.uci(), board.fen())
    fr, to, flag = move_from(move), move_to(move), move_flag(move)
    assert encode_move(fr, to, flag) == move, where
    assert (fr, to, flag) == (move & SQ_MASK, move >> TO_SHIFT & SQ_MASK, move >> FLAG_SHIFT), where
    assert fr == theirs.from_square, where
    castle = board.is_castling(theirs)
    assert is_castle(move) == castle, where
    if castle:      # to is the castling rook's square
        assert pos.board[to] == (pos.turn << 3 | ROOK) and to >> 3 == fr >> 3, where
    else:
        assert to == theirs.to_square, where
    capture = board.is_capture(theirs)
    assert is_capture(move) == capture == bool(move & MOVE_CAPTURE), where
    assert is_promotion(move) == bool(theirs.promotion) == bool(move & MOVE_PROMOTION), where
    assert promotion_type(move) == (theirs.promotion or 0), where
    assert (not move & MOVE_CAPTURE_OR_PROMOTION) == (not capture and not theirs.promotion), where
    flag_bits = move & ~FROM_TO_BITS
    ep = board.is_en_passant(theirs)
    assert (flag == EP_CAPTURE) == ep == (flag_bits == MOVE_EP), where
    double = board.piece_type_at(fr) == chess.PAWN and abs(to - fr) == 16
    assert (flag == DOUBLE_PUSH) == double == (flag_bits == MOVE_DOUBLE_PUSH), where


def test_move_helpers_and_masks_agree_with_python_chess():
    rng = random.Random(11)
    checked = 0
    kinds = set()
    for game in range(40):
        fen = STARTS[game % len(STARTS)]
        pos = Position(fen)
        board = chess.Board(fen)
        for _ in range(30):
            moves = generate_moves(pos)
            if not moves:
                break
            for move in moves:
                check_move(pos, board, move)
                kinds.add(move_flag(move))
                checked += 1
            move = rng.choice(moves)
            board.push(chess.Move.from_uci(move_to_uci(move)))
            pos.make(move)
    assert checked > 20000
    assert kinds == set(range(16)) - {6, 7}, "every flag should have been seen: %s" % sorted(kinds)


def test_the_literal_layout_the_hot_code_assumes():
    # Position.make/unmake, see_ge, MoveOrderer.score and evaluate._evaluate_terms write these as
    # literals (a global lookup costs measurably there): renumbering any of them must fail
    # here, not silently
    from engine import evaluate, types
    assert evaluate.MAX_PHASE == 24
    assert (types.SQ_MASK, types.TO_SHIFT, types.FLAG_SHIFT, types.FROM_TO_BITS) == (63, 6, 12, 4095)
    assert (types.QUIET, types.DOUBLE_PUSH, types.CASTLE_KING, types.CASTLE_QUEEN,
            types.CAPTURE, types.EP_CAPTURE) == (0, 1, 2, 3, 4, 5)
    assert (MOVE_CAPTURE, MOVE_PROMOTION, MOVE_CAPTURE_OR_PROMOTION) == (0x4000, 0x8000, 0xC000)
    assert (types.WHITE, types.BLACK) == (0, 1)
    assert (types.W_PAWN, types.W_KNIGHT, types.W_BISHOP, types.W_ROOK, types.W_QUEEN,
            types.W_KING) == (1, 2, 3, 4, 5, 6)
    assert (types.B_PAWN, types.B_KING) == (9, 14)
    # the transposition table's probe and store (CPython's packed entry)
    from engine import tt
    assert (types.VALUE_MATE_IN_MAX_PLY, types.MOVE_BITS, tt.DEPTH_OFFSET, tt.REPLACE_DEPTH_MARGIN,
            tt.BOUND_EXACT, tt._CHECK_MASK) == (31000, 0xFFFF, 8, 3, 3, 0xFFFFFFFF)
    # the move generators (engine.movegen) and Position.in_check/check_squares index the
    # bitboards with piece literals and write the capture and double-push flags as literals
    assert (types.PAWN, types.KNIGHT, types.BISHOP, types.ROOK, types.QUEEN,
            types.KING) == (1, 2, 3, 4, 5, 6)
    assert (types.MOVE_DOUBLE_PUSH, types.MOVE_CAPTURE) == (0x1000, 0x4000)
