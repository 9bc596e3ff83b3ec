"""Move ordering: static exchange evaluation, capture history, killers, history, countermoves.

The search tries the (validated) TT move before anything is scored, then scores the
rest once with ``MoveOrderer.score``; it picks its first moves by ``max`` + ``index`` (run
in C), so a cutoff early in the list wastes little, and the rest from one stable sort in
the same order (engine.search's ``MAX_PICKS``).

Score bands, best first:
    queen promotions
    captures that do not lose material (SEE >= 0), by victim value and capture history
    killer 1, killer 2, the countermove of the opponent's last move
    other quiet moves by history plus pawn history (each bounded to +-HISTORY_MAX)
    captures that lose material, by victim value and capture history
    under-promotions

Quiescence search orders its captures by MVV-LVA alone (``score_captures``): it stops
at the first capture whose victim cannot lift the score to alpha, so it needs them by
victim.
"""

from engine.bitboard import (BIT63, BB_SQUARES, PAWN_ATTACKS, KNIGHT_ATTACKS, KING_ATTACKS, ROOK_TABLE,
                             ROOK_MASK, BISHOP_TABLE, BISHOP_MASK)
from engine.jit import for_bitboard_form, for_plain_form
from engine.types import PAWN, QUEEN, KING, MAX_PLY, SQ_MASK, TO_SHIFT, is_castle, promotion_type

# Piece values for exchanges (index = piece type); the king's is large so that
# MVV-LVA puts king captures last, SEE never lets a king be captured.
SEE_VALUE = (0, 100, 320, 330, 500, 950, 20000, 0)

GOOD_CAPTURE = 3_000_000
KILLER_1 = 2_000_002
KILLER_2 = 2_000_001
COUNTER = 2_000_000
BAD_CAPTURE = -2_000_000
UNDER_PROMOTION = -3_000_000
USED = -10_000_000          # a move already tried (below every real score)
HISTORY_MAX = 16384         # history values stay within +-HISTORY_MAX (gravity update)
# A capture's score within its band: the victim's SEE value times CAPTURE_VICTIM_SCALE plus
# the capture history of (piece, to, victim), as Stockfish's; +19.1 +/- 25.2 Elo (pairs),
# 400 games at 10,000 nodes, against MVV-LVA
CAPTURE_VICTIM_SCALE = 16
QUEEN_PROMOTION = 40_000    # above every capture within the good band
# Pawn history (Stockfish 16's): a second quiet history by (pawn structure, piece, to), the
# structure hashed to one of PAWN_HISTORY_BUCKETS; kept for the whole game (cleared by
# ucinewgame, not damped between searches): +31.4 +/- 21.8 Elo (pairs), 600 games at 10,000 nodes
PAWN_HISTORY_BUCKETS = 512


