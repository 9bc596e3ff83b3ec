"""Repetitions as the search counts them (Position.is_repetition_draw, has_game_cycle)
against a brute force over the moves.

The cuckoo tables must hold every reversible move once; has_game_cycle must say, at every
position of seeded shuffling playouts (some with null moves, as the search makes them),
exactly whether a legal move of the side to move reaches a position the search counts as
a draw: one that occurred before inside the search, or, at or before the search's root,
one that had occurred twice (Stockfish's rule).
"""

import random

from engine.bitboard import KING_ATTACKS, KNIGHT_ATTACKS, ROOK_RAYS, BISHOP_RAYS
from engine.movegen import generate_moves
from engine.notation import parse_uci_move
from engine.position import Position, CUCKOO_KEY, CUCKOO_MOVE, MOVE_KEY
from engine.types import PAWN, KNIGHT, BISHOP, ROOK, KING, PIECES, CAPTURE, PROMOTION, is_castle

IN_TREE = 10_000        # a ply so deep that every earlier position lies inside the search

STARTS = [
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
    "8/5k2/3p4/1p1Pp2p/pP2Pp1P/P4P1K/8/8 b - - 99 50",
    "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
    "6k1/5pp1/7p/8/8/2B5/5PPP/3R2K1 w - - 0 30",
]


def empty_board_targets(kind, sq):
    if kind == KNIGHT:
        return KNIGHT_ATTACKS[sq]
    if kind == KING:
        return KING_ATTACKS[sq]
    return (ROOK_RAYS[sq] if kind != BISHOP else 0) | (BISHOP_RAYS[sq] if kind != ROOK else 0)


def test_the_cuckoo_tables_hold_each_reversible_move_once():
    stored = {}
    for h, move in enumerate(CUCKOO_MOVE):
        if move:
            assert CUCKOO_KEY[h] not in stored
            stored[CUCKOO_KEY[h]] = move
    expected = {}
    for piece in PIECES:
        if piece & 7 == PAWN:
            continue
        for s1 in range(64):
            targets = empty_board_targets(piece & 7, s1)
            for s2 in range(s1 + 1, 64):
                if targets >> s2 & 1:
                    expected[MOVE_KEY[piece][s1 | s2 << 6]] = s1 | s2 << 6
    assert len(expected) == 3668          # Stockfish's count
    assert stored == expected


def window(pos):
    """The keys of the positions 1, 2, ... plies back, within the fifty-move window and
    after the last null move."""
    stack = pos.stack
    keys = []
    for i in range(1, min(pos.halfmove, len(stack)) + 1):
        if not stack[-i][0]:
            break
        keys.append(stack[-i][5])
    return keys


def draw_keys(pos, ply=IN_TREE):
    """Keys of the positions an odd number of plies back (3 or more) that a move of the side
    to move could repeat for a draw, ``ply`` plies below the search's root: one inside the
    search, or one at or before the root that had occurred before as well."""
    keys = window(pos)
    draws = set()
    for i in range(3, len(keys) + 1, 2):
        key = keys[i - 1]
        if i < ply or any(keys[j - 1] == key for j in range(i + 4, len(keys) + 1, 2)):
            draws.add(key)
    return draws


def repetition_draw(pos, ply):
    """The brute force of is_repetition_draw: an earlier occurrence inside the search, or two
    anywhere."""
    keys = window(pos)
    seen = [i for i in range(4, len(keys) + 1, 2) if keys[i - 1] == pos.key]
    return any(i < ply for i in seen) or len(seen) >= 2


def own_move_repeats(pos, keys):
    for move in generate_moves(pos):
        pos.make(move)
        key = pos.key
        pos.unmake()
        if key in keys:
            return True
    return False


def reversible(move):
    return not move & (CAPTURE | PROMOTION) and not is_castle(move)


