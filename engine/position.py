"""The position: bitboards plus a mailbox, FEN in and out, make/unmake, attack queries.

State that make/unmake keep in step: ``board`` (64 coloured-piece ints), ``bbs`` (one
bitboard per coloured piece, indexed by the piece int), ``occ`` (one bitboard per colour),
the side to move, castling rights as a bitboard of the castling rooks' squares (so a
Chess960 right is simply its rook's square), the en-passant square (0 = none; it is kept
only when a pawn of the side to move stands ready to capture, which is also exactly when
Polyglot hashes it), the two move counters, the Zobrist key and the packed
material+piece-square score ``psq``.  Undo is one tuple per ply on ``stack`` (its layout:
make); the keys in it double as the repetition history.
"""

from engine.bitboard import (BIT63, BB_SQUARES, BB_RANK_1, BB_RANK_8, BETWEEN, LINE,
                             KNIGHT_ATTACKS, KING_ATTACKS, PAWN_ATTACKS,
                             ROOK_TABLE, ROOK_MASK, BISHOP_TABLE, BISHOP_MASK,
                             ROOK_RAYS, BISHOP_RAYS,
                             BB_LIGHT_SQUARES, BB_DARK_SQUARES, popcount, squares_of)
from engine.jit import for_plain_form, not_inlined
from engine.psqt import PSQ
from engine.types import (WHITE, BLACK, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING,
                          W_PAWN, W_KNIGHT, W_BISHOP, W_ROOK, W_QUEEN,
                          B_PAWN, B_KNIGHT, B_BISHOP, B_ROOK, B_QUEEN,
                          PIECE_SYMBOLS, SYMBOL_PIECES, SQUARE_NAMES, FILE_NAMES,
                          EP_CAPTURE, PROMOTION, PROMO_PIECE_BITS,
                          CASTLE_KING, CASTLE_QUEEN, NULL_MOVE, SQ_MASK, TO_SHIFT,
                          FROM_TO_BITS, parse_square)
from engine.zobrist import (ZOBRIST_PIECE, ZOBRIST_EP_FILE, ZOBRIST_WHITE_TO_MOVE,
                            castling_key)

STARTING_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


class FenError(ValueError):
    """A FEN that does not describe a playable position; the message names the defect."""


# Per-move lookups for make's fast path, indexed by ``move & FROM_TO_BITS`` (from | to << 6):
# the from/to mask, and per piece the key delta (side-to-move toggle included) and the
# packed score delta.
FROM_TO_MASK = [BB_SQUARES[ft & SQ_MASK] | BB_SQUARES[ft >> TO_SHIFT]
                for ft in range(FROM_TO_BITS + 1)]
MOVE_KEY = [None] * 16
MOVE_PSQ = [None] * 16
for _piece in PIECE_SYMBOLS:
    _z, _p = ZOBRIST_PIECE[_piece], PSQ[_piece]
    MOVE_KEY[_piece] = [_z[ft & SQ_MASK] ^ _z[ft >> TO_SHIFT] ^ ZOBRIST_WHITE_TO_MOVE
                        for ft in range(FROM_TO_BITS + 1)]
    MOVE_PSQ[_piece] = [_p[ft >> TO_SHIFT] - _p[ft & SQ_MASK] for ft in range(FROM_TO_BITS + 1)]

# Cuckoo tables of the reversible moves (a knight, bishop, rook, queen or king between two
# squares it attacks on an empty board: 3,668 of them), keyed by the move's key delta, for
# has_game_cycle (Stockfish's upcoming-repetition test).  A key has two slots, its low 13
# bits and bits 16..28; CUCKOO_MOVE holds ``from | to << 6`` (from < to), 0 for an empty slot.
CUCKOO_SIZE = 8192


def _cuckoo_tables():
    keys = [0] * CUCKOO_SIZE
    moves = [0] * CUCKOO_SIZE
    for piece in PIECE_SYMBOLS:
        kind = piece & 7
        if kind == PAWN:
            continue
        for s1 in range(64):
            if kind == KNIGHT:
                targets = KNIGHT_ATTACKS[s1]
            elif kind == KING:
                targets = KING_ATTACKS[s1]
            else:
                targets = ((ROOK_RAYS[s1] if kind != BISHOP else 0)
                           | (BISHOP_RAYS[s1] if kind != ROOK else 0))
            for s2 in range(s1 + 1, 64):
                if not targets >> s2 & 1:
                    continue
                move = s1 | s2 << TO_SHIFT
                key = MOVE_KEY[piece][move]
                i = key & 0x1FFF
                for _ in range(CUCKOO_SIZE):      # each step moves the slot's old entry on
                    keys[i], key = key, keys[i]
                    moves[i], move = move, moves[i]
                    if not move:
                        break
                    i = key >> 16 & 0x1FFF if i == key & 0x1FFF else key & 0x1FFF
                else:
                    raise RuntimeError("cuckoo insertion did not settle")
    return keys, moves


CUCKOO_KEY, CUCKOO_MOVE = _cuckoo_tables()

# Castling destinations by flag, for white (black adds 56).
_KING_DEST = {CASTLE_KING: 6, CASTLE_QUEEN: 2}      # g1, c1
_ROOK_DEST = {CASTLE_KING: 5, CASTLE_QUEEN: 3}      # f1, d1


