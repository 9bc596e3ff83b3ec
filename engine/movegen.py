"""Move generation: pseudo-legal generation with Stockfish's cheap legality filter.

Checkers and pinned pieces are computed once per call.  With those known, only king
moves, en passant and castling need a real attack test; a pinned piece is kept on the
line through its king; in check, other pieces may only capture the checker or block.
Everything returned is therefore legal.  Moves are ints (see ``engine.types``).

``generate_moves(pos)`` gives every legal move.  ``generate_captures(pos)`` (also
``generate_moves(pos, False)``) gives captures, en passant and queen promotions only, for
quiescence search, in the order generate_moves gives them.

"All squares" is written -1 rather than a 64-bit mask.  A complement is ``x ^ ALL_SQUARES``
(engine.bitboard: positive on CPython, where ``&`` with a negative int is slower); a subset
taken out of a set is xored out (``ours ^ pinned``).  Bit 63 is BIT63 (the sign
bit on PyPy, engine.bitboard): each loop over target squares takes h8 out first
(``if bb < 0``, never true on CPython), and the white pawn sets that can reach h8 are
converted with ``to_bitboard`` when a pawn stands on g7 or h7.
"""

from engine.bitboard import (SIGNED, ALL_SQUARES, BIT63, BB_SQUARES, BB_FILE_A, BB_FILE_H, BB_RANK_1, BB_RANK_3,
                             BB_RANK_6, BB_RANK_8, BETWEEN, LINE, KNIGHT_ATTACKS, KING_ATTACKS,
                             PAWN_ATTACKS, ROOK_TABLE, ROOK_MASK, BISHOP_TABLE, BISHOP_MASK,
                             NOT_KING_ATTACKS, ROOK_RAYS, BISHOP_RAYS, squares_of, to_bitboard)
from engine.jit import for_bitboard_form, not_inlined
from engine.types import (WHITE, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING,
                          PROMO_KNIGHT, PROMO_BISHOP, PROMO_ROOK, PROMO_QUEEN, TO_SHIFT,
                          FLAG_SHIFT, MOVE_CAPTURE, MOVE_DOUBLE_PUSH, MOVE_EP)

# promotion flags, queen first so move ordering sees it early
_PROMOTIONS = tuple(flag << FLAG_SHIFT
                    for flag in (PROMO_QUEEN, PROMO_KNIGHT, PROMO_ROOK, PROMO_BISHOP))
_CAPTURE_PROMOTIONS = tuple(promotion | MOVE_CAPTURE for promotion in _PROMOTIONS)
_QUEEN_PROMOTIONS = _PROMOTIONS[:1]
_QUEEN_CAPTURE_PROMOTIONS = _CAPTURE_PROMOTIONS[:1]

# TO_BITS[sq] = sq << TO_SHIFT: a table lookup is cheaper than the shift in CPython's
# per-move loops (64 vs 84 ns a move, measured), with the from square and flag ORed once
# per piece.  The hot loops below write the move layout with these, as engine.types says.
TO_BITS = tuple(sq << TO_SHIFT for sq in range(64))

# complements (see the module docstring): 9.7% fewer instructions in shallow perfts of four
# positions (callgrind), the same moves in the same order
_NOT_FILE_A = BB_FILE_A ^ ALL_SQUARES
_NOT_FILE_H = BB_FILE_H ^ ALL_SQUARES


# CPython lists the moves to a set of squares in one dict lookup: the tuple of moves the
# walk over the set would append, kept by the set (per from-square for a piece's quiet
# moves and captures, per colour for pawn pushes), filled as sets come.  Instructions a
# node (bench_instructions.py --depth 6): a piece's quiet moves 1.1% fewer, its captures
# 0.4% fewer again, pushes 0.5% (pawn captures 0.07%: left to the walk).  About 13,000
# sets over 150 openings searched 20,000 nodes each, some 4 MB.  PyPy keeps the walk,
# which its JIT runs faster than a lookup and an extend (the quiet moves memoised: 1.1%
# more instructions a node there).
MEMO_MOVES = not SIGNED
_QUIET_MEMO = tuple({} for _ in range(64))
_CAPTURE_MEMO = tuple({} for _ in range(64))
_PUSH_MEMO = ({}, {})               # by colour: the same squares, other pawns
_DOUBLE_PUSH_MEMO = ({}, {})
MEMO_SIZE = 512             # sets kept in one dict before it starts again (392 at most above)


