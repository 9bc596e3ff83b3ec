"""Move generation: pseudo-legal generation with Stockfish's cheap legality filter.

Checkers and pinned pieces are computed once per call.  With those known, only king
moves, en passant and castling need a real attack test; a pinned piece is kept on the
line through its king; in check, other pieces may only capture the checker or block.
Everything returned is therefore legal.  Moves are ints (see ``engine.types``).

``generate_moves(pos)`` gives every legal move; ``generate_moves(pos, False)`` gives
captures, en passant and queen promotions only, for quiescence search.
"""

from engine.bitboard import (BB_ALL, BB_SQUARES, BB_FILE_A, BB_FILE_H, BB_RANK_1, BB_RANK_3,
                             BB_RANK_6, BB_RANK_8, BETWEEN, LINE, KNIGHT_ATTACKS, KING_ATTACKS,
                             PAWN_ATTACKS, ROOK_TABLE, ROOK_MASK, BISHOP_TABLE, BISHOP_MASK)
from engine.types import (WHITE, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING,
                          PROMO_KNIGHT, PROMO_BISHOP, PROMO_ROOK, PROMO_QUEEN, TO_SHIFT,
                          FLAG_SHIFT, MOVE_CAPTURE, MOVE_DOUBLE_PUSH, MOVE_EP)

# promotion flags, queen first so move ordering sees it early
_PROMOTIONS = tuple(flag << FLAG_SHIFT
                    for flag in (PROMO_QUEEN, PROMO_KNIGHT, PROMO_ROOK, PROMO_BISHOP))
_CAPTURE_PROMOTIONS = tuple(promotion | MOVE_CAPTURE for promotion in _PROMOTIONS)
_QUEEN_PROMOTION = _PROMOTIONS[0]
_QUEEN_CAPTURE_PROMOTION = _CAPTURE_PROMOTIONS[0]

ROOK_RAYS = [ROOK_TABLE[sq][0] for sq in range(64)]
BISHOP_RAYS = [BISHOP_TABLE[sq][0] for sq in range(64)]