def test_has_game_cycle_agrees_with_a_brute_force_over_the_moves():
    rng = random.Random(52)
    tally = {"positions": 0, "cycles": 0, "nulls": 0, "before root": 0, "at root": 0,
             "draws": 0, "threefolds": 0}
    for game in range(48):
        pos = Position(STARTS[game % len(STARTS)])
        for _ in range(50):
            moves = generate_moves(pos)
            if not moves:
                break
            ours = own_move_repeats(pos, draw_keys(pos))
            assert pos.has_game_cycle(IN_TREE) == ours, pos.fen()
            # the same position a few plies below a root placed somewhere in the playout
            ply = rng.randint(1, 12)
            before_root = own_move_repeats(pos, draw_keys(pos, ply))
            assert pos.has_game_cycle(ply) == before_root, (pos.fen(), ply)
            at_root = own_move_repeats(pos, draw_keys(pos, 1))     # all of it before the root
            assert pos.has_game_cycle(1) == at_root, pos.fen()
            draw = repetition_draw(pos, ply)
            assert pos.is_repetition_draw(ply) == draw, (pos.fen(), ply)
            assert pos.is_repetition_draw(IN_TREE) == pos.is_repetition(2)
            tally["positions"] += 1
            tally["cycles"] += ours
            tally["before root"] += before_root
            tally["at root"] += at_root
            tally["draws"] += draw
            tally["threefolds"] += pos.is_repetition(3)
            # mostly reversible moves, often straight back, now and then a null move
            if game % 3 == 0 and not pos.in_check() and rng.random() < 0.08:
                pos.make_null()
                tally["nulls"] += 1
                continue
            quiet = [m for m in moves if reversible(m)]
            if quiet and rng.random() < 0.9:
                back = [m for m in quiet if len(pos.stack) >= 2
                        and (m & 63) == (pos.stack[-2][0] >> 6 & 63)
                        and (m >> 6 & 63) == (pos.stack[-2][0] & 63)]
                move = rng.choice(back if back and rng.random() < 0.5 else quiet)
            else:
                move = rng.choice(moves)
            pos.make(move)
    assert tally["positions"] > 2000
    assert tally["cycles"] > 200 and tally["nulls"] > 20, tally
    assert tally["before root"] > 100 and tally["at root"] > 5, tally
    assert tally["draws"] > 50 and tally["threefolds"] > 5, tally


def test_a_knight_can_step_back_into_the_starting_position():
    pos = Position()
    for text in ("g1f3", "g8f6", "f3g1"):
        pos.make(parse_uci_move(pos, text))
    assert pos.has_game_cycle(IN_TREE)   # ...Nf6-g8 repeats the start
    assert not pos.has_game_cycle(3)     # ... but only once, if the start was the root
    assert not pos.is_repetition(2)
    pos.make(parse_uci_move(pos, "f6g8"))
    assert pos.is_repetition(2)


def test_a_blocked_path_or_a_null_move_is_no_cycle():
    # after Kf1 (black to move) the rook went a1-b1-b3-a3 while the black king walked to c8
    # and back: Ra3-a1 would repeat that position, but the a2 pawn is in the way
    shuffle = ("e1f1", "e8d8", "a1b1", "d8c8", "b1b3", "c8d8", "b3a3", "d8e8")
    pos = Position("4k3/8/8/8/8/8/P7/R3K3 w - - 0 1")
    for text in shuffle:
        pos.make(parse_uci_move(pos, text))
    assert not pos.has_game_cycle(IN_TREE) and not own_move_repeats(pos, draw_keys(pos))
    # the same shuffle without the pawn: Ra3-a1 repeats it
    pos = Position("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    for text in shuffle:
        pos.make(parse_uci_move(pos, text))
    assert pos.has_game_cycle(IN_TREE) and own_move_repeats(pos, draw_keys(pos))
    # one move from the position after Kf1 only by passing: not a repetition the search counts
    pos = Position("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    pos.make(parse_uci_move(pos, "e1f1"))
    pos.make_null()
    pos.make(parse_uci_move(pos, "a1a3"))
    pos.make_null()
    assert pos.key ^ pos.stack[-3][5] in CUCKOO_KEY     # one rook move apart
    assert not pos.has_game_cycle(IN_TREE)


def test_a_repetition_before_the_root_needs_a_third_occurrence():
    # white shuffles Kd1-e1, black Ke8-e7: after the six plies the position after ...Ke7
    # stands for the second time, the one before it (black to move) will with ...Ke8
    pos = Position("4k3/8/8/8/8/8/4P3/3QK3 b - - 0 1")
    for text in ("e8e7", "d1d2", "e7e8", "d2d1", "e8e7", "d1d2"):
        pos.make(parse_uci_move(pos, text))
    assert pos.is_repetition(2) and not pos.is_repetition(3)
    # the root here: a repetition of a position before it is no draw yet ...
    assert not pos.has_game_cycle(1) and pos.has_game_cycle(IN_TREE)
    pos.make(parse_uci_move(pos, "e7e8"))
    assert not pos.is_repetition_draw(1)
    # ... but it is once the first repeat lies inside the search
    assert pos.is_repetition_draw(5) and not pos.is_repetition_draw(4)
    # and a third occurrence is a draw wherever the root is
    for text in ("d2d1", "e8e7", "d1d2", "e7e8"):
        pos.make(parse_uci_move(pos, text))
    assert pos.is_repetition(3) and pos.is_repetition_draw(1)
