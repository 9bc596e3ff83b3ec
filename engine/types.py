"""The shared vocabulary: colours, pieces, squares, scores and the move encoding.

Squares are 0..63 with a1 = 0, h1 = 7, a8 = 56, h8 = 63 (little-endian rank-file).
A coloured piece is one small int, ``colour << 3 | piece_type``, so ``piece & 7`` is
its type, ``piece >> 3`` its colour, and 0 means an empty square.
"""

WHITE, BLACK = 0, 1

PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6

W_PAWN, W_KNIGHT, W_BISHOP, W_ROOK, W_QUEEN, W_KING = 1, 2, 3, 4, 5, 6
B_PAWN, B_KNIGHT, B_BISHOP, B_ROOK, B_QUEEN, B_KING = 9, 10, 11, 12, 13, 14
PIECES = (W_PAWN, W_KNIGHT, W_BISHOP, W_ROOK, W_QUEEN, W_KING,
          B_PAWN, B_KNIGHT, B_BISHOP, B_ROOK, B_QUEEN, B_KING)


def make_piece(color, piece_type):
    return color << 3 | piece_type


PIECE_SYMBOLS = {W_PAWN: "P", W_KNIGHT: "N", W_BISHOP: "B", W_ROOK: "R", W_QUEEN: "Q", W_KING: "K",
                 B_PAWN: "p", B_KNIGHT: "n", B_BISHOP: "b", B_ROOK: "r", B_QUEEN: "q", B_KING: "k"}
SYMBOL_PIECES = {s: p for p, s in PIECE_SYMBOLS.items()}

FILE_NAMES = "abcdefgh"
RANK_NAMES = "12345678"
SQUARE_NAMES = [f + r for r in RANK_NAMES for f in FILE_NAMES]
A1, B1, C1, D1, E1, F1, G1, H1 = range(8)
A8, B8, C8, D8, E8, F8, G8, H8 = range(56, 64)


def square(file, rank):
    return rank << 3 | file


def parse_square(name):
    """'e4' -> 28; raises ValueError for anything else."""
    if len(name) != 2 or name[0] not in FILE_NAMES or name[1] not in RANK_NAMES:
        raise ValueError("bad square %r" % (name,))
    return square(FILE_NAMES.index(name[0]), RANK_NAMES.index(name[1]))


# --- Moves -------------------------------------------------------------------
# A move is one int:  from_sq | to_sq << 6 | flag << 12   (16 bits; TO_SHIFT, FLAG_SHIFT).
#   flag  0 quiet            1 double pawn push
#         2 castle, king side   3 castle, queen side  (to_sq is the castling ROOK's
#                                square: "king takes own rook", as in Stockfish)
#         4 capture          5 en passant (a capture)
#         8..11  promotion to N, B, R, Q
#         12..15 promotion to N, B, R, Q with capture
# so ``flag & CAPTURE`` and ``flag & PROMOTION`` are single tests, the promoted piece
# type is ``(flag & PROMO_PIECE_BITS) + KNIGHT``, and ordering scores live outside the
# move, letting moves compare with ``==``.  0 is the null move (a1a1 can never be a real
# move).  Hot code tests the shifted masks below on the whole move
# (``move & MOVE_CAPTURE``) and slices it with ``move & SQ_MASK`` (from) and
# ``move >> TO_SHIFT & SQ_MASK`` (to); make, unmake and generate_moves write those
# constants as literals, with a comment, since a global lookup there costs measurably.
# Other code uses the helper functions.
QUIET, DOUBLE_PUSH, CASTLE_KING, CASTLE_QUEEN, CAPTURE, EP_CAPTURE = 0, 1, 2, 3, 4, 5
PROMOTION = 8
PROMO_KNIGHT, PROMO_BISHOP, PROMO_ROOK, PROMO_QUEEN = 8, 9, 10, 11
PROMO_PIECE_BITS = 3            # flag & PROMO_PIECE_BITS: 0..3 for N, B, R, Q
CASTLE_FLAGS = (CASTLE_KING, CASTLE_QUEEN)
NULL_MOVE = 0

SQ_MASK = 63                    # one square's bits
TO_SHIFT = 6
FLAG_SHIFT = 12
FROM_TO_BITS = (1 << FLAG_SHIFT) - 1    # move & FROM_TO_BITS = from | to << 6: a 4096-entry index
MOVE_BITS = (1 << 16) - 1               # the whole move, as stored in the transposition table

MOVE_DOUBLE_PUSH = DOUBLE_PUSH << FLAG_SHIFT
MOVE_CAPTURE = CAPTURE << FLAG_SHIFT        # set for every capture, en passant included
MOVE_EP = EP_CAPTURE << FLAG_SHIFT
MOVE_PROMOTION = PROMOTION << FLAG_SHIFT
MOVE_CAPTURE_OR_PROMOTION = MOVE_CAPTURE | MOVE_PROMOTION


def encode_move(from_sq, to_sq, flag=QUIET):
    return from_sq | to_sq << TO_SHIFT | flag << FLAG_SHIFT


def move_from(move):
    return move & SQ_MASK


def move_to(move):
    """Destination square; for castling, the castling rook's square."""
    return move >> TO_SHIFT & SQ_MASK


def move_flag(move):
    return move >> FLAG_SHIFT


def is_capture(move):
    """Captures, en passant and capturing promotions."""
    return bool(move & MOVE_CAPTURE)


def is_promotion(move):
    return bool(move & MOVE_PROMOTION)


def is_castle(move):
    return move >> FLAG_SHIFT in CASTLE_FLAGS


def promotion_type(move):
    """Piece type a promotion makes (KNIGHT..QUEEN); 0 for other moves."""
    flag = move >> FLAG_SHIFT
    return (flag & PROMO_PIECE_BITS) + KNIGHT if flag & PROMOTION else 0


# --- Scores ------------------------------------------------------------------
VALUE_MATE = 32000            # mate at the root; mate in n plies scores VALUE_MATE - n
VALUE_INFINITE = 32001
VALUE_MATE_IN_MAX_PLY = VALUE_MATE - 1000   # beyond this a score is a mate score
VALUE_NONE = 32002
MAX_PLY = 128
MAX_DEPTH = MAX_PLY - 8       # the deepest iteration (`go depth`) and ply; the plies past it are the stacks' margin