def _memoised(memo, targets, flag, fr=None, up=0):
    """The moves to the squares of targets, top square first (the plain form's order: no
    h8 test), each from fr (a piece) or from to - up (a pawn), with flag; kept in memo (one
    square's or colour's dict) under targets.  Never empty: targets is not."""
    moves = []
    bb = targets
    while bb:
        to = bb.bit_length() - 1
        bb ^= BB_SQUARES[to]
        moves.append((to - up if fr is None else fr) | TO_BITS[to] | flag)
    if len(memo) >= MEMO_SIZE:
        memo.clear()
    memo[targets] = moves = tuple(moves)
    return moves


@for_bitboard_form
def _king_danger(bbs, us, ksq, ours, occupied):
    """(checkers, pinned) for the side ``us``, its king on ``ksq``: what the legality filter
    needs."""
    tb = 8 - 8 * us         # their pieces: bbs[tb + 2] (knights) ...; in the generators
    # PAWN 1 .. KING 6 and the MOVE_ flags are literals (tests/test_types.py pins them)
    checkers = ((KNIGHT_ATTACKS[ksq] & bbs[tb + 2])
                | (PAWN_ATTACKS[us][ksq] & bbs[tb + 1]))
    pinned = 0
    # their sliders on a line through the king: one with nothing between gives check (no
    # slider attack lookup needed), one with a single piece between pins it if it is ours
    snipers = ((ROOK_RAYS[ksq] & (bbs[tb + 4] | bbs[tb + 5]))
               | (BISHOP_RAYS[ksq] & (bbs[tb + 3] | bbs[tb + 5])))
    between = BETWEEN[ksq]
    while snipers:
        sniper = snipers.bit_length() - 1 if snipers > 0 else 63
        s_bb = BB_SQUARES[sniper]
        snipers ^= s_bb
        blockers = between[sniper] & occupied
        if not blockers:
            checkers |= s_bb
        elif not blockers & (blockers - 1):      # BETWEEN never holds h8
            pinned |= blockers & ours
    return checkers, pinned


@for_bitboard_form
def _king_moves(pos, us, ksq, targets, append):
    """King moves to ``targets`` (already without own pieces): each tested with the king
    lifted off the board."""
    bbs = pos.bbs
    tb = (us ^ 1) << 3
    theirs = pos.occ[us ^ 1]
    no_king = (pos.occ[us] | theirs) ^ BB_SQUARES[ksq]
    their_rq = bbs[tb | 4] | bbs[tb | 5]
    their_bq = bbs[tb | 3] | bbs[tb | 5]
    their_knights = bbs[tb | 2]
    their_pawns = bbs[tb | 1]
    pawn_attacks = PAWN_ATTACKS[us]
    targets &= NOT_KING_ATTACKS[bbs[tb | 6].bit_length() - 1]
    while targets:
        to = targets.bit_length() - 1 if targets > 0 else 63
        to_bb = BB_SQUARES[to]
        targets ^= to_bb
        # the empty-board rays first: most squares see no slider at all, and a list
        # lookup is cheaper than the masked dict lookup
        if ((KNIGHT_ATTACKS[to] & their_knights) or (pawn_attacks[to] & their_pawns)
                or (ROOK_RAYS[to] & their_rq
                    and ROOK_TABLE[to][no_king & ROOK_MASK[to]] & their_rq)
                or (BISHOP_RAYS[to] & their_bq
                    and BISHOP_TABLE[to][no_king & BISHOP_MASK[to]] & their_bq)):
            continue
        append(ksq | TO_BITS[to] | (0x4000 if to_bb & theirs else 0))