class Position:
    __slots__ = ("board", "bbs", "occ", "turn", "castling", "ep", "halfmove", "root_fullmove",
                 "root_turn", "key", "psq", "stack", "castle_mask", "castle_info", "castle_touch")

    def __init__(self, fen=STARTING_FEN, repairs=None):
        self.set_fen(fen, repairs)

    # ------------------------------------------------------------------ FEN in
    def set_fen(self, fen, repairs=None):
        """Load a FEN (6 or 4 fields; X-FEN or Shredder-FEN castling).

        Raises FenError and leaves this position untouched when the FEN is bad.  Given a
        list as ``repairs``, a castling right or en-passant square the board contradicts
        is dropped instead, as Stockfish does, and what was dropped is appended there.
        """
        parsed = _parse_fen(fen, repairs)
        (self.board, self.bbs, self.occ, self.turn, self.castling, self.ep,
         self.halfmove, self.root_fullmove) = parsed
        self.root_turn = self.turn
        self.stack = []
        self._setup_castling()
        self.key = self.compute_key()
        self.psq = self.compute_psq()

    @classmethod
    def from_fen(cls, fen):
        return cls(fen)

    def copy(self):
        """An independent copy (the undo stack is copied, so repetitions still count)."""
        other = Position.__new__(Position)
        other.board = self.board[:]
        other.bbs = self.bbs[:]
        other.occ = self.occ[:]
        other.turn = self.turn
        other.castling = self.castling
        other.ep = self.ep
        other.halfmove = self.halfmove
        other.root_fullmove = self.root_fullmove
        other.root_turn = self.root_turn
        other.key = self.key
        other.psq = self.psq
        other.stack = self.stack[:]
        other.castle_mask = self.castle_mask
        other.castle_info = self.castle_info
        other.castle_touch = self.castle_touch
        return other

    def _setup_castling(self):
        """Per-square masks that strip rights, and each right's king/rook paths.

        Rights only ever disappear during a game, so this is computed once per FEN.
        """
        mask = [-1] * 64            # -1: every right kept
        info = {}
        for rsq in squares_of(self.castling):
            color = WHITE if rsq < 8 else BLACK
            ksq = self.king_square(color)
            back_rank = BB_RANK_1 if color == WHITE else BB_RANK_8
            mask[rsq] &= ~BB_SQUARES[rsq]
            mask[ksq] &= ~back_rank
            flag = CASTLE_KING if rsq > ksq else CASTLE_QUEEN
            base = 56 if color == BLACK else 0
            kdest, rdest = base + _KING_DEST[flag], base + _ROOK_DEST[flag]
            must_be_empty = (BETWEEN[ksq][kdest] | BB_SQUARES[kdest] | BETWEEN[rsq][rdest]
                             | BB_SQUARES[rdest]) & ~BB_SQUARES[ksq] & ~BB_SQUARES[rsq]
            king_path = (BETWEEN[ksq][kdest] | BB_SQUARES[kdest]) & ~BB_SQUARES[ksq]
            info[rsq] = (flag, ksq, kdest, rdest, must_be_empty, king_path)
        self.castle_mask = mask
        self.castle_info = info
        # squares whose touching changes a right: the castling rooks' and their kings'
        self.castle_touch = sum(BB_SQUARES[sq] for sq in range(64) if mask[sq] != -1)

    # ------------------------------------------------------------------ derived state
    def compute_key(self):
        """Zobrist key from scratch (Polyglot layout)."""
        key = 0
        for sq, piece in enumerate(self.board):
            if piece:
                key ^= ZOBRIST_PIECE[piece][sq]
        key ^= castling_key(self.castling)
        if self.ep:
            key ^= ZOBRIST_EP_FILE[self.ep & 7]
        if self.turn == WHITE:
            key ^= ZOBRIST_WHITE_TO_MOVE
        return key

    def compute_psq(self):
        return sum(PSQ[piece][sq] for sq, piece in enumerate(self.board) if piece)

    def validate(self):
        """Recompute every derived field from scratch and raise AssertionError on a mismatch."""
        bbs = [0] * 16
        for sq, piece in enumerate(self.board):
            if piece:
                bbs[piece] |= BB_SQUARES[sq]
        assert bbs == self.bbs, "bitboards disagree with the mailbox"
        occ = [0, 0]
        for piece in range(16):
            occ[piece >> 3] |= bbs[piece]
        assert occ == self.occ, "occupancy disagrees with the mailbox"
        assert self.key == self.compute_key(), "incremental key differs from the recomputed key"
        assert self.psq == self.compute_psq(), "incremental psq differs from the recomputed score"
        for color in (WHITE, BLACK):
            assert popcount(self.bbs[color << 3 | KING]) == 1, "not exactly one king"
        if self.ep:
            assert self._ep_capturable(self.ep), "stored en-passant square has no capturing pawn"
        for rsq in squares_of(self.castling):
            color = WHITE if rsq < 8 else BLACK
            assert self.board[rsq] == color << 3 | ROOK, "castling right without its rook"
            assert self.castle_info[rsq][1] == self.king_square(color), "castling right without its king"
        return True

    # ------------------------------------------------------------------ queries
    def king_square(self, color):
        return self.bbs[color << 3 | KING].bit_length() - 1

    @for_plain_form
    def attackers_to(self, sq, occupied):
        """Pieces of both colours attacking sq given an occupancy."""
        bbs = self.bbs
        return ((PAWN_ATTACKS[BLACK][sq] & bbs[PAWN])
                | (PAWN_ATTACKS[WHITE][sq] & bbs[8 | PAWN])
                | (KNIGHT_ATTACKS[sq] & (bbs[KNIGHT] | bbs[8 | KNIGHT]))
                | (KING_ATTACKS[sq] & (bbs[KING] | bbs[8 | KING]))
                | (ROOK_TABLE[sq][occupied & ROOK_MASK[sq]]
                   & (bbs[ROOK] | bbs[QUEEN] | bbs[8 | ROOK] | bbs[8 | QUEEN]))
                | (BISHOP_TABLE[sq][occupied & BISHOP_MASK[sq]]
                   & (bbs[BISHOP] | bbs[QUEEN] | bbs[8 | BISHOP] | bbs[8 | QUEEN])))

    @for_plain_form
    def is_attacked(self, sq, by_color, occupied=None):
        """Is sq attacked by a piece of by_color (with an optional changed occupancy)?"""
        bbs = self.bbs
        b = by_color << 3
        if occupied is None:
            occupied = self.occ[0] | self.occ[1]
        return bool((KNIGHT_ATTACKS[sq] & bbs[b | KNIGHT])
                    or (PAWN_ATTACKS[by_color ^ 1][sq] & bbs[b | PAWN])
                    or (KING_ATTACKS[sq] & bbs[b | KING])
                    or (ROOK_TABLE[sq][occupied & ROOK_MASK[sq]] & (bbs[b | ROOK] | bbs[b | QUEEN]))
                    or (BISHOP_TABLE[sq][occupied & BISHOP_MASK[sq]] & (bbs[b | BISHOP] | bbs[b | QUEEN])))

    def checkers(self):
        us = self.turn
        ksq = self.bbs[us << 3 | KING].bit_length() - 1
        return self.attackers_to(ksq, self.occ[0] | self.occ[1]) & self.occ[us ^ 1]

    @for_plain_form
    def in_check(self):
        """Is the side to move in check?  (is_attacked written out for the king: the search
        asks after every move, and the call and the king test cost ~25% more.  The occupancy
        is formed only for a slider on a line through the king, ~30% of the calls.)"""
        us = self.turn
        bbs = self.bbs
        b = 8 - 8 * us          # the opponent's pieces: bbs[b + 2] (knights) ...
        # pieces as literals (PAWN 1 .. KING 6, tests/test_types.py pins them)
        sq = bbs[8 * us + 6].bit_length() - 1
        if (KNIGHT_ATTACKS[sq] & bbs[b + 2]) or (PAWN_ATTACKS[us][sq] & bbs[b + 1]):
            return True
        rooks = bbs[b + 4] | bbs[b + 5]
        if ROOK_RAYS[sq] & rooks:
            occ = self.occ
            if ROOK_TABLE[sq][(occ[0] | occ[1]) & ROOK_MASK[sq]] & rooks:
                return True
        bishops = bbs[b + 3] | bbs[b + 5]
        if BISHOP_RAYS[sq] & bishops:
            occ = self.occ
            if BISHOP_TABLE[sq][(occ[0] | occ[1]) & BISHOP_MASK[sq]] & bishops:
                return True
        return False

    @for_plain_form
    def check_squares(self):
        """(check_sq, discoverers, ksq): what decides whether a quiet move checks the
        opponent's king on ksq, computed once for all the moves of a node.

        ``check_sq[piece_type]`` holds the squares that piece type would give check from,
        with today's occupancy (a slider already on such a line would be giving check now,
        which cannot be: it is our move).  ``discoverers`` are our pieces that alone stand
        between that king and one of our sliders: moving one off that line checks."""
        us = self.turn
        bbs = self.bbs
        occupied = self.occ[0] | self.occ[1]
        ksq = bbs[(us ^ 1) << 3 | 6].bit_length() - 1     # KING 6, as in in_check
        rook_sq = ROOK_TABLE[ksq][occupied & ROOK_MASK[ksq]]
        bishop_sq = BISHOP_TABLE[ksq][occupied & BISHOP_MASK[ksq]]
        check_sq = (0, PAWN_ATTACKS[us ^ 1][ksq], KNIGHT_ATTACKS[ksq], bishop_sq, rook_sq,
                    bishop_sq | rook_sq, 0, 0)
        b = us << 3
        snipers = ((ROOK_RAYS[ksq] & (bbs[b | 4] | bbs[b | 5]))
                   | (BISHOP_RAYS[ksq] & (bbs[b | 3] | bbs[b | 5])))
        if not snipers:
            return check_sq, 0, ksq
        discoverers = 0
        between = BETWEEN[ksq]
        while snipers:
            s_bb = snipers & -snipers if snipers != BIT63 else snipers
            snipers ^= s_bb
            blockers = between[s_bb.bit_length() - 1] & occupied
            if blockers and not blockers & (blockers - 1):
                discoverers |= blockers
        return check_sq, discoverers & self.occ[us], ksq

    def gives_check(self, move, check_info=None):
        """Would this move check the opponent?  Exact for quiet moves, double pushes and
        plain captures; castling, en passant and promotions answer True (the caller plays
        them to find out).  ``check_info``: check_squares(), when the caller has it already."""
        # a flag above DOUBLE_PUSH other than CAPTURE; literal layout, as in make()
        if move >= 0x2000 and move >> 12 != 4:
            return True
        check_sq, discoverers, ksq = check_info or self.check_squares()
        fr = move & 63
        to = move >> 6 & 63
        return bool(check_sq[self.board[fr] & 7] >> to & 1
                    or (discoverers >> fr & 1 and not LINE[ksq][fr] >> to & 1))

    def _ep_capturable(self, ep):
        """Does a pawn of the side to move stand ready to capture en passant on ep?"""
        us = self.turn
        return bool(PAWN_ATTACKS[us ^ 1][ep] & self.bbs[us << 3 | PAWN])

    @for_plain_form
    def ep_is_legal(self):
        """Is there a legal en-passant capture (what FEN output shows, as python-chess does)?"""
        ep = self.ep
        if not ep:
            return False
        us = self.turn
        ksq = self.king_square(us)
        captured_sq = ep - 8 if us == WHITE else ep + 8
        occupied = self.occ[0] | self.occ[1]
        pawns = PAWN_ATTACKS[us ^ 1][ep] & self.bbs[us << 3 | PAWN]
        for fr in squares_of(pawns):
            occ_after = occupied ^ BB_SQUARES[fr] ^ BB_SQUARES[captured_sq] | BB_SQUARES[ep]
            attackers = self.attackers_to(ksq, occ_after) & self.occ[us ^ 1] & ~BB_SQUARES[captured_sq]
            if not attackers:
                return True
        return False

    # ------------------------------------------------------------------ draws
    def is_repetition(self, count=2, back=0):
        """Has the current position (or the one ``back`` plies ago) occurred ``count - 1``
        times before (within the 50-move window, since the last null move)?

        count=2 finds any earlier occurrence; count=3 is the threefold repetition of the
        rules.  (The search asks is_repetition_draw.)
        """
        stack = self.stack
        n = min(self.halfmove, len(stack))
        if n - back < 4:
            return False
        key = stack[-back][5] if back else self.key
        seen = 1
        for i in range(back + 1, n + 1):
            entry = stack[-i]
            if not entry[0]:
                return False        # a null move: nothing before it can repeat (Stockfish's pliesFromNull)
            if not (i - back) & 1 and i - back >= 4 and entry[5] == key:
                seen += 1
                if seen >= count:
                    return True
        return False

    def is_repetition_draw(self, ply):
        """Does the search score this position, ``ply`` plies below its root, as a draw by
        repetition?  Stockfish's rule: yes if it occurred before inside the search (fewer
        than ``ply`` plies back), or twice before anywhere (a threefold).  One occurrence
        before the root is no draw: the opponent need not repeat it again."""
        stack = self.stack
        n = min(self.halfmove, len(stack))
        if n < 4:
            return False            # the common case in a search: nothing to look at
        key = self.key
        seen = False
        for i in range(1, n + 1):
            entry = stack[-i]
            if not entry[0]:
                return False        # a null move: nothing before it can repeat
            if not i & 1 and i >= 4 and entry[5] == key:
                if i < ply or seen:
                    return True
                seen = True
        return False

    @for_plain_form
    def has_game_cycle(self, ply):
        """Can the side to move repeat an earlier position (one the search counts as a draw,
        see is_repetition_draw) with one move?  Stockfish's upcoming-repetition test: a draw seen
        a ply before it is on the board.

        Candidates are the positions an odd number of plies back, within the fifty-move
        window and since the last null move, where the opponent's pieces stood as they stand
        now (the XOR of the opponent's moves' key deltas is zero); the one move of ours
        between is found by its key delta in the cuckoo tables, and its path must be clear.
        A candidate at or before the search's root (``ply`` plies up) counts only if the
        move is ours and that position had occurred before as well (is_repetition_draw).
        """
        stack = self.stack
        end = min(self.halfmove, len(stack))
        if end < 3:
            return False
        key = self.key
        entry = stack[-1]
        if not entry[0]:
            return False        # the loop's first step asks the same of stack[-2], stack[-3]
        # the opponent's moves' net key change (the side-to-move toggles taken out)
        side = ZOBRIST_WHITE_TO_MOVE
        other = key ^ entry[5] ^ side
        for i in range(3, end + 1, 2):
            newer = stack[1 - i]
            entry = stack[-i]
            if not entry[0] or not newer[0]:
                return False
            other ^= newer[5] ^ entry[5] ^ side
            if other:
                continue
            move_key = key ^ entry[5]
            h = move_key & 0x1FFF
            if CUCKOO_KEY[h] != move_key:
                h = move_key >> 16 & 0x1FFF
                if CUCKOO_KEY[h] != move_key:
                    continue
            move = CUCKOO_MOVE[h]
            fr = move & SQ_MASK
            to = move >> TO_SHIFT
            if not BETWEEN[fr][to] & (self.occ[0] | self.occ[1]):
                if i < ply:
                    return True
                # at or before the root: the piece between the two squares must be ours
                # (the table holds each move one way only), and a threefold is needed: that
                # position occurred before too (Stockfish's ``repetition`` of that state)
                board = self.board
                if (board[fr] or board[to]) >> 3 == self.turn and self.is_repetition(2, i):
                    return True
        return False

    @for_plain_form
    def has_pieces(self):
        """Is there a knight, bishop, rook or queen on the board (not only kings and pawns)?"""
        bbs = self.bbs
        # or, not |: the first non-empty set answers (each | would make a new int)
        return bool(bbs[W_ROOK] or bbs[B_ROOK] or bbs[W_KNIGHT] or bbs[B_KNIGHT]
                    or bbs[W_BISHOP] or bbs[B_BISHOP] or bbs[W_QUEEN] or bbs[B_QUEEN])

    @for_plain_form
    def has_insufficient_material(self):
        """Neither side can possibly mate: K v K, K+minor v K, or bishops all on one colour."""
        bbs = self.bbs
        if (bbs[W_PAWN] or bbs[B_PAWN] or bbs[W_ROOK] or bbs[B_ROOK]       # as in has_pieces
                or bbs[W_QUEEN] or bbs[B_QUEEN]):
            return False
        knights = bbs[KNIGHT] | bbs[8 | KNIGHT]
        bishops = bbs[BISHOP] | bbs[8 | BISHOP]
        if not knights:
            return not (bishops & BB_LIGHT_SQUARES) or not (bishops & BB_DARK_SQUARES)
        return not bishops and popcount(knights) <= 1

    # ------------------------------------------------------------------ make / unmake
    # make, unmake and the two generators are traced on their own (engine.jit; the mark
    # matters only with PyPy's default inlining, where it gave 1.10x: measurements.md)
    @not_inlined
    @for_plain_form
    def make(self, move):
        """Play a (legal) move. Undo with unmake()."""
        board = self.board
        bbs = self.bbs
        occ = self.occ
        # The fields by their literal layout (SQ_MASK = 63, TO_SHIFT = 6, FLAG_SHIFT = 12,
        # FROM_TO_BITS = 4095): make and unmake run at every node, and looking the names
        # up as globals costs about 5% of their time.
        fr = move & 63
        to = move >> 6 & 63
        piece = board[fr]
        captured = board[to]
        castling = self.castling
        key = self.key
        ep = self.ep
        psq = self.psq
        halfmove = self.halfmove
        us = self.turn
        them = us ^ 1
        moved_bb = bbs[piece]
        ours_bb = occ[us]
        captured_bb = bbs[captured]
        theirs_bb = occ[them]
        # The undo entry: the move, the captured piece, the fields make changes, the two
        # squares and the four bitboards a plain move changes (bbs[0] is 0 for no capture),
        # which unmake puts back: cheaper than undoing the xors.  stack[-1][0] is the last
        # move (0 for a null move), stack[i][5] a key of the history.
        self.stack.append((move, captured, castling, ep, halfmove, key, psq,
                           fr, to, moved_bb, ours_bb, captured_bb, theirs_bb))
        self.turn = them
        if ep:
            key ^= ZOBRIST_EP_FILE[ep & 7]
            self.ep = 0
        if move < 0x2000 or move >> 12 == 4:
            # quiet, double push or plain capture (flags 0, 1, 4): the fast path, one lookup
            # per table
            from_to = move & 4095
            mask = FROM_TO_MASK[from_to]
            key ^= MOVE_KEY[piece][from_to]
            psq += MOVE_PSQ[piece][from_to]
            bbs[piece] = moved_bb ^ mask
            occ[us] = ours_bb ^ mask
            board[fr] = 0
            board[to] = piece
            if captured:
                to_bb = BB_SQUARES[to]
                bbs[captured] = captured_bb ^ to_bb
                occ[them] = theirs_bb ^ to_bb
                key ^= ZOBRIST_PIECE[captured][to]
                psq -= PSQ[captured][to]
                self.halfmove = 0
            elif piece & 7 == 1:            # PAWN
                self.halfmove = 0
                if move >= 0x1000:          # a double push
                    ep_sq = (fr + to) >> 1
                    if PAWN_ATTACKS[us][ep_sq] & bbs[them << 3 | 1]:
                        self.ep = ep_sq
                        key ^= ZOBRIST_EP_FILE[ep_sq & 7]
            else:
                self.halfmove = halfmove + 1
            if castling and mask & self.castle_touch:
                key = self._update_castling(castling, fr, to, key)
        else:
            key, psq = self._make_special(move, fr, to, move >> 12, piece, captured, us, key, psq)
            if castling:
                key = self._update_castling(castling, fr, to, key)
        self.key = key
        self.psq = psq

    def _update_castling(self, castling, fr, to, key):
        """Strip the rights a move from fr to to touches; returns the updated key."""
        cmask = self.castle_mask
        new_castling = castling & cmask[fr] & cmask[to]
        if new_castling != castling:
            # a set of rights hashes as the xor of its squares' keys: xor out the lost ones
            key ^= castling_key(castling ^ new_castling)
            self.castling = new_castling
        return key

    @for_plain_form
    def _make_special(self, move, fr, to, flag, piece, captured, us, key, psq):
        """Promotions, en passant and castling (the slow path of make); returns (key, psq)."""
        board = self.board
        bbs = self.bbs
        occ = self.occ
        them = us ^ 1
        key ^= ZOBRIST_WHITE_TO_MOVE
        if flag & PROMOTION:
            promoted = (us << 3) | ((flag & PROMO_PIECE_BITS) + KNIGHT)
            from_bb = BB_SQUARES[fr]
            to_bb = BB_SQUARES[to]
            key ^= ZOBRIST_PIECE[piece][fr] ^ ZOBRIST_PIECE[promoted][to]
            psq += PSQ[promoted][to] - PSQ[piece][fr]
            bbs[piece] ^= from_bb
            bbs[promoted] ^= to_bb
            occ[us] ^= from_bb | to_bb
            board[fr] = 0
            board[to] = promoted
            if captured:
                bbs[captured] ^= to_bb
                occ[them] ^= to_bb
                key ^= ZOBRIST_PIECE[captured][to]
                psq -= PSQ[captured][to]
            self.halfmove = 0
        elif flag == EP_CAPTURE:
            cap_sq = to - 8 if us == WHITE else to + 8
            captured_pawn = board[cap_sq]
            mask = BB_SQUARES[fr] | BB_SQUARES[to]
            cap_bb = BB_SQUARES[cap_sq]
            key ^= (ZOBRIST_PIECE[piece][fr] ^ ZOBRIST_PIECE[piece][to]
                    ^ ZOBRIST_PIECE[captured_pawn][cap_sq])
            psq += PSQ[piece][to] - PSQ[piece][fr] - PSQ[captured_pawn][cap_sq]
            bbs[piece] ^= mask
            occ[us] ^= mask
            bbs[captured_pawn] ^= cap_bb
            occ[them] ^= cap_bb
            board[fr] = 0
            board[to] = piece
            board[cap_sq] = 0
            self.halfmove = 0
        else:
            # castling: to is the rook's square (the undo entry's "captured" is that rook,
            # unmake ignores it); lift both pieces, then put them down, since in Chess960
            # the destinations may overlap the start squares
            rook = captured
            base = 56 if us == BLACK else 0
            kdest = base + _KING_DEST[flag]
            rdest = base + _ROOK_DEST[flag]
            zk = ZOBRIST_PIECE[piece]
            zr = ZOBRIST_PIECE[rook]
            key ^= zk[fr] ^ zk[kdest] ^ zr[to] ^ zr[rdest]
            psq += PSQ[piece][kdest] - PSQ[piece][fr] + PSQ[rook][rdest] - PSQ[rook][to]
            bbs[piece] ^= BB_SQUARES[fr] ^ BB_SQUARES[kdest]
            bbs[rook] ^= BB_SQUARES[to] ^ BB_SQUARES[rdest]
            occ[us] ^= BB_SQUARES[fr] ^ BB_SQUARES[kdest] ^ BB_SQUARES[to] ^ BB_SQUARES[rdest]
            board[fr] = 0
            board[to] = 0
            board[kdest] = piece
            board[rdest] = rook
            self.halfmove += 1
        return key, psq

    @not_inlined
    @for_plain_form
    def unmake(self):
        """Take back the last make() (a null move is taken back by unmake_null())."""
        (move, captured, self.castling, self.ep, self.halfmove, self.key, self.psq,
         fr, to, moved_bb, ours_bb, captured_bb, theirs_bb) = self.stack.pop()
        us = self.turn ^ 1
        self.turn = us
        board = self.board
        if move < 0x2000 or move >> 12 == 4:          # as in make()
            piece = board[to]
            self.bbs[piece] = moved_bb
            self.occ[us] = ours_bb
            board[fr] = piece
            board[to] = captured
            if captured:
                self.bbs[captured] = captured_bb
                self.occ[us ^ 1] = theirs_bb
            return
        flag = move >> 12
        bbs = self.bbs
        occ = self.occ
        them = us ^ 1
        if flag & PROMOTION:
            promoted = board[to]
            pawn = us << 3 | PAWN
            from_bb = BB_SQUARES[fr]
            to_bb = BB_SQUARES[to]
            bbs[promoted] ^= to_bb
            bbs[pawn] ^= from_bb
            occ[us] ^= from_bb | to_bb
            board[fr] = pawn
            board[to] = captured
            if captured:
                bbs[captured] ^= to_bb
                occ[them] ^= to_bb
        elif flag == EP_CAPTURE:
            piece = board[to]
            cap_sq = to - 8 if us == WHITE else to + 8
            captured_pawn = them << 3 | PAWN
            mask = BB_SQUARES[fr] | BB_SQUARES[to]
            bbs[piece] ^= mask
            occ[us] ^= mask
            bbs[captured_pawn] ^= BB_SQUARES[cap_sq]
            occ[them] ^= BB_SQUARES[cap_sq]
            board[fr] = piece
            board[to] = 0
            board[cap_sq] = captured_pawn
        else:
            base = 56 if us == BLACK else 0
            kdest = base + _KING_DEST[flag]
            rdest = base + _ROOK_DEST[flag]
            king = us << 3 | KING
            rook = us << 3 | ROOK
            bbs[king] ^= BB_SQUARES[fr] ^ BB_SQUARES[kdest]
            bbs[rook] ^= BB_SQUARES[to] ^ BB_SQUARES[rdest]
            occ[us] ^= BB_SQUARES[fr] ^ BB_SQUARES[kdest] ^ BB_SQUARES[to] ^ BB_SQUARES[rdest]
            board[kdest] = 0
            board[rdest] = 0
            board[fr] = king
            board[to] = rook

    @for_plain_form
    def make_null(self):
        """Pass the move (for null-move pruning; never while in check)."""
        ep = self.ep
        key = self.key
        self.stack.append((NULL_MOVE, 0, self.castling, ep, self.halfmove, key, self.psq,
                           0, 0, 0, 0, 0, 0))
        key ^= ZOBRIST_WHITE_TO_MOVE
        if ep:
            key ^= ZOBRIST_EP_FILE[ep & 7]
            self.ep = 0
        self.key = key
        self.halfmove += 1
        self.turn ^= 1

    def unmake_null(self):
        _, _, self.castling, self.ep, self.halfmove, self.key, self.psq = self.stack.pop()[:7]
        self.turn ^= 1

    @property
    def fullmove(self):
        """Fullmove number, derived from the ply count so make/unmake need not keep it."""
        return self.root_fullmove + (len(self.stack) + self.root_turn) // 2

    # ------------------------------------------------------------------ FEN out
    def castling_fen(self, shredder=False):
        """Castling field: X-FEN (KQkq, file letters only where ambiguous) or Shredder-FEN."""
        out = []
        for color in (WHITE, BLACK):
            back_rank = BB_RANK_1 if color == WHITE else BB_RANK_8
            ksq = self.king_square(color)
            rooks = self.bbs[color << 3 | ROOK] & back_rank
            for rsq in sorted(squares_of(self.castling & back_rank), reverse=True):
                rook_file = rsq & 7
                a_side = rook_file < (ksq & 7)
                others = [s & 7 for s in squares_of(rooks & ~BB_SQUARES[rsq])]
                if shredder or any((f < rook_file) == a_side for f in others):
                    ch = FILE_NAMES[rook_file]
                else:
                    ch = "q" if a_side else "k"
                out.append(ch.upper() if color == WHITE else ch)
        return "".join(out) or "-"

    def board_fen(self):
        return board_placement(self.board)

    def fen(self, shredder=False):
        """Six-field FEN; the en-passant square only when a legal capture exists."""
        ep = SQUARE_NAMES[self.ep] if self.ep_is_legal() else "-"
        return "%s %s %s %s %d %d" % (self.board_fen(), "wb"[self.turn],
                                      self.castling_fen(shredder), ep,
                                      self.halfmove, self.fullmove)

    def is_chess960_layout(self):
        """Does any castling right need Chess960 (king off the e-file or rook off a/h)?"""
        for rsq, entry in self.castle_info.items():
            if rsq & 7 not in (0, 7) or entry[1] & 7 != 4:
                return True
        return False

    def __str__(self):
        rows = []
        for rank in range(7, -1, -1):
            rows.append(" ".join(PIECE_SYMBOLS.get(self.board[rank * 8 + f], ".") for f in range(8)))
        return "\n".join(rows)

    def __repr__(self):
        return "Position(%r)" % self.fen()