@for_bitboard_form
def see_ge(pos, move, threshold=0):
    """Does the exchange started by move win at least threshold (Stockfish's swap loop)?

    Pins are ignored; en passant counts a pawn; promotions count the pawn only.
    """
    # literals for the move's fields (63 SQ_MASK, 6 TO_SHIFT, 12 FLAG_SHIFT, flags 2 and 3
    # castling, 5 en passant), the colours (WHITE 0) and the pieces (PAWN 1 .. KING 6,
    # black's 8 more): a global lookup costs measurably here
    fr = move & 63
    to = move >> 6 & 63
    flag = move >> 12
    if flag == 2 or flag == 3:
        return threshold <= 0
    board = pos.board
    value = SEE_VALUE
    victim = 1 if flag == 5 else board[to] & 7
    swap = value[victim] - threshold
    if swap < 0:
        return False
    swap = value[board[fr] & 7] - swap
    if swap <= 0:
        return True
    bbs = pos.bbs
    occ = pos.occ
    occupied = (occ[0] | occ[1]) ^ BB_SQUARES[fr] ^ BB_SQUARES[to]
    if flag == 5:
        occupied ^= BB_SQUARES[to - 8 if pos.turn == 0 else to + 8]
    stm = pos.turn
    queens = bbs[5] | bbs[13]
    bishops_queens = bbs[3] | bbs[11] | queens
    rooks_queens = bbs[4] | bbs[12] | queens
    rook_table = ROOK_TABLE[to]
    rook_mask = ROOK_MASK[to]
    bishop_table = BISHOP_TABLE[to]
    bishop_mask = BISHOP_MASK[to]
    attackers = ((PAWN_ATTACKS[1][to] & bbs[1]) | (PAWN_ATTACKS[0][to] & bbs[9])
                 | (KNIGHT_ATTACKS[to] & (bbs[2] | bbs[10]))
                 | (KING_ATTACKS[to] & (bbs[6] | bbs[14]))
                 | (rook_table[occupied & rook_mask] & rooks_queens)
                 | (bishop_table[occupied & bishop_mask] & bishops_queens))
    # the exchange loop: each side recaptures with its least valuable attacker
    _, pawn_value, knight_value, bishop_value, rook_value, queen_value, _, _ = value
    res = 1
    while True:
        stm = 1 - stm
        attackers &= occupied
        stm_attackers = attackers & occ[stm]
        if not stm_attackers:
            break
        res = 1 - res
        base = stm * 8
        bb = stm_attackers & bbs[base + 1]
        if bb:
            swap = pawn_value - swap
            if swap < res:
                break
            occupied ^= bb & -bb                    # no pawn stands on h8
            attackers |= bishop_table[occupied & bishop_mask] & bishops_queens
            continue
        bb = stm_attackers & bbs[base + 2]
        if bb:
            swap = knight_value - swap
            if swap < res:
                break
            occupied ^= bb & -bb if bb != BIT63 else bb     # h8 alone (engine.bitboard)
            continue
        bb = stm_attackers & bbs[base + 3]
        if bb:
            swap = bishop_value - swap
            if swap < res:
                break
            occupied ^= bb & -bb if bb != BIT63 else bb     # h8 alone (engine.bitboard)
            attackers |= bishop_table[occupied & bishop_mask] & bishops_queens
            continue
        bb = stm_attackers & bbs[base + 4]
        if bb:
            swap = rook_value - swap
            if swap < res:
                break
            occupied ^= bb & -bb if bb != BIT63 else bb     # h8 alone (engine.bitboard)
            attackers |= rook_table[occupied & rook_mask] & rooks_queens
            continue
        bb = stm_attackers & bbs[base + 5]
        if bb:
            swap = queen_value - swap
            if swap < res:
                break
            occupied ^= bb & -bb if bb != BIT63 else bb     # h8 alone (engine.bitboard)
            attackers |= ((bishop_table[occupied & bishop_mask] & bishops_queens)
                          | (rook_table[occupied & rook_mask] & rooks_queens))
            continue
        # only the king is left: it may capture only if the other side has no attacker left
        return bool(res ^ (1 if attackers & occ[1 - stm] else 0))
    return bool(res)