# traced on its own under PyPy, as Position.make (the figures there)
@not_inlined
@for_bitboard_form
def generate_moves(pos, quiets=True):
    """Legal moves of the side to move (only captures and queen promotions if not quiets)."""
    if not quiets:
        return generate_captures(pos)
    us = pos.turn
    bbs = pos.bbs
    occ = pos.occ
    ours = occ[us]
    theirs = occ[us ^ 1]
    occupied = ours | theirs
    ub = us << 3
    ksq = bbs[ub | 6].bit_length() - 1
    checkers, pinned = _king_danger(bbs, us, ksq, ours, occupied)
    unpinned = ours ^ pinned        # pinned is a subset of ours
    moves = []
    append = moves.append
    extend = moves.extend
    quiet_memo = _QUIET_MEMO
    capture_memo = _CAPTURE_MEMO
    _king_moves(pos, us, ksq, KING_ATTACKS[ksq] & (ours ^ ALL_SQUARES), append)

    empty = occupied ^ ALL_SQUARES
    if checkers:
        if checkers & (checkers - 1) and checkers != BIT63:
            return moves            # double check: only the king may move
        target = BETWEEN[ksq][checkers.bit_length() - 1] | checkers
        movable = unpinned          # a pinned piece can never answer a check
        cap_target = theirs & target
        quiet_target = empty & target
    else:
        # not in check: no target to apply (an & with -1 costs CPython a complemented copy;
        # with the literals, 164,870 -> 164,181 instructions a node, PyPy unchanged)
        movable = ours
        cap_target = theirs
        quiet_target = empty

    # Pawns, set-wise for the unpinned ones.
    pawns = bbs[ub | 1] & movable
    pinned_pawns = pawns & pinned
    free_pawns = pawns ^ pinned_pawns
    if not us:
        push = (free_pawns << 8) & empty
        double = ((push & BB_RANK_3) << 8) & quiet_target
        cap_left = ((free_pawns & _NOT_FILE_A) << 7) & cap_target
        cap_right = ((free_pawns & _NOT_FILE_H) << 9) & cap_target
        # a pawn on g7 or h7 (bit 54 up; a compare makes no new int, >> 54 does): a shift
        # makes 2**63 of h8, not BIT63
        if free_pawns > 0x3FFFFFFFFFFFFF:
            push = to_bitboard(push)
            cap_right = to_bitboard(cap_right)
        promo_rank = BB_RANK_8
        up = 8
    else:
        push = (free_pawns >> 8) & empty
        double = ((push & BB_RANK_6) >> 8) & quiet_target
        cap_left = ((free_pawns & _NOT_FILE_A) >> 9) & cap_target
        cap_right = ((free_pawns & _NOT_FILE_H) >> 7) & cap_target
        promo_rank = BB_RANK_1
        up = -8
    if checkers:
        push &= target
    # the squares pawns came from, per set: to - up, to - up + 1, to - up - 1
    promo_push = push & promo_rank
    push ^= promo_push
    if MEMO_MOVES:
        if push:
            memo = _PUSH_MEMO[us]
            extend(memo.get(push) or _memoised(memo, push, 0, up=up))
        if double:
            memo = _DOUBLE_PUSH_MEMO[us]
            extend(memo.get(double) or _memoised(memo, double, 0x1000, up=up + up))
    else:
        while push:
            to = push.bit_length() - 1
            push ^= BB_SQUARES[to]
            append((to - up) | TO_BITS[to])
        while double:
            to = double.bit_length() - 1
            double ^= BB_SQUARES[to]
            append((to - up - up) | TO_BITS[to] | 0x1000)
    for targets, delta in ((cap_left, up - 1), (cap_right, up + 1)):  # unrolled in the plain form
        promo_caps = targets & promo_rank
        captures = targets ^ promo_caps
        while captures:
            to = captures.bit_length() - 1
            captures ^= BB_SQUARES[to]
            append((to - delta) | TO_BITS[to] | 0x4000)
        while promo_caps:
            to = promo_caps.bit_length() - 1 if promo_caps > 0 else 63
            promo_caps ^= BB_SQUARES[to]
            base = (to - delta) | TO_BITS[to]
            for flag in _CAPTURE_PROMOTIONS:
                append(base | flag)
    while promo_push:
        to = promo_push.bit_length() - 1 if promo_push > 0 else 63
        promo_push ^= BB_SQUARES[to]
        base = (to - up) | TO_BITS[to]
        for flag in _PROMOTIONS:
            append(base | flag)
    if pinned_pawns:
        _pinned_pawn_moves(pinned_pawns, us, ksq, empty, theirs, True,
                           _PROMOTIONS, _CAPTURE_PROMOTIONS, append)
    if pos.ep:
        _en_passant_moves(pos, us, ksq, occupied, append)

    # Pieces: captures and quiet moves in separate loops, so each has a constant flag.
    bb = bbs[ub | 2] & unpinned        # a pinned knight never moves
    while bb:
        fr = bb.bit_length() - 1 if bb > 0 else 63
        bb ^= BB_SQUARES[fr]
        att = KNIGHT_ATTACKS[fr]
        caps = att & cap_target
        att &= quiet_target
        if MEMO_MOVES:
            if caps:
                extend(capture_memo[fr].get(caps) or _memoised(capture_memo[fr], caps, 0x4000, fr))
            if att:
                extend(quiet_memo[fr].get(att) or _memoised(quiet_memo[fr], att, 0, fr))
            continue
        base = fr | 0x4000
        if caps < 0:        # h8 first, as the walk from the top below would
            caps ^= BIT63
            append(base | TO_BITS[63])
        while caps:
            to = caps.bit_length() - 1
            caps ^= BB_SQUARES[to]
            append(base | TO_BITS[to])
        if att < 0:        # h8 first, as the walk from the top below would
            att ^= BIT63
            append(fr | TO_BITS[63])
        while att:
            to = att.bit_length() - 1
            att ^= BB_SQUARES[to]
            append(fr | TO_BITS[to])
    # one loop over the three kinds with the tables named per kind: PyPy then traces each
    # kind with its tables as constants (a loop over (table, mask) tuples made generation
    # ~40% slower there)
    for kind in (BISHOP, ROOK, QUEEN):
        sliders = bbs[ub | kind] & movable
        while sliders:
            fr = sliders.bit_length() - 1 if sliders > 0 else 63
            f_bb = BB_SQUARES[fr]
            sliders ^= f_bb
            if kind == BISHOP:
                att = BISHOP_TABLE[fr][occupied & BISHOP_MASK[fr]]
            elif kind == ROOK:
                att = ROOK_TABLE[fr][occupied & ROOK_MASK[fr]]
            else:
                att = (ROOK_TABLE[fr][occupied & ROOK_MASK[fr]]
                       | BISHOP_TABLE[fr][occupied & BISHOP_MASK[fr]])
            if f_bb & pinned:
                att &= LINE[ksq][fr]
            caps = att & cap_target
            att &= quiet_target
            if MEMO_MOVES:
                if caps:
                    extend(capture_memo[fr].get(caps)
                           or _memoised(capture_memo[fr], caps, 0x4000, fr))
                if att:
                    extend(quiet_memo[fr].get(att) or _memoised(quiet_memo[fr], att, 0, fr))
                continue
            base = fr | 0x4000
            if caps < 0:        # h8 first, as the walk from the top below would
                caps ^= BIT63
                append(base | TO_BITS[63])
            while caps:
                to = caps.bit_length() - 1
                caps ^= BB_SQUARES[to]
                append(base | TO_BITS[to])
            if att < 0:        # h8 first, as the walk from the top below would
                att ^= BIT63
                append(fr | TO_BITS[63])
            while att:
                to = att.bit_length() - 1
                att ^= BB_SQUARES[to]
                append(fr | TO_BITS[to])

    if pos.castling and not checkers:
        _castling_moves(pos, us, ksq, occupied, pinned, append)
    return moves