# ---------------------------------------------------------------------- FEN parsing
# Counters below 10**9 are far beyond any game; checking the length first also keeps a
# long digit string from int(), which CPython refuses beyond 4300 digits (ValueError).
MAX_COUNTER_DIGITS = 9


def board_placement(board):
    """The piece-placement field of a FEN for a mailbox (64 pieces, a1 first, 0 empty)."""
    rows = []
    for rank in range(7, -1, -1):
        row = ""
        empty = 0
        for file in range(8):
            piece = board[rank * 8 + file]
            if piece:
                if empty:
                    row += str(empty)
                    empty = 0
                row += PIECE_SYMBOLS[piece]
            else:
                empty += 1
        if empty:
            row += str(empty)
        rows.append(row)
    return "/".join(rows)


def _parse_counter(text, name, minimum):
    if not text.isdigit():          # ASCII digits only: _parse_fen has rejected the rest
        raise FenError("%s %r is not a non-negative number" % (name, text))
    if len(text.lstrip("0")) > MAX_COUNTER_DIGITS:
        raise FenError("%s is too large (more than %d digits)" % (name, MAX_COUNTER_DIGITS))
    value = int(text)
    if value < minimum:
        raise FenError("%s must be at least %d, got %d" % (name, minimum, value))
    return value