def generate_moves(pos, quiets=True):
    """Legal moves of the side to move (only captures and queen promotions if not quiets)."""
    us = pos.turn
    them = us ^ 1
    bbs = pos.bbs
    occ = pos.occ
    ours = occ[us]
    theirs = occ[them]
    occupied = ours | theirs
    ub = us << 3
    tb = them << 3
    king_bb = bbs[ub | KING]
    ksq = king_bb.bit_length() - 1
    their_rq = bbs[tb | ROOK] | bbs[tb | QUEEN]
    their_bq = bbs[tb | BISHOP] | bbs[tb | QUEEN]
    their_knights = bbs[tb | KNIGHT]
    their_pawns = bbs[tb | PAWN]
    pawn_attacks_us = PAWN_ATTACKS[us]
    checkers = ((KNIGHT_ATTACKS[ksq] & their_knights)
                | (pawn_attacks_us[ksq] & their_pawns)
                | (ROOK_TABLE[ksq][occupied & ROOK_MASK[ksq]] & their_rq)
                | (BISHOP_TABLE[ksq][occupied & BISHOP_MASK[ksq]] & their_bq))
    pinned = 0
    snipers = (ROOK_RAYS[ksq] & their_rq) | (BISHOP_RAYS[ksq] & their_bq)
    while snipers:
        s_bb = snipers & -snipers
        snipers ^= s_bb
        blockers = BETWEEN[ksq][s_bb.bit_length() - 1] & occupied
        if blockers and not blockers & (blockers - 1):
            pinned |= blockers & ours

    # A move is built as from | to << 6 | MOVE_* flag, TO_SHIFT written as the literal 6:
    # a global lookup per generated move costs 2-3% of generation time.
    moves = []
    append = moves.append

    # King moves: each destination tested with the king lifted off the board.
    no_king = occupied ^ king_bb
    their_king_zone = KING_ATTACKS[bbs[tb | KING].bit_length() - 1]
    targets = KING_ATTACKS[ksq] & ~ours & ~their_king_zone
    if not quiets:
        targets &= theirs
    while targets:
        to = targets.bit_length() - 1
        targets ^= BB_SQUARES[to]
        if ((KNIGHT_ATTACKS[to] & their_knights) or (pawn_attacks_us[to] & their_pawns)
                or (ROOK_TABLE[to][no_king & ROOK_MASK[to]] & their_rq)
                or (BISHOP_TABLE[to][no_king & BISHOP_MASK[to]] & their_bq)):
            continue
        append(ksq | to << 6 | (MOVE_CAPTURE if BB_SQUARES[to] & theirs else 0))

    if checkers:
        if checkers & (checkers - 1):
            return moves            # double check: only the king may move
        target = BETWEEN[ksq][checkers.bit_length() - 1] | checkers
        movable = ours & ~pinned    # a pinned piece can never answer a check
    else:
        target = BB_ALL
        movable = ours
    cap_target = theirs & target
    quiet_target = ~occupied & target if quiets else 0
    empty = ~occupied & BB_ALL

    # Pawns, set-wise for the unpinned ones.
    pawns = bbs[ub | PAWN] & movable
    free_pawns = pawns & ~pinned
    if us == WHITE:
        push = (free_pawns << 8) & empty
        double = ((push & BB_RANK_3) << 8) & empty & quiet_target
        push &= target
        cap_left = ((free_pawns & ~BB_FILE_A) << 7) & cap_target
        cap_right = ((free_pawns & ~BB_FILE_H) << 9) & cap_target
        promo_rank = BB_RANK_8
        up = 8
    else:
        push = (free_pawns >> 8) & empty
        double = ((push & BB_RANK_6) >> 8) & empty & quiet_target
        push &= target
        cap_left = ((free_pawns & ~BB_FILE_A) >> 9) & cap_target
        cap_right = ((free_pawns & ~BB_FILE_H) >> 7) & cap_target
        promo_rank = BB_RANK_1
        up = -8
    # the squares pawns came from, per set: to - up, to - up + 1, to - up - 1
    promo_push = push & promo_rank
    push &= ~promo_rank & quiet_target
    while push:
        to = push.bit_length() - 1
        push ^= BB_SQUARES[to]
        append((to - up) | to << 6)
    while double:
        to = double.bit_length() - 1
        double ^= BB_SQUARES[to]
        append((to - up - up) | to << 6 | MOVE_DOUBLE_PUSH)
    for captures, delta in ((cap_left, up - 1), (cap_right, up + 1)):
        promo_caps = captures & promo_rank
        captures &= ~promo_rank
        while captures:
            to = captures.bit_length() - 1
            captures ^= BB_SQUARES[to]
            append((to - delta) | to << 6 | MOVE_CAPTURE)
        while promo_caps:
            to = promo_caps.bit_length() - 1
            promo_caps ^= BB_SQUARES[to]
            base = (to - delta) | to << 6
            if quiets:
                for flag in _CAPTURE_PROMOTIONS:
                    append(base | flag)
            else:
                append(base | _QUEEN_CAPTURE_PROMOTION)
    while promo_push:
        to = promo_push.bit_length() - 1
        promo_push ^= BB_SQUARES[to]
        base = (to - up) | to << 6
        if quiets:
            for flag in _PROMOTIONS:
                append(base | flag)
        else:
            append(base | _QUEEN_PROMOTION)
    pinned_pawns = pawns & pinned
    if pinned_pawns:
        _pinned_pawn_moves(pinned_pawns, us, ksq, up, promo_rank, empty, cap_target,
                           quiet_target, target, quiets, append)
    if pos.ep:
        _en_passant_moves(pos, us, ksq, occupied, append)

    # Pieces: captures and quiet moves in separate loops, so each has a constant flag.
    bb = bbs[ub | KNIGHT] & movable & ~pinned
    while bb:
        fr = bb.bit_length() - 1
        bb ^= BB_SQUARES[fr]
        att = KNIGHT_ATTACKS[fr]
        caps = att & cap_target
        att &= quiet_target
        while caps:
            to = caps.bit_length() - 1
            caps ^= BB_SQUARES[to]
            append(fr | to << 6 | MOVE_CAPTURE)
        while att:
            to = att.bit_length() - 1
            att ^= BB_SQUARES[to]
            append(fr | to << 6)
    for piece_type in (BISHOP, ROOK, QUEEN):
        bb = bbs[ub | piece_type] & movable
        while bb:
            fr = bb.bit_length() - 1
            f_bb = BB_SQUARES[fr]
            bb ^= f_bb
            if piece_type == BISHOP:
                att = BISHOP_TABLE[fr][occupied & BISHOP_MASK[fr]]
            elif piece_type == ROOK:
                att = ROOK_TABLE[fr][occupied & ROOK_MASK[fr]]
            else:
                att = (ROOK_TABLE[fr][occupied & ROOK_MASK[fr]]
                       | BISHOP_TABLE[fr][occupied & BISHOP_MASK[fr]])
            if f_bb & pinned:
                att &= LINE[ksq][fr]
            caps = att & cap_target
            att &= quiet_target
            while caps:
                to = caps.bit_length() - 1
                caps ^= BB_SQUARES[to]
                append(fr | to << 6 | MOVE_CAPTURE)
            while att:
                to = att.bit_length() - 1
                att ^= BB_SQUARES[to]
                append(fr | to << 6)

    # Castling: not out of, through or into check; the rook must not be shielding the king.
    if quiets and not checkers:
        rights = pos.castling & (BB_RANK_1 if us == WHITE else BB_RANK_8)
        if rights:
            info = pos.castle_info
            while rights:
                r_bb = rights & -rights
                rights ^= r_bb
                rsq = r_bb.bit_length() - 1
                flag, _, kdest, _, must_be_empty, king_path = info[rsq]
                if occupied & must_be_empty or r_bb & pinned:
                    continue
                if any(pos.is_attacked(s, them, occupied) for s in _bits(king_path)):
                    continue
                append(ksq | rsq << TO_SHIFT | flag << FLAG_SHIFT)
    return moves