@not_inlined
@for_bitboard_form
def generate_captures(pos):
    """Legal captures, en passant and queen promotions (quiescence search's moves).

    The same moves, in the same order, as the captures part of generate_moves."""
    us = pos.turn
    bbs = pos.bbs
    occ = pos.occ
    ours = occ[us]
    theirs = occ[us ^ 1]
    occupied = ours | theirs
    ub = us << 3
    ksq = bbs[ub | 6].bit_length() - 1
    checkers, pinned = _king_danger(bbs, us, ksq, ours, occupied)
    unpinned = ours ^ pinned        # pinned is a subset of ours
    moves = []
    append = moves.append
    extend = moves.extend
    capture_memo = _CAPTURE_MEMO
    king_captures = KING_ATTACKS[ksq] & theirs
    if king_captures:
        _king_moves(pos, us, ksq, king_captures, append)

    if checkers:
        if checkers & (checkers - 1) and checkers != BIT63:
            return moves
        target = BETWEEN[ksq][checkers.bit_length() - 1] | checkers
        movable = unpinned
        cap_target = theirs & target
    else:
        movable = ours          # as in generate_moves
        cap_target = theirs
    empty = occupied ^ ALL_SQUARES

    pawns = bbs[ub | 1] & movable
    pinned_pawns = pawns & pinned
    free_pawns = pawns ^ pinned_pawns
    if not us:
        promo_push = ((free_pawns & 0x00FF000000000000) << 8) & empty
        cap_left = ((free_pawns & _NOT_FILE_A) << 7) & cap_target
        cap_right = ((free_pawns & _NOT_FILE_H) << 9) & cap_target
        if free_pawns > 0x3FFFFFFFFFFFFF:       # as in generate_moves
            promo_push = to_bitboard(promo_push)
            cap_right = to_bitboard(cap_right)
        promo_rank = BB_RANK_8
        up = 8
    else:
        promo_push = ((free_pawns & 0xFF00) >> 8) & empty
        cap_left = ((free_pawns & _NOT_FILE_A) >> 9) & cap_target
        cap_right = ((free_pawns & _NOT_FILE_H) >> 7) & cap_target
        promo_rank = BB_RANK_1
        up = -8
    if checkers:
        promo_push &= target
    for targets, delta in ((cap_left, up - 1), (cap_right, up + 1)):  # unrolled in the plain form
        promo_caps = targets & promo_rank
        captures = targets ^ promo_caps
        while captures:
            to = captures.bit_length() - 1
            captures ^= BB_SQUARES[to]
            append((to - delta) | TO_BITS[to] | 0x4000)
        while promo_caps:
            to = promo_caps.bit_length() - 1 if promo_caps > 0 else 63
            promo_caps ^= BB_SQUARES[to]
            append((to - delta) | TO_BITS[to] | _CAPTURE_PROMOTIONS[0])
    while promo_push:
        to = promo_push.bit_length() - 1 if promo_push > 0 else 63
        promo_push ^= BB_SQUARES[to]
        append((to - up) | TO_BITS[to] | _PROMOTIONS[0])
    if pinned_pawns:
        _pinned_pawn_moves(pinned_pawns, us, ksq, empty, theirs, False,
                           _QUEEN_PROMOTIONS, _QUEEN_CAPTURE_PROMOTIONS, append)
    if pos.ep:
        _en_passant_moves(pos, us, ksq, occupied, append)

    bb = bbs[ub | 2] & unpinned        # a pinned knight never moves
    while bb:
        fr = bb.bit_length() - 1 if bb > 0 else 63
        bb ^= BB_SQUARES[fr]
        caps = KNIGHT_ATTACKS[fr] & cap_target
        if MEMO_MOVES:
            if caps:
                extend(capture_memo[fr].get(caps) or _memoised(capture_memo[fr], caps, 0x4000, fr))
            continue
        base = fr | 0x4000
        if caps < 0:        # h8 first, as the walk from the top below would
            caps ^= BIT63
            append(base | TO_BITS[63])
        while caps:
            to = caps.bit_length() - 1
            caps ^= BB_SQUARES[to]
            append(base | TO_BITS[to])
    for kind in (BISHOP, ROOK, QUEEN):      # as in generate_moves
        sliders = bbs[ub | kind] & movable
        while sliders:
            fr = sliders.bit_length() - 1 if sliders > 0 else 63
            f_bb = BB_SQUARES[fr]
            sliders ^= f_bb
            # nothing to capture even on an empty board: skip the dict lookups
            if kind == BISHOP:
                if not BISHOP_RAYS[fr] & cap_target:
                    continue
                caps = BISHOP_TABLE[fr][occupied & BISHOP_MASK[fr]]
            elif kind == ROOK:
                if not ROOK_RAYS[fr] & cap_target:
                    continue
                caps = ROOK_TABLE[fr][occupied & ROOK_MASK[fr]]
            else:
                caps = (ROOK_TABLE[fr][occupied & ROOK_MASK[fr]]
                        | BISHOP_TABLE[fr][occupied & BISHOP_MASK[fr]])
            caps &= cap_target
            if f_bb & pinned:
                caps &= LINE[ksq][fr]
            if MEMO_MOVES:
                if caps:
                    extend(capture_memo[fr].get(caps)
                           or _memoised(capture_memo[fr], caps, 0x4000, fr))
                continue
            base = fr | 0x4000
            if caps < 0:        # h8 first, as the walk from the top below would
                caps ^= BIT63
                append(base | TO_BITS[63])
            while caps:
                to = caps.bit_length() - 1
                caps ^= BB_SQUARES[to]
                append(base | TO_BITS[to])
    return moves