def _parse_board(field):
    ranks = field.split("/")
    if len(ranks) != 8:
        raise FenError("board has %d ranks, expected 8" % len(ranks))
    board = [0] * 64
    for i, rank_text in enumerate(ranks):
        rank = 7 - i
        file = 0
        previous_digit = False
        for ch in rank_text:
            if ch.isdigit():
                if ch == "0" or previous_digit:
                    raise FenError("rank %d has a bad empty-square count %r" % (rank + 1, rank_text))
                file += int(ch)
                previous_digit = True
            elif ch in SYMBOL_PIECES:
                if file < 8:
                    board[rank * 8 + file] = SYMBOL_PIECES[ch]
                file += 1
                previous_digit = False
            else:
                raise FenError("bad piece letter %r in rank %d" % (ch, rank + 1))
        if file != 8:
            raise FenError("rank %d is %d squares wide, expected 8 (%r)" % (rank + 1, file, rank_text))
    return board


def _contradicted(repairs, message):
    """A FEN field the board contradicts: FenError, or with a ``repairs`` list the part is
    dropped and named there."""
    if repairs is None:
        raise FenError(message)
    repairs.append("%s: dropped" % message)


def _parse_castling(field, board, repairs=None):
    """Castling field -> bitboard of rook squares (KQkq, X-FEN file letters, Shredder-FEN).

    A right the board contradicts (no king on its back rank, no rook for it, given twice, a
    second right on one side of the king) raises FenError, or with a ``repairs`` list is
    dropped and named there."""
    if field == "-":
        return 0
    rights = 0
    for ch in field:
        color = WHITE if ch.isupper() else BLACK
        back = 0 if color == WHITE else 56
        king = color << 3 | KING
        rook = color << 3 | ROOK
        ksq = next((back + f for f in range(8) if board[back + f] == king), None)
        if ch.lower() not in "kqabcdefgh":
            raise FenError("bad castling letter %r" % ch)
        if ksq is None:
            _contradicted(repairs, "castling right %r but the %s king is not on its back rank"
                          % (ch, "white" if color == WHITE else "black"))
            continue
        kfile = ksq & 7
        low = ch.lower()
        if low == "k":
            files = [f for f in range(7, kfile, -1) if board[back + f] == rook]
        elif low == "q":
            files = [f for f in range(0, kfile) if board[back + f] == rook]
        else:
            f = FILE_NAMES.index(low)
            files = [f] if board[back + f] == rook and f != kfile else []
        if not files:
            _contradicted(repairs, "castling right %r but no rook in place for it" % ch)
            continue
        rsq = back + files[0]
        if rights & BB_SQUARES[rsq]:
            _contradicted(repairs, "castling right %r given twice" % ch)
            continue
        # one right on each side of the king at most (a later letter for a taken side is
        # the contradiction)
        if any((sq >> 3) == (rsq >> 3) and (sq > ksq) == (rsq > ksq)
               for sq in squares_of(rights)):
            _contradicted(repairs, "more than one castling right on one side of the king in %r"
                          " (%r)" % (field, ch))
            continue
        rights |= BB_SQUARES[rsq]
    return rights