def see(pos, move):
    """Exchange value of move in centipawns (by bisection on see_ge; for tests and tools)."""
    lo, hi = -2000, 2000
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if see_ge(pos, move, mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def history_bonus(depth):
    """What a cutoff at this depth adds to (or a move tried before it takes from) a history."""
    return min(depth * depth, 400) * 4


def pawn_bucket(pos):
    """The pawn-history row of the position's pawn structure (its index, times 1024)."""
    bbs = pos.bbs
    return (hash((bbs[PAWN], bbs[8 | PAWN])) % PAWN_HISTORY_BUCKETS) << 10


class MoveOrderer:
    """Killers per ply, butterfly-free history by (piece, to), pawn history by (pawn
    structure, piece, to), capture history, and countermoves."""

    def __init__(self):
        self.clear()

    def clear(self):
        self.killers = [[0, 0] for _ in range(MAX_PLY + 8)]
        self.history = [0] * (16 * 64)
        self.capture_history = [0] * (16 * 64 * 8)
        self.counter = [0] * (16 * 64)
        self.pawn_history = [0] * (PAWN_HISTORY_BUCKETS * 16 * 64)

    def new_search(self):
        """Keep what was learnt but damp it, and forget killers of the previous tree."""
        # halved: kept whole -22.9 +/- 42.6 Elo (153 games), a quarter -17.4 +/- 37.4
        # (200 games), pairs, 10,000 nodes
        self.history = [h // 2 for h in self.history]
        self.capture_history = [h // 2 for h in self.capture_history]
        for k in self.killers:
            k[0] = k[1] = 0

    @for_plain_form
    def score(self, pos, moves, ply, counter_move):
        """One ordering score per move (see the bands in the module docstring)."""
        board = pos.board
        history = self.history
        capture_history = self.capture_history
        k1, k2 = self.killers[ply]
        pawn_history = self.pawn_history
        bucket = pawn_bucket(pos)
        scores = []
        append = scores.append
        # the move's fields sliced with literals (0xC000: MOVE_CAPTURE_OR_PROMOTION, 0x4000:
        # MOVE_CAPTURE, 0x8000: MOVE_PROMOTION, 6: TO_SHIFT, 63: SQ_MASK): a global lookup
        # a move costs measurably here; a quiet move is told by one test
        for m in moves:
            if not m & 0xC000:
                if m == k1:
                    append(KILLER_1)
                elif m == k2:
                    append(KILLER_2)
                elif m == counter_move:
                    append(COUNTER)
                else:
                    i = board[m & 63] * 64 + (m >> 6 & 63)
                    append(history[i] + pawn_history[bucket + i])
            elif m & 0x4000:
                to = m >> 6 & 63
                piece = board[m & 63]
                attacker = piece & 7
                victim = board[to] & 7 or PAWN          # an empty target is en passant
                if m & 0x8000:
                    if promotion_type(m) == QUEEN:
                        append(GOOD_CAPTURE + QUEEN_PROMOTION + 100 + victim)
                    else:
                        append(UNDER_PROMOTION + victim)
                    continue
                s = (SEE_VALUE[victim] * CAPTURE_VICTIM_SCALE
                     + capture_history[(piece * 64 + to) * 8 + victim])
                if SEE_VALUE[victim] >= SEE_VALUE[attacker] or see_ge(pos, m, 0):
                    append(GOOD_CAPTURE + s)
                else:
                    append(BAD_CAPTURE + s)
            else:
                append(GOOD_CAPTURE + QUEEN_PROMOTION if promotion_type(m) == QUEEN
                       else UNDER_PROMOTION)
        return scores

    def score_captures(self, pos, moves):
        """MVV-LVA only (quiescence search skips losing captures itself)."""
        board = pos.board
        # literals as in score(): 6 TO_SHIFT, 63 SQ_MASK, 1 PAWN, 0x8000 MOVE_PROMOTION
        return [((board[m >> 6 & 63] & 7 or 1) * 8 - (board[m & 63] & 7)
                 + (100 if m & 0x8000 else 0)) for m in moves]

    @for_plain_form
    def update(self, pos, best, depth, ply, quiets_tried, prev_move, captures_tried):
        """A quiet move caused a beta cutoff: reward it, punish the quiets and captures
        tried before it."""
        board = pos.board
        if captures_tried:
            self.update_captures(pos, 0, depth, captures_tried)
        killers = self.killers[ply]
        if killers[0] != best:
            killers[1] = killers[0]
            killers[0] = best
        history = self.history
        bonus = history_bonus(depth)
        i = board[best & SQ_MASK] << 6 | best >> TO_SHIFT & SQ_MASK
        h = history[i]
        history[i] = h + bonus - h * bonus // HISTORY_MAX
        pawn_history = self.pawn_history
        bucket = pawn_bucket(pos)
        j = bucket | i
        h = pawn_history[j]
        pawn_history[j] = h + bonus - h * bonus // HISTORY_MAX
        for m in quiets_tried:
            if m != best:
                i = board[m & SQ_MASK] << 6 | m >> TO_SHIFT & SQ_MASK
                h = history[i]
                history[i] = h - bonus - h * bonus // HISTORY_MAX
                j = bucket | i
                h = pawn_history[j]
                pawn_history[j] = h - bonus - h * bonus // HISTORY_MAX
        if prev_move:
            pto = prev_move >> TO_SHIFT & SQ_MASK
            self.counter[board[pto] << 6 | pto] = best

    def reward_prior(self, pos, prior, depth):
        """The opponent's quiet move ``prior``, just played, left no move of ours reaching
        alpha: reward it in the history as a cutoff would (Stockfish's prior-countermove
        bonus), without punishing the opponent's other moves."""
        to = prior >> TO_SHIFT & SQ_MASK
        # the slot score() read for the move: (its piece, to); a castling move's to is its
        # rook's square, which may be empty now, so its piece is the king that moved
        if is_castle(prior):
            piece = (pos.turn ^ 1) << 3 | KING
        else:
            piece = pos.board[to]
        i = piece << 6 | to
        history = self.history
        bonus = history_bonus(depth)
        h = history[i]
        history[i] = h + bonus - h * bonus // HISTORY_MAX

    @for_plain_form
    def update_captures(self, pos, best, depth, captures_tried):
        """Capture history: reward the capture ``best`` that caused a beta cutoff (0: a
        quiet move did) and punish the captures tried before it, by (piece, to, victim)."""
        board = pos.board
        capture_history = self.capture_history
        bonus = history_bonus(depth)
        for m in captures_tried:
            to = m >> TO_SHIFT & SQ_MASK
            i = (board[m & SQ_MASK] << 6 | to) << 3 | (board[to] & 7 or PAWN)
            h = capture_history[i]
            if m == best:
                capture_history[i] = h + bonus - h * bonus // HISTORY_MAX
            else:
                capture_history[i] = h - bonus - h * bonus // HISTORY_MAX

    @for_plain_form
    def counter_move(self, pos, prev_move):
        if not prev_move:
            return 0
        pto = prev_move >> TO_SHIFT & SQ_MASK
        return self.counter[pos.board[pto] << 6 | pto]