def _bits(bb):
    while bb:
        low = bb & -bb
        yield low.bit_length() - 1
        bb ^= low


def _pinned_pawn_moves(pawns, us, ksq, up, promo_rank, empty, cap_target, quiet_target,
                       target, quiets, append):
    """Moves of pawns pinned to their king: only along the pin line."""
    start_rank = 1 if us == WHITE else 6
    for fr in _bits(pawns):
        line = LINE[ksq][fr]
        to = fr + up
        dests = []
        if BB_SQUARES[to] & empty:
            if BB_SQUARES[to] & quiet_target & line or (BB_SQUARES[to] & promo_rank & target & line):
                dests.append((to, 0))
            to2 = to + up
            if fr >> 3 == start_rank and BB_SQUARES[to2] & empty & quiet_target & line:
                dests.append((to2, MOVE_DOUBLE_PUSH))
        for t in _bits(PAWN_ATTACKS[us][fr] & cap_target & line):
            dests.append((t, MOVE_CAPTURE))
        for to, flag in dests:
            if BB_SQUARES[to] & promo_rank:
                if quiets:
                    for promo in (_CAPTURE_PROMOTIONS if flag else _PROMOTIONS):
                        append(fr | to << TO_SHIFT | promo)
                else:
                    append(fr | to << TO_SHIFT
                           | (_QUEEN_CAPTURE_PROMOTION if flag else _QUEEN_PROMOTION))
            else:
                append(fr | to << TO_SHIFT | flag)


def _en_passant_moves(pos, us, ksq, occupied, append):
    """En passant, each tested by lifting both pawns: the one case a pin test misses."""
    ep = pos.ep
    cap_sq = ep - 8 if us == WHITE else ep + 8
    them_bb = pos.occ[us ^ 1] & ~BB_SQUARES[cap_sq]
    for fr in _bits(PAWN_ATTACKS[us ^ 1][ep] & pos.bbs[us << 3 | PAWN]):
        occ_after = (occupied ^ BB_SQUARES[fr] ^ BB_SQUARES[cap_sq]) | BB_SQUARES[ep]
        if not pos.attackers_to(ksq, occ_after) & them_bb:
            append(fr | ep << TO_SHIFT | MOVE_EP)


def is_legal_move(pos, move):
    """Is ``move`` one of ``generate_moves(pos)``?  For a move from outside the generator
    (the transposition table's), checked without generating: the piece, the flag and the
    geometry, then the king's safety by playing it.  Castling, en passant and promotions
    are rare there and are looked up in the generated list instead."""
    flag = move >> 12                   # FLAG_SHIFT; the from/to fields are 6 bits each
    if flag > 4 or flag == 2 or flag == 3:              # not quiet, double push or capture
        return move in generate_moves(pos)
    fr = move & 63
    to = move >> 6 & 63
    board = pos.board
    us = pos.turn
    piece = board[fr]
    if not piece or piece >> 3 != us:
        return False
    target = board[to]
    if flag == 4:                                       # CAPTURE
        if not target or target >> 3 == us or target & 7 == KING:
            return False
    elif target:
        return False
    kind = piece & 7
    if kind == PAWN:
        up = 8 if us == WHITE else -8
        if to >> 3 == (7 if us == WHITE else 0):
            return False                                # only promotions reach the last rank
        if flag == 4:
            if not PAWN_ATTACKS[us][fr] >> to & 1:
                return False
        elif flag == 1:
            if fr >> 3 != (1 if us == WHITE else 6) or to != fr + 2 * up or board[fr + up]:
                return False
        elif to != fr + up:
            return False
    else:
        if flag == 1:
            return False
        occupied = pos.occ[0] | pos.occ[1]
        if kind == KNIGHT:
            attacks = KNIGHT_ATTACKS[fr]
        elif kind == KING:
            attacks = KING_ATTACKS[fr]
        else:
            attacks = 0
            if kind != BISHOP:
                attacks = ROOK_TABLE[fr][occupied & ROOK_MASK[fr]]
            if kind != ROOK:
                attacks |= BISHOP_TABLE[fr][occupied & BISHOP_MASK[fr]]
        if not attacks >> to & 1:
            return False
    pos.make(move)
    legal = not pos.is_attacked(pos.bbs[piece if kind == KING else us << 3 | KING].bit_length() - 1,
                                us ^ 1)
    pos.unmake()
    return legal