def _parse_fen(fen, repairs=None):
    if not isinstance(fen, str):
        raise FenError("FEN must be text")
    # FEN is ASCII.  Checked first because str methods know all of Unicode: a superscript
    # two passes isdigit() but not int(), the Kelvin sign (U+212A) lower-cases to 'k' and
    # split() cuts at U+3000.
    if not fen.isascii():
        stray = next(ch for ch in fen if ord(ch) > 127)
        raise FenError("non-ASCII character U+%04X in FEN" % ord(stray))
    fields = fen.split()
    if len(fields) not in (4, 6):
        raise FenError("FEN has %d fields, expected 6 (or 4)" % len(fields))
    if len(fields) == 4:
        fields += ["0", "1"]
    board_field, side_field, castling_field, ep_field, half_field, full_field = fields
    board = _parse_board(board_field)
    for color, name in ((WHITE, "white"), (BLACK, "black")):
        kings = board.count(color << 3 | KING)
        if kings != 1:
            raise FenError("%s has %d kings, expected exactly 1" % (name, kings))
    for sq in list(range(8)) + list(range(56, 64)):
        if board[sq] & 7 == PAWN:
            raise FenError("pawn on the first or last rank (%s)" % SQUARE_NAMES[sq])
    if side_field not in ("w", "b"):
        raise FenError("side to move must be 'w' or 'b', got %r" % side_field)
    turn = WHITE if side_field == "w" else BLACK
    castling = _parse_castling(castling_field, board, repairs)
    halfmove = _parse_counter(half_field, "halfmove clock", 0)
    fullmove = _parse_counter(full_field, "fullmove number", 0) or 1

    bbs = [0] * 16
    for sq, piece in enumerate(board):
        if piece:
            bbs[piece] |= BB_SQUARES[sq]
    occ = [0, 0]
    for piece in range(16):
        occ[piece >> 3] |= bbs[piece]

    ep = 0
    if ep_field != "-":
        try:
            ep_sq = parse_square(ep_field)
        except ValueError:
            raise FenError("bad en-passant square %r" % ep_field) from None
        them = turn ^ 1
        rank_ok = (ep_sq >> 3) == (5 if turn == WHITE else 2)
        pushed = ep_sq - 8 if turn == WHITE else ep_sq + 8
        origin = ep_sq + 8 if turn == WHITE else ep_sq - 8
        if (not rank_ok or board[pushed] != (them << 3 | PAWN)
                or board[ep_sq] or board[origin]):
            _contradicted(repairs, "impossible en-passant square %s" % ep_field)
        elif PAWN_ATTACKS[them][ep_sq] & bbs[turn << 3 | PAWN]:
            ep = ep_sq

    # the side not to move must not be in check
    probe = Position.__new__(Position)
    probe.bbs, probe.occ = bbs, occ
    them = turn ^ 1
    if probe.is_attacked(probe.king_square(them), turn):
        raise FenError("the side not to move (%s) is in check" % ("white", "black")[them])
    return board, bbs, occ, turn, castling, ep, halfmove, fullmove