def _castling_moves(pos, us, ksq, occupied, pinned, append):
    """Castling: not out of, through or into check; the rook must not be shielding the king."""
    rights = pos.castling & (BB_RANK_1 if us == WHITE else BB_RANK_8)
    info = pos.castle_info
    them = us ^ 1
    for rsq in squares_of(rights):  # lowest first: generation order is the search's tie-break
        flag, _, kdest, _, must_be_empty, king_path = info[rsq]
        if occupied & must_be_empty or BB_SQUARES[rsq] & pinned:
            continue
        for sq in squares_of(king_path):
            if pos.is_attacked(sq, them, occupied):
                break
        else:
            append(ksq | TO_BITS[rsq] | flag << FLAG_SHIFT)


def _pinned_pawn_moves(pawns, us, ksq, empty, theirs, plain_pushes,
                       push_promotions, capture_promotions, append):
    """Moves of pawns pinned to their king: only along the pin line.  Only called when
    not in check (in check a pinned piece never moves), so no check target applies.

    plain_pushes: whether non-promoting pushes are wanted; the promotion tuples give the
    promotion flags wanted."""
    up = 8 if us == WHITE else -8
    start_rank = 1 if us == WHITE else 6
    promo_rank = BB_RANK_8 if us == WHITE else BB_RANK_1
    for fr in squares_of(pawns):
        line = LINE[ksq][fr]
        to = fr + up
        if BB_SQUARES[to] & empty & line:        # then a double push is on the line too
            if BB_SQUARES[to] & promo_rank:
                for promotion in push_promotions:
                    append(fr | TO_BITS[to] | promotion)
            elif plain_pushes:
                append(fr | TO_BITS[to])
                to2 = to + up
                if fr >> 3 == start_rank and BB_SQUARES[to2] & empty:
                    append(fr | TO_BITS[to2] | MOVE_DOUBLE_PUSH)
        for to in squares_of(PAWN_ATTACKS[us][fr] & theirs & line):
            if BB_SQUARES[to] & promo_rank:
                for promotion in capture_promotions:
                    append(fr | TO_BITS[to] | promotion)
            else:
                append(fr | TO_BITS[to] | MOVE_CAPTURE)


def _en_passant_moves(pos, us, ksq, occupied, append):
    """En passant, each tested by lifting both pawns: the one case a pin test misses."""
    ep = pos.ep
    cap_sq = ep - 8 if us == WHITE else ep + 8
    them_bb = pos.occ[us ^ 1] & ~BB_SQUARES[cap_sq]
    for fr in squares_of(PAWN_ATTACKS[us ^ 1][ep] & pos.bbs[us << 3 | PAWN]):
        occ_after = (occupied ^ BB_SQUARES[fr] ^ BB_SQUARES[cap_sq]) | BB_SQUARES[ep]
        if not pos.attackers_to(ksq, occ_after) & them_bb:
            append(fr | TO_BITS[ep] | MOVE_EP)


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
