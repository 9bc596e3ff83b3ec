"""Evaluation: the fast path against the reference path (``evaluate_terms``) on thousands of
positions, and that a wrong fast-path table shows as a disagreement; colour and file
symmetry, incremental PSQ, PeSTO table orientation, known orderings and the A/B switches.

Both paths include the network where it is on (tests/test_nnue.py tests the network
itself); the orderings and weights are the terms', read through ``terms_score`` and
``evaluate_terms(pos, network=False)``."""

import random

import chess
import pytest

import ablations
import engine.evaluate as evaluate_module
import engine.position as position_module
import engine.weights as weights
from engine import nnue
from engine.evaluate import (evaluate, evaluate_terms, terms_score, game_phase, clear_cache,
                             TERM_NAMES,
                             DOUBLED, ISOLATED, BACKWARD, THREAT_BY_PAWN, THREAT_BY_MINOR,
                             THREAT_BY_ROOK, SHIELD_NEAR, SHIELD_FAR, TEMPO, SCALE_OCB_BISHOPS_ONLY,
                             SCALE_OCB_PER_PASSER)
from conftest import refresh_evaluation, refresh_methods
from engine.movegen import generate_moves
from engine.position import Position
from engine.psqt import PSQ_TERMS, PST_MG, PST_EG, MATERIAL_MG, MATERIAL_EG, pack, unpack
from engine.types import (WHITE, BLACK, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING, CAPTURE,
                          parse_square, make_piece)


def random_positions(n, seed, max_plies=120):
    """n FENs from seeded random playouts (varied phases, skipping finished games)."""
    rng = random.Random(seed)
    fens = []
    while len(fens) < n:
        board = chess.Board()
        stop = rng.randint(4, max_plies)
        for _ in range(stop):
            moves = list(board.legal_moves)
            if not moves or board.is_game_over():
                break
            # prefer captures now and then so that endgames show up too
            captures = [m for m in moves if board.is_capture(m)]
            board.push(rng.choice(captures if captures and rng.random() < 0.5 else moves))
        if not board.is_game_over():
            fens.append(board.fen())
    return fens


POSITIONS = random_positions(500, seed=20240611)


def colour_flipped(fen):
    return chess.Board(fen).mirror().fen()


def file_flipped(fen):
    return chess.Board(fen).transform(chess.flip_horizontal).fen()


# ------------------------------------------------------------------ PeSTO tables
def test_pesto_orientation_spot_values():
    """A few values read off the published tables (printed from a8), at our squares."""
    sq = parse_square
    assert PST_MG[PAWN][sq("e2")] == -15          # rank-2 row: -35 -1 -20 -23 -15 24 38 -22
    assert PST_MG[PAWN][sq("a7")] == 98           # rank-7 row starts 98, 134
    assert PST_EG[PAWN][sq("h7")] == 187
    assert PST_MG[KNIGHT][sq("a8")] == -167       # the first printed value
    assert PST_MG[KNIGHT][sq("a1")] == -105       # the first value of the last printed row
    assert PST_MG[KING][sq("g1")] == 24 and PST_MG[KING][sq("d1")] == -54
    assert PST_EG[KING][sq("h1")] == -43 and PST_EG[KING][sq("f6")] == 45
    assert PST_MG[QUEEN][sq("h8")] == 45 and PST_EG[ROOK][sq("h1")] == -20
    assert all(PST_MG[PAWN][s] == 0 == PST_EG[PAWN][s] for s in list(range(8)) + list(range(56, 64)))


def test_psq_black_is_negated_mirror():
    for pt in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING):
        for s in range(64):
            white = PSQ_TERMS[make_piece(WHITE, pt)][s]
            assert white == pack(MATERIAL_MG[pt] + PST_MG[pt][s], MATERIAL_EG[pt] + PST_EG[pt][s])
            assert PSQ_TERMS[make_piece(BLACK, pt)][s ^ 56] == -white


def test_pack_unpack_round_trip():
    for mg, eg in [(0, 0), (1, -1), (-1, 1), (-32000, 32000), (32000, -32000), (12345, -6789)]:
        assert unpack(pack(mg, eg)) == (mg, eg)
        assert unpack(pack(mg, eg) + pack(-3, 7)) == (mg - 3, eg + 7)


def test_start_position_psq_is_balanced():
    pos = Position()
    # with the network on, its accumulator's lanes sit below the packed score
    assert (nnue.split(pos.psq)[1] if nnue.ENABLED else pos.psq) == 0
    assert game_phase(pos) == 24


def test_incremental_psq_through_random_games():
    """pos.validate() recomputes psq (and everything else) from scratch after each make/unmake."""
    rng = random.Random(7)
    start = Position().psq
    for _ in range(30):
        pos = Position()
        played = 0
        for _ in range(rng.randint(20, 150)):
            moves = generate_moves(pos)
            if not moves:
                break
            pos.make(rng.choice(moves))
            played += 1
            pos.validate()
        for _ in range(played):
            pos.unmake()
            pos.validate()
        assert pos.psq == start


# ------------------------------------------------------------------ symmetry
@pytest.mark.parametrize("chunk", range(5))
def test_colour_mirror_symmetry(chunk):
    for fen in POSITIONS[chunk::5]:
        pos, mirror = Position(fen), Position(colour_flipped(fen))
        a, b = evaluate(pos), evaluate(mirror)
        assert a == b, "eval %d vs mirrored %d\n%s\n%s" % (a, b, fen, mirror.fen())
        ta, tb = evaluate_terms(pos), evaluate_terms(mirror)
        for name in TERM_NAMES:
            assert ta[name] == tuple(-x for x in tb[name]), "term %r: %s vs %s in %s" % (
                name, ta[name], tb[name], fen)


def test_file_flip_symmetry_of_positional_terms():
    """PeSTO's tables are not left-right symmetric, every other term must be."""
    checked = 0
    for fen in POSITIONS:
        if chess.Board(fen).castling_rights:
            continue
        ta = evaluate_terms(Position(fen))
        tb = evaluate_terms(Position(file_flipped(fen)))
        for name in TERM_NAMES[1:]:
            assert ta[name] == tb[name], "term %r: %s vs %s in %s" % (name, ta[name], tb[name], fen)
        checked += 1
    assert checked > 100


# ------------------------------------------------------------------ pawn endings
def test_rule_of_the_square_by_hand():
    sq = parse_square
    # a5 needs 3 moves, the king on e4 4 steps to a8: caught only with the move
    assert evaluate_module.passer_caught(sq("a5"), WHITE, sq("h1"), sq("e4"), True)
    assert not evaluate_module.passer_caught(sq("a5"), WHITE, sq("h1"), sq("e4"), False)
    # on its second rank a pawn may step twice: b2 counts 5 moves, like b3
    assert evaluate_module.passer_caught(sq("b2"), WHITE, sq("h1"), sq("g7"), False)
    assert not evaluate_module.passer_caught(sq("b2"), WHITE, sq("h1"), sq("h6"), False)
    assert evaluate_module.passer_caught(sq("b2"), WHITE, sq("h1"), sq("h6"), True)
    # black's d4 needs 3 moves to d1; its own king on d2 in the way makes it 4
    assert not evaluate_module.passer_caught(sq("d4"), BLACK, sq("a8"), sq("h5"), False)
    assert evaluate_module.passer_caught(sq("d4"), BLACK, sq("d2"), sq("h5"), False)
    # a king guarding the whole path (e7, e8) lets the pawn through, one guarding part does not
    assert not evaluate_module.passer_caught(sq("e6"), WHITE, sq("d7"), sq("g8"), True)
    assert evaluate_module.passer_caught(sq("e6"), WHITE, sq("d6"), sq("g8"), True)


# Measured: with every position where the lone king takes the pawn at once left out, the
# rule of the square and the bitbase disagree on 44 positions for each colour, all of the
# one kind asserted below (the pawn side to move, its pawn on its 2nd or 3rd rank: the rule
# says caught, but the own king, 4+ steps away, comes back in time to win).  44 is a bound,
# not a target: fewer is fine, more (or another kind) is a rule of the square gone wrong.
SQUARE_LATE_KING_WINS = 44


@pytest.mark.parametrize("color", [WHITE, BLACK])
def test_rule_of_the_square_agrees_with_the_kpk_bitbase(color):
    """With the pawn's own king far away in a corner (4+ steps from the pawn), a K+P v K
    position is a draw exactly when the enemy king catches the pawn, bar two kinds of
    position: the lone king, to move, stands next to the (unguarded) pawn and takes it at
    once (always a draw, whatever the square says: left out, and checked to be draws); and
    the pawn side, to move with its pawn still on its 2nd or 3rd rank, brings its king back
    in time, so the pawn is "caught" yet wins (at most SQUARE_LATE_KING_WINS of them).  The
    bitbase (solved by retrograde analysis, engine.kpk) is the independent oracle."""
    from engine.kpk import kpk_probe
    distance = evaluate_module.DISTANCE
    flip = 0 if color == WHITE else 56
    agree = total = takes_at_once = 0
    late_king_wins = []
    for own_king in ((0, 7) if color == WHITE else (56, 63)):
        for pawn in range(8, 56):
            if distance[own_king][pawn] < 4:
                continue
            for enemy_king in range(64):
                if enemy_king in (pawn, own_king) or distance[enemy_king][own_king] <= 1:
                    continue
                for strong_to_move in (True, False):
                    board = chess.Board(None)
                    board.set_piece_at(own_king, chess.Piece(chess.KING, color == WHITE))
                    board.set_piece_at(pawn, chess.Piece(chess.PAWN, color == WHITE))
                    board.set_piece_at(enemy_king, chess.Piece(chess.KING, color != WHITE))
                    board.turn = strong_to_move == (color == WHITE)
                    if not board.is_valid():
                        continue
                    won = kpk_probe(own_king, pawn, enemy_king, strong_to_move, color)
                    if not strong_to_move and distance[enemy_king][pawn] == 1:
                        assert not won, board.fen()     # the pawn is taken: a draw
                        takes_at_once += 1
                        continue
                    caught = evaluate_module.passer_caught(pawn, color, own_king, enemy_king,
                                                           not strong_to_move)
                    total += 1
                    if won != caught:
                        agree += 1
                    else:
                        late_king_wins.append(board.fen())
                        assert won and strong_to_move and (pawn ^ flip) >> 3 in (1, 2), \
                            (board.fen(), won, caught)
    assert total > 7500 and takes_at_once > 400, (total, takes_at_once)
    assert len(late_king_wins) <= SQUARE_LATE_KING_WINS, late_king_wins
    assert agree == total - len(late_king_wins)


def test_caught_passers_are_scored_the_same_on_both_paths():
    """Random pawn endings of two to six pawns: evaluate() equals the reference, and the
    caught-passer row is live in many of them (and zero wherever pieces remain)."""
    import pawn_ending_starts
    rng = random.Random(7)
    live = checked = 0
    while checked < 300:
        board = pawn_ending_starts.random_ending(rng)
        if board is None or len(board.pieces(chess.PAWN, chess.WHITE)) + len(board.pieces(chess.PAWN, chess.BLACK)) < 2:
            continue
        pos = Position(board.fen())
        terms = evaluate_terms(pos)
        sign = 1 if pos.turn == WHITE else -1
        assert evaluate(pos) == sign * terms["total"], board.fen()
        live += terms["passed: caught"] != (0, 0)
        checked += 1
    assert live >= 60, live
    for fen in POSITIONS:
        if game_phase(Position(fen)):
            assert evaluate_terms(Position(fen))["passed: caught"] == (0, 0), fen


# ------------------------------------------------------------------ two paths agree
def game_positions(games, seed):
    """Every position (a live Position, its psq kept incrementally) along seeded random
    games, captures preferred now and then so that endgames appear."""
    rng = random.Random(seed)
    for _ in range(games):
        pos = Position()
        for _ in range(rng.randint(20, 200)):
            moves = generate_moves(pos)
            if not moves or pos.halfmove >= 100:
                break
            captures = [m for m in moves if m >> 12 & CAPTURE]
            pos.make(rng.choice(captures if captures and rng.random() < 0.3 else moves))
            yield pos


def placed_positions(n, seed):
    """n legal positions with pieces dropped on random squares: few-piece endings (bare
    kings, KBN, opposite bishops, promoted pieces) that games reach rarely."""
    rng = random.Random(seed)
    kinds = "PPPPNNBBRRQ"
    made = 0
    while made < n:
        board = chess.Board(None)
        board.set_piece_at(rng.randrange(64), chess.Piece(chess.KING, chess.WHITE))
        board.set_piece_at(rng.choice([s for s in range(64) if board.piece_at(s) is None]),
                           chess.Piece(chess.KING, chess.BLACK))
        for _ in range(rng.choice((0, 1, 2, 3, 4, 6, 10, 16))):
            sq = rng.randrange(64)
            if board.piece_at(sq) is None:
                symbol = rng.choice(kinds)
                board.set_piece_at(sq, chess.Piece.from_symbol(symbol if rng.random() < 0.5
                                                                else symbol.lower()))
        board.turn = rng.random() < 0.5
        if board.is_valid():
            made += 1
            yield Position(board.fen())


def assert_paths_agree(pos):
    terms = evaluate_terms(pos)
    expected = terms["total"] if pos.turn == WHITE else -terms["total"]
    table = "\n".join("  %-22s %s" % (name, value) for name, value in terms.items())
    assert evaluate(pos) == expected, "fast %d, reference %d in %s\n%s" % (
        evaluate(pos), expected, pos.fen(), table)


@pytest.mark.parametrize("source", ["games", "placements"])
def test_fast_path_matches_reference(source):
    clear_cache()
    positions = game_positions(40, seed=5) if source == "games" else placed_positions(2000, seed=6)
    checked = 0
    for pos in positions:
        assert_paths_agree(pos)
        checked += 1
    assert checked >= 2000


def test_fast_path_caches_return_the_same_value():
    clear_cache()
    for fen in POSITIONS:
        pos = Position(fen)
        first = evaluate(pos)
        evaluate_module.clear_evaluations()
        assert evaluate(pos) == first, "second call (pawn cache hit) differs: " + fen
        assert evaluate(pos) == first, "third call (eval cache hit) differs: " + fen


def test_king_moves_over_cached_pawns_match_reference():
    """Shield and passer-distance terms are cached per pawn structure by king squares:
    walking the kings around fixed pawns (passers on both sides, kings near and far) must
    keep agreeing with the reference after every king move, and after the cache is warm."""
    fen = "1k6/pp6/8/3P4/4p3/8/6PP/6K1 w - - 0 1"
    walked = 0
    for sweep in range(2):           # the second sweep finds every entry cached
        if sweep == 0:
            clear_cache()
        pos = Position(fen)
        rng = random.Random(9 + sweep)
        for _ in range(60):
            king_moves = [m for m in generate_moves(pos) if pos.board[m & 63] & 7 == KING
                          and not m >> 12 & CAPTURE]
            if not king_moves:
                break
            pos.make(rng.choice(king_moves))
            evaluate_module.clear_evaluations()
            assert_paths_agree(pos)
            walked += 1
    assert walked >= 100


def test_fast_path_matches_reference_with_every_weight_switched_on():
    """Tempo and rook files at other weights than the fitted ones, odd percentages (rounding
    per piece), the king attack without a queen and the few-pawns scale on, on both paths."""
    fens = POSITIONS[:250] + _ABLATION_EXTRA
    results = _probe(fens, "TEMPO=15:5,ROOK_OPEN_FILE=25:10,ROOK_SEMI_OPEN_FILE=12:6,"
                           "MOBILITY_PERCENT=37,KING_ATTACK_PERCENT=153,KING_ATTACK_NEEDS_QUEEN=0,"
                           "OUTPOST_KNIGHT=31:17,OUTPOST_BISHOP=13:7,MINOR_BEHIND_PAWN=13:3,"
                           "PAWNLESS_FLANK=-17:-41,"
                           "PAWN_STORM=0:-7:-31:-23:-11:5:3:0,SCALE_FEW_PAWNS=36")
    for fen, r in zip(fens, results):
        assert r["eval"] == r["total"], fen
    assert any(r["rows"]["king storm"] != [0, 0] for r in results)
    assert any(r["rows"]["rook files"] != [0, 0] for r in results)
    assert any(r["rows"]["tempo"] != [0, 0] for r in results)
    assert any(r["rows"]["outposts"] != [0, 0] for r in results)
    assert any(r["rows"]["minor behind pawn"] != [0, 0] for r in results)
    assert any(r["rows"]["king: pawnless flank"] != [0, 0] for r in results)
    # the few-pawns rule (36 + 7 per pawn of the side ahead) scales where no other rule can
    assert any(r["scale"] in (43, 50) for r in results)


def test_reference_attacks_match_python_chess():
    """The reference's own steps and ray walks, against python-chess, for every piece."""
    for fen in POSITIONS[:200]:
        board, pos = chess.Board(fen), Position(fen)
        for sq, piece in board.piece_map().items():
            assert evaluate_module._attacked_by(pos.board, sq) == set(board.attacks(sq)), (
                "%s on %s in %s" % (piece.symbol(), chess.square_name(sq), fen))


def _without_king_square(zone_table):
    return [bb & ~(1 << sq) for sq, bb in enumerate(zone_table)]


def _black_pst_unmirrored(psq):
    table = [row[:] for row in psq]
    for pt in (PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING):
        table[make_piece(BLACK, pt)] = [-v for v in psq[make_piece(WHITE, pt)]]
    return table


# (module, table name, a plausible bug in it)
WRONG_TABLES = {
    "king zone without the king's square": (
        evaluate_module, "KING_ZONE", lambda t: _without_king_square(t)),
    "king distance as Manhattan": (
        evaluate_module, "DISTANCE", lambda t: evaluate_module.MANHATTAN),
    "centre distance off by a file": (
        evaluate_module, "CENTRE_MANHATTAN", lambda t: [t[sq ^ 1] for sq in range(64)]),
    "black's pawn shield read from white's side": (
        evaluate_module, "SHIELD_NEAR_BB", lambda t: [t[WHITE], t[WHITE]]),
    "knight mobility off by one square": (
        evaluate_module, "MOB_KNIGHT", lambda t: t[1:] + t[-1:]),
    "passed-pawn bonus by absolute rank": (
        evaluate_module, "PASSED_PACKED", lambda t: tuple(reversed(t))),
    "black's piece-square tables not mirrored": (
        position_module, "PSQ", _black_pst_unmirrored),
    "connected-pawn bonus by absolute rank": (
        evaluate_module, "CONNECTED_PACKED", lambda t: tuple(reversed(t))),
    "a pawn's threat weighed as a minor's": (
        evaluate_module, "THREAT_PAWN_PACKED", lambda v: evaluate_module.THREAT_MINOR_PACKED),
}


@pytest.mark.parametrize("bug", sorted(WRONG_TABLES))
def test_reference_catches_a_wrong_fast_path_table(bug, monkeypatch):
    """The reference shares no table with the fast path, so breaking one of the fast
    path's shows up as a disagreement."""
    module, name, corrupt = WRONG_TABLES[bug]
    monkeypatch.setattr(module, name, corrupt(getattr(module, name)))
    refresh_evaluation(monkeypatch)
    refresh_methods(monkeypatch, Position)
    clear_cache()
    try:
        fens = POSITIONS + [pos.fen() for pos in placed_positions(300, seed=7)]
        differ = 0
        for fen in fens:
            pos = Position(fen)
            terms = evaluate_terms(pos)
            differ += evaluate(pos) != (terms["total"] if pos.turn == WHITE else -terms["total"])
        assert differ > 0, "no position told the wrong %s from the right one" % name
    finally:
        clear_cache()


def test_terms_sum_to_blended_score():
    unscaled = scaled = 0               # positions that reached the scale checks
    for fen in POSITIONS[:100]:
        pos = Position(fen)
        t = evaluate_terms(pos, network=False)
        # the complexity's row (COMPLEXITY_ON) is a step on the sum, so it sums too
        mg = sum(t[n][0] for n in TERM_NAMES + ("complexity",) if n in t)
        eg = sum(t[n][1] for n in TERM_NAMES + ("complexity",) if n in t)
        phase = t["phase"]
        sign = 1 if pos.turn == WHITE else -1
        assert sign * t["blended"] == (sign * mg * phase + sign * eg * (24 - phase)) // 24
        if "known result" in t:
            continue                    # the endgame rules' exact score replaces the sum
        if t["scale"] == 64:
            assert t["total"] == t["blended"]
            unscaled += 1
        else:
            assert abs(t["total"]) <= abs(t["blended"])
            scaled += 1
    # measured 95 + 4 of the 100 (one is a known result): both checks really ran
    assert unscaled + scaled >= 90 and scaled >= 1, (unscaled, scaled)


def test_known_endgames_replace_the_evaluation(monkeypatch):
    """A KPK draw scores 0 and a KPK win clearly more than the pawn, on both paths; with
    the rules off (ENDGAME_MAX_PHASE=-1) the same positions get the ordinary sum."""
    import engine.evaluate as ev
    draw = Position("8/4k3/8/4K3/4P3/8/8/8 w - - 0 1")        # defender in front: a draw
    win = Position("8/8/8/4k3/8/8/4PK2/8 b - - 0 1".replace("4k3", "k7"))   # king far away
    try:
        clear_cache()
        assert evaluate(draw) == 0 and evaluate_terms(draw)["total"] == 0
        assert evaluate_terms(draw)["known result"] == "exact"
        assert evaluate(win) < -300          # black to move, white wins
        assert evaluate_terms(win)["total"] == -evaluate(win)
        monkeypatch.setattr(ev, "ENDGAME_MAX_PHASE", -1)     # undone after the test
        refresh_evaluation(monkeypatch)
        clear_cache()
        assert evaluate(draw) > 50 and "known result" not in evaluate_terms(draw)
    finally:
        monkeypatch.undo()
        clear_cache()       # no score cached with the rules off outlives the test


def test_phase_counts_non_pawn_material():
    assert game_phase(Position("4k3/8/8/8/8/8/8/4K3 w - - 0 1")) == 0
    assert game_phase(Position("4k3/8/8/8/8/8/8/R3K2Q w - - 0 1")) == 6
    assert game_phase(Position("3qk3/8/8/8/8/8/8/3QK3 w - - 0 1")) == 8
    assert game_phase(Position("qqqqkqqq/8/8/8/8/8/8/QQQQKQQQ w - - 0 1")) == 24


# ------------------------------------------------------------------ known orderings
def ev(fen):
    return terms_score(Position(fen))


def test_side_to_move_view():
    fen = "4k3/8/8/8/8/8/8/3QK3 %s - - 0 1"
    assert ev(fen % "w") > 500 and ev(fen % "b") < -500


def test_extra_queen_is_decisive():
    equal = ev("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    queen_up = ev("r1b1kbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    assert queen_up > equal + 700
    assert abs(equal) < 100


def test_passed_pawn_on_seventh_beats_third():
    seventh = ev("6k1/1P6/8/8/8/8/8/6K1 w - - 0 1")
    third = ev("6k1/8/8/8/8/1P6/8/6K1 w - - 0 1")
    assert seventh > third + 50


def test_passed_pawn_needs_a_free_path():
    t_passed = evaluate_terms(Position("6k1/5ppp/8/3P4/8/8/5PPP/6K1 w - - 0 1"))["pawns: passed"]
    t_blocked = evaluate_terms(Position("6k1/3p1ppp/8/3P4/8/8/5PPP/6K1 w - - 0 1"))["pawns: passed"]
    assert t_passed[1] > 0 and t_blocked == (0, 0)
    # a pawn on the adjacent file ahead stops it too, one beside it does not (that one is
    # passed too, but a rank less advanced)
    assert evaluate_terms(Position("6k1/2p5/8/3P4/8/8/8/6K1 w - - 0 1"))["pawns: passed"] == (0, 0)
    assert evaluate_terms(Position("6k1/8/8/2pP4/8/8/8/6K1 w - - 0 1"))["pawns: passed"][1] > 0


def test_pawn_structure_penalties_detected():
    t = evaluate_terms(Position("4k3/8/8/8/8/2P5/2P3P1/4K3 w - - 0 1"))
    # c-pawns doubled and isolated (both), g-pawn isolated
    assert t["pawns: doubled"][1] < 0
    assert t["pawns: isolated"][1] < 0
    assert t["pawns: doubled"] == DOUBLED and t["pawns: isolated"] == tuple(3 * x for x in ISOLATED)
    healthy = evaluate_terms(Position("4k3/8/8/8/8/8/2PPP3/4K3 w - - 0 1"))
    assert healthy["pawns: isolated"] == (0, 0) and healthy["pawns: doubled"] == (0, 0)


def test_backward_pawn():
    t = evaluate_terms(Position("4k3/8/8/4p3/2P5/3P4/8/4K3 w - - 0 1"))
    # d3: c-pawn is ahead of it, no own pawn beside or behind on c/e, d4 hit by e5: backward
    assert t["pawns: backward"] == BACKWARD
    t = evaluate_terms(Position("4k3/8/8/4p3/8/2PP4/8/4K3 w - - 0 1"))
    assert t["pawns: backward"] == (0, 0)           # c3 stands beside d3


def test_connected_pawns_by_rank():
    """A pawn counts as connected when an own pawn defends it or stands beside it on its
    rank; each such pawn adds its own rank's weight, and a lone or doubled pawn adds none."""
    mg, eg = evaluate_module.CONNECTED_MG, evaluate_module.CONNECTED_EG
    # white: c4-d4 a phalanx (both rank 4), e3 defends d4 (counted once) and is itself alone;
    # black: b6 defended by c7 (rank 3 for black), c7 connected to nothing
    t = evaluate_terms(Position("4k3/2p5/1p6/8/2PP4/4P3/8/4K3 w - - 0 1"))
    white = (2 * mg[3], 2 * eg[3])
    black = (mg[2], eg[2])
    assert t["pawns: connected"] == (white[0] - black[0], white[1] - black[1])
    # pawns on the same file or two files apart are not connected
    t = evaluate_terms(Position("4k3/8/8/8/2P1P3/2P5/8/4K3 w - - 0 1"))
    assert t["pawns: connected"] == (0, 0)


def test_threats_count_each_piece_a_lesser_one_attacks():
    # white: the e4 pawn hits the d5 knight and the f5 rook; the c3 knight hits the b5 rook
    # (and the d5 knight, which a minor does not threaten); the g2 bishop hits no piece; the
    # a1 rook hits the a7 queen.  black: its knight hits only the c3 knight, its rooks nothing.
    t = evaluate_terms(Position("4k3/q7/8/1r1n1r2/4P3/2N5/6B1/R3K3 w - - 0 1"))
    pawn, minor, rook = THREAT_BY_PAWN, THREAT_BY_MINOR, THREAT_BY_ROOK
    expected = tuple(2 * pawn[i] + minor[i] + rook[i] for i in (0, 1))
    assert t["threats"] == expected
    # a queen attacked by a pawn and a knight counts once for each kind of attacker
    t = evaluate_terms(Position("4k3/8/8/3q4/4P3/2N5/8/4K3 b - - 0 1"))
    assert t["threats"] == tuple(pawn[i] + minor[i] for i in (0, 1))
    assert evaluate_terms(Position("4k3/8/8/3q4/8/8/8/4K3 w - - 0 1"))["threats"] == (0, 0)


def test_bishop_pair():
    pair = evaluate_terms(Position("4k3/pppppppp/8/8/8/8/PPPPPPPP/2B1KB2 w - - 0 1"))
    assert pair["bishop pair"][0] > 0


ROOK_FILE_FENS = ["4k3/ppp1pppp/8/8/8/8/PPP1PPPP/3RK3 w - - 0 1",     # open d-file
                  "4k3/pppppppp/8/8/8/8/PPP1PPPP/3RK3 w - - 0 1",     # semi-open
                  "4k3/pppppppp/8/8/8/8/PPPPPPPP/3RK3 w - - 0 1"]     # closed


def test_rook_files_are_weighted_as_set_and_ordered():
    """The rook-file bonuses give exactly their weights on both evaluation paths (an open
    file more than a half-open one when hand-set), and nothing at 0."""
    off = _probe(ROOK_FILE_FENS, "ROOK_OPEN_FILE=0:0,ROOK_SEMI_OPEN_FILE=0:0")
    assert all(r["rows"]["rook files"] == [0, 0] and r["eval"] == r["total"] for r in off)
    on = _probe(ROOK_FILE_FENS, "ROOK_OPEN_FILE=25:10,ROOK_SEMI_OPEN_FILE=12:6")
    assert [r["rows"]["rook files"] for r in on] == [[25, 10], [12, 6], [0, 0]]
    assert all(r["eval"] == r["total"] for r in on)


OUTPOST_FENS = [   # (FEN, white-view outpost row at knight 30:20, bishop 12:8)
    ("4k3/pp4pp/8/3N4/4P3/8/PP4PP/4K3 w - - 0 1", [30, 20]),    # d5, e4 defends it
    ("4k3/pp2p1pp/8/3N4/4P3/8/PP4PP/4K3 w - - 0 1", [0, 0]),    # ... but e7-e6 would hit it
    ("4k3/pp4pp/8/3N4/8/8/PP4PP/4K3 w - - 0 1", [0, 0]),        # no pawn defends it
    ("7k/pp4pp/3N4/4P3/8/8/PP4PP/4K3 w - - 0 1", [30, 20]),     # d6, the 6th rank
    ("4k3/pp1N2pp/4P3/8/8/8/PP4PP/4K3 w - - 0 1", [0, 0]),      # d7, the 7th
    ("4k3/pp4pp/8/8/8/3B4/PP2P1PP/4K3 w - - 0 1", [0, 0]),      # d3, the 3rd
    ("4k3/pp4p1/8/6B1/5P2/8/PP4P1/4K3 w - - 0 1", [12, 8]),     # g5; g7 is not beside it
    ("4k3/pp4pp/8/4p3/3b4/8/PP4PP/4K3 b - - 0 1", [-12, -8]),   # black's d4 (its 5th), e5
    ("4k3/pp4pp/8/4p3/3b4/8/PPP3PP/4K3 b - - 0 1", [0, 0]),     # ... but c2-c3 would hit it
    ("4k3/pp4pp/8/4p3/3n4/8/PP4PP/4K3 w - - 0 1", [-30, -20]),  # black's knight
]


def assert_term_as_defined(row, fens_and_rows, off, on):
    """The evaluate_terms row of each FEN is (0, 0) with the weights ``off`` and the given
    value with the weights ``on`` (BASILISK_EVAL settings); both paths agree either way,
    and the term changes some evaluation."""
    fens = [fen for fen, _ in fens_and_rows]
    without = _probe(fens, off)
    assert all(r["rows"][row] == [0, 0] and r["eval"] == r["total"] for r in without)
    weighted = _probe(fens, on)
    assert [r["rows"][row] for r in weighted] == [value for _, value in fens_and_rows]
    assert all(r["eval"] == r["total"] for r in weighted)
    assert any(r["eval"] != r0["eval"] for r, r0 in zip(weighted, without))


def test_outposts_are_weighted_as_defined():
    """Knights and bishops on relative ranks 4-6 that an own pawn defends and no enemy pawn
    can ever attack, on both paths; nothing at weight 0."""
    assert_term_as_defined("outposts", OUTPOST_FENS, "OUTPOST_KNIGHT=0:0,OUTPOST_BISHOP=0:0",
                           "OUTPOST_KNIGHT=30:20,OUTPOST_BISHOP=12:8")


MINOR_BEHIND_FENS = [   # (FEN, white-view row at MINOR_BEHIND_PAWN 12:1)
    # 1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. d3 d6: Nb1, Bc1 and Ng8, Bc8 behind pawns, two each
    ("r1bqk1nr/ppp2ppp/2np4/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 0 5", [0, 0]),
    ("4k3/8/8/8/8/8/3P4/3B2K1 w - - 0 1", [12, 1]),            # Bd1 behind its own d2
    ("4k3/8/8/8/3p4/3N4/8/6K1 w - - 0 1", [12, 1]),            # Nd3 behind black's d4
    ("4k3/8/8/8/3N4/3p4/8/6K1 w - - 0 1", [0, 0]),             # the pawn behind the knight
    ("4k3/3n4/3p4/8/8/8/2PP4/2NB2K1 w - - 0 1", [24 - 12, 2 - 1]),  # two of white's, one of black's
    ("1n2k3/1P6/8/8/8/8/8/6K1 b - - 0 1", [-12, -1]),          # black's b8, white's pawn on b7
    ("4k3/8/8/8/8/8/5PPP/5BNK w - - 0 1", [24, 2]),            # f1 and g1 on the first rank
]


def test_minor_behind_pawn_is_weighted_as_defined():
    """Knights and bishops with a pawn of either side on the square in front of them (from
    their own side's view), on both paths; nothing at weight 0."""
    assert_term_as_defined("minor behind pawn", MINOR_BEHIND_FENS, "MINOR_BEHIND_PAWN=0:0",
                           "MINOR_BEHIND_PAWN=12:1")


PAWNLESS_FLANK_FENS = [   # (FEN, white-view row at PAWNLESS_FLANK -15:-40)
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", [0, 0]),
    ("6k1/5ppp/8/8/8/8/PP6/K5R1 w - - 0 1", [0, 0]),        # a1 over a2-b2, g8 over f7-h7
    ("2k5/8/8/8/8/8/PP6/R5K1 w - - 0 1", [-15, -40]),       # g1: nothing on e-h (c8 has a-b)
    ("k7/p7/8/8/8/4P3/8/R6K w - - 0 1", [-15, -40]),        # h1's flank is f-h: e3 is off it
    ("k7/p7/8/8/8/4P3/8/R5K1 w - - 0 1", [0, 0]),           # g1's is e-h: e3 counts
    ("k7/p7/8/8/8/4p3/8/R5K1 w - - 0 1", [0, 0]),           # ... whoever's pawn it is
    ("3k4/8/8/8/8/8/PP4PP/1K1R4 b - - 0 1", [15, 40]),      # d8's flank c-f is empty
    ("6k1/8/8/8/8/8/PP6/R5K1 w - - 0 1", [0, 0]),           # both kings on an empty flank
    ("2k5/8/8/8/8/8/PP6/6K1 w - - 0 1", [0, 0]),            # a pawn ending: not counted
]


def test_pawnless_flank_is_weighted_as_defined():
    """A king with no pawn of either side on its flank, on both paths, not in pawn
    endings; nothing at weight 0."""
    assert_term_as_defined("king: pawnless flank", PAWNLESS_FLANK_FENS, "PAWNLESS_FLANK=0:0",
                           "PAWNLESS_FLANK=-15:-40")


KING_PAWN_FENS = [   # (FEN, white-view row at KING_PAWN_DISTANCE -10: endgame only)
    # white king e1, nearest own pawn a2 (4 steps); black king e8, nearest h7 (3 steps)
    ("4k3/7p/8/8/8/8/P7/R3K3 w - - 0 1", [0, -10 * 4 + 10 * 3]),
    ("4k3/7p/8/8/8/8/P7/R3K3 b - - 0 1", [0, -10]),           # the same for either side to move
    ("4k3/8/8/8/8/8/P7/R3K3 w - - 0 1", [0, -40]),            # black has no pawn: no term
    ("4k3/4p3/8/8/8/8/4P3/R3K3 w - - 0 1", [0, 0]),           # both kings beside a pawn
    ("r3k3/8/8/8/8/3P4/8/4K3 w - - 0 1", [0, -20]),           # two steps: e1-d3
    ("4k3/7p/8/8/8/8/P7/4K3 w - - 0 1", [0, 0]),              # a pawn ending: not counted
]


def test_king_pawn_distance_is_weighted_as_defined():
    """Each king's distance (king moves) to its nearest own pawn, endgame half, not in pawn
    endings, on both paths; nothing at weight 0."""
    assert_term_as_defined("king: pawn distance", KING_PAWN_FENS, "KING_PAWN_DISTANCE=0",
                           "KING_PAWN_DISTANCE=-10")


STORM_FENS = [   # (FEN, white-view storm row at PAWN_STORM 0:1:2:4:8:16:32:0)
    ("6k1/8/8/8/6p1/8/5PPP/6K1 w - - 0 1", [4 - 3 * 32, 0]),  # g4 on white; f2, g2, h2 on black
    ("6k1/8/8/8/8/6p1/6P1/6K1 w - - 0 1", [0, 0]),           # g3 against g2: blocked, both ways
    ("4k3/8/8/8/3p4/8/8/4K3 w - - 0 1", [4, 0]),             # d4 beside a king on e1
    ("4k3/8/8/8/8/2p5/8/K7 w - - 0 1", [2, 0]),              # a king on a1 looks at a-c
    ("4k3/8/8/8/8/8/5p2/K7 w - - 0 1", [0, 0]),              # ... not at f
    ("6k1/8/8/7p/8/6K1/6p1/8 w - - 0 1", [8, 0]),            # g2 is behind the king, h5 not
    ("6k1/8/8/6P1/8/8/6P1/6K1 w - - 0 1", [-4, 0]),          # black's storm: g5, the nearer
    ("6k1/8/8/6p1/6P1/8/6P1/6K1 w - - 0 1", [8, 0]),         # the own pawn nearest the king
                                                             # (g2) decides blocking: g5 counts
    # with rooks, so that a middlegame weight moves the score: f7, g4 (nearer than g7) and h7
    # storm white's king, f2, g2 and h2 black's (pawns at home stand on rank 6 from the other side)
    ("r5k1/5ppp/8/8/6p1/8/5PPP/R5K1 w - - 0 1", [4 + 2 * 32 - 3 * 32, 0]),
]


def test_pawn_storm_is_weighted_as_defined():
    """Per file around each king (its file taken as b-g), the enemy pawn nearest the king on
    or ahead of its rank, by relative rank, unless blocked by the own pawn nearest the king;
    on both paths, middlegame only; nothing at the default weight 0."""
    assert_term_as_defined("king storm", STORM_FENS, "", "PAWN_STORM=0:1:2:4:8:16:32:0")


def test_mobility_tables_cover_every_count():
    """A table per piece type with one entry per possible number of safe squares."""
    most = {KNIGHT: 8, BISHOP: 13, ROOK: 14, QUEEN: 27}
    for pt, n in most.items():
        assert len(weights.MOBILITY_MG[pt]) == len(weights.MOBILITY_EG[pt]) == n + 1
    # the fast path reads them through its packed tables
    assert len(evaluate_module.MOB_QUEEN) == 28


def test_mobility_prefers_active_bishop():
    active = evaluate_terms(Position("4k3/8/8/8/3B4/8/8/4K3 w - - 0 1"))["mobility"]
    buried = evaluate_terms(Position("4k3/8/8/8/8/P1P5/1B6/4K3 w - - 0 1"))["mobility"]
    assert active[0] > buried[0]
    # squares attacked by enemy pawns do not count
    guarded = evaluate_terms(Position("4k3/8/3p4/8/3B4/8/8/4K3 w - - 0 1"))["mobility"]
    assert guarded[0] < active[0]


def test_king_attack_and_shield():
    # white queen and knight both hit g7 next to the castled black king
    attacked = evaluate_terms(Position("6k1/5ppp/8/5N2/6Q1/8/5PPP/6K1 w - - 0 1"))
    assert attacked["king attack"][0] > 0
    # one attacker alone does not count
    lone = evaluate_terms(Position("6k1/5ppp/8/8/6Q1/8/5PPP/6K1 w - - 0 1"))
    assert lone["king attack"] == (0, 0)
    # rook and knight on g7 without a queen: counted only when the queen rule is off
    queenless = evaluate_terms(Position("6k1/5ppp/8/5N2/6R1/8/5PPP/5RK1 w - - 0 1"))
    assert (queenless["king attack"] == (0, 0)) == bool(evaluate_module.KING_ATTACK_NEEDS_QUEEN)
    # the shield: three pawns on the second rank count SHIELD_NEAR each, on the third
    # SHIELD_FAR each, in the middlegame only
    shield_fens = ["6k1/8/8/8/8/8/5PPP/6K1 w - - 0 1", "6k1/8/8/8/8/5PPP/8/6K1 w - - 0 1",
                   "6k1/8/8/8/5PPP/8/8/6K1 w - - 0 1"]
    near, far, gone = (evaluate_terms(Position(fen))["king shield"] for fen in shield_fens)
    assert (near, far, gone) == ((3 * SHIELD_NEAR, 0), (3 * SHIELD_FAR, 0), (0, 0))
    hand_set = _probe(shield_fens, "SHIELD_NEAR=10,SHIELD_FAR=5")
    assert [r["rows"]["king shield"] for r in hand_set] == [[30, 0], [15, 0], [0, 0]]
    assert all(r["eval"] == r["total"] for r in hand_set)


START_BLACK_TO_MOVE = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1"


def test_tempo_favours_the_side_to_move_by_its_weight():
    """The start position scores exactly the tempo weight, for either side to move."""
    assert ev(Position().fen()) == ev(START_BLACK_TO_MOVE) == TEMPO[0]    # all middlegame
    on = _probe([Position().fen(), START_BLACK_TO_MOVE], "TEMPO=15:5")
    assert [r["eval"] for r in on] == [15, 15]
    assert all(r["eval"] == r["total"] for r in on)
    assert [r["rows"]["tempo"] for r in on] == [[15, 5], [-15, -5]]    # rows: white's view


# ------------------------------------------------------------------ drawish endgames
@pytest.mark.parametrize("fen", [
    "8/8/8/4k3/8/8/8/KNN5 w - - 0 1",        # KNN v K
    "8/8/8/4k3/8/8/8/KN6 w - - 0 1",         # KN v K
    "8/8/8/4k3/8/8/8/KB6 w - - 0 1",         # KB v K
    "8/8/8/4k3/8/8/8/K7 w - - 0 1",          # K v K
])
def test_no_winning_material_scores_zero(fen):
    assert ev(fen) == 0
    assert ev(fen.replace(" w ", " b ")) == 0


def test_rook_v_minor_is_drawish():
    krkb = ev("8/8/3bk3/8/8/8/8/KR6 w - - 0 1")
    krk = ev("8/8/4k3/8/8/8/8/KR6 w - - 0 1")
    assert 0 <= krkb < 60 and krk > 400


def test_winning_material_is_not_scaled():
    assert ev("8/8/8/4k3/8/8/8/KBN5 w - - 0 1") > 500          # KBN v K is a win
    assert ev("8/8/8/4k3/8/8/8/KQ6 w - - 0 1") > 800
    assert ev("8/8/8/4k3/8/8/P7/KBN5 w - - 0 1") > 500


def test_opposite_coloured_bishops_scaled():
    ocb = "4k3/5b2/8/8/8/8/P1P1P3/4KB2 w - - 0 1"       # light f7 bishop v light f1: same colour
    ocb_real = "4k3/4b3/8/8/8/8/P1P1P3/4KB2 w - - 0 1"  # dark e7 bishop v light f1
    t_same = evaluate_terms(Position(ocb))
    t_opp = evaluate_terms(Position(ocb_real))
    assert t_same["scale"] == 64
    # bishops only: a base share and more per passed pawn of the side ahead (three here)
    expected = min(64, SCALE_OCB_BISHOPS_ONLY + 3 * SCALE_OCB_PER_PASSER)
    assert expected < 64
    assert t_opp["scale"] == expected and 0 < t_opp["total"] < t_opp["blended"]
    black_to_move = evaluate_terms(Position(ocb_real.replace(" w ", " b ")))
    assert black_to_move["scale"] == expected
    assert 0 < black_to_move["total"] < black_to_move["blended"]


def test_mopup_drives_king_to_edge_and_bn_corner():
    centre = ev("8/8/8/4k3/8/8/8/KR6 w - - 0 1")
    edge = ev("4k3/8/8/8/8/8/8/KR6 w - - 0 1")
    assert edge > centre
    # KBN with a light-squared bishop: the light corner h1/a8 is the one to aim at
    dark = ev("k7/8/2K5/8/8/8/8/4BN2 w - - 0 1")        # e1 bishop is dark: a8 is the wrong corner
    light = ev("k7/8/2K5/8/8/8/8/3B1N2 w - - 0 1")      # d1 bishop is light: a8 is the mating corner
    assert light > dark


# ------------------------------------------------------------------ A/B switches
def test_override_rejects_unknown_or_malformed_weights():
    with pytest.raises(ValueError):
        evaluate_module._apply_overrides("NO_SUCH_WEIGHT=1")
    with pytest.raises(ValueError):
        evaluate_module._apply_overrides("BISHOP_PAIR=30")
    with pytest.raises(ValueError):
        evaluate_module._apply_overrides("evaluate=1")


def test_psqt_only_baseline_in_a_subprocess():
    import os
    import subprocess
    import sys
    code = ("from engine.position import Position\n"
            "from engine.evaluate import evaluate\n"
            "from engine.psqt import unpack\n"
            "p = Position('r1bq1rk1/pp2bppp/2n1pn2/3p2B1/2PP4/2N1PN2/PP3PPP/R2QKB1R b KQ - 0 8')\n"
            "mg, eg = unpack(p.psq)\n"
            "print(evaluate(p), -mg)\n")
    env = dict(os.environ, BASILISK_EVAL="PSQT_ONLY=1", BASILISK_NNUE="off")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[0] == out[1]          # phase 24: the baseline is the negated mg half exactly


_ABLATION_PROBE = """
import json, sys
from engine.position import Position
from engine.evaluate import evaluate, evaluate_terms, _evaluate_psqt_only
from engine.types import WHITE
out = []
for fen in json.load(sys.stdin):
    pos = Position(fen)
    t = evaluate_terms(pos)
    sign = 1 if pos.turn == WHITE else -1
    out.append({"eval": evaluate(pos), "total": sign * t["total"], "scale": t["scale"],
                "psqt": _evaluate_psqt_only(pos),
                "rows": {name: list(t[name]) for name in t if isinstance(t[name], tuple)}})
print(json.dumps(out))
"""

_ABLATION_EXTRA = ["8/8/8/4k3/8/8/8/KR6 w - - 0 1",            # mop-up
                   "4k3/4b3/8/8/8/8/P1P1P3/4KB2 w - - 0 1",     # opposite bishops: scaled
                   "4k3/8/8/3K4/8/8/4P3/8 b - - 0 1",           # passer with kings near
                   "8/5k2/4p2P/4p1K1/4P3/8/8/8 w - - 0 1"]      # pawn ending: h6 caught


def _probe(fens, evaluate_env):
    """evaluate and evaluate_terms for fens in a fresh interpreter with BASILISK_EVAL set
    (and the network off: the switches are the terms')."""
    import json
    import os
    import subprocess
    import sys
    env = dict(os.environ, BASILISK_EVAL=evaluate_env, BASILISK_NNUE="off")
    proc = subprocess.run([sys.executable, "-c", _ABLATION_PROBE], input=json.dumps(fens),
                          env=env, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout)


@pytest.mark.parametrize("name", sorted(ablations.EVAL_ABLATIONS))
def test_ablation_switch_removes_its_term(name):
    """Each A/B 'off' switch zeroes exactly what it claims, on both evaluation paths,
    and the feature is live without it (so the match measured something)."""
    setting, rows = ablations.EVAL_ABLATIONS[name]
    fens = POSITIONS[:150] + _ABLATION_EXTRA
    results = _probe(fens, setting)
    for fen, r in zip(fens, results):
        if name == "all positional terms":        # the eval table still shows every term
            assert r["eval"] == r["psqt"], fen
            continue
        assert r["eval"] == r["total"], "fast path and terms disagree with %s: %s" % (setting, fen)
        for row in rows:
            assert r["rows"][row] == [0, 0], (row, fen)
        if name == "endgame scaling":
            assert r["scale"] == 64, fen
    # without the switch the feature changes some evaluation of this set
    live = [Position(fen) for fen in fens]
    if rows:
        assert any(evaluate_terms(p)[row] != (0, 0) for p in live for row in rows)
    elif name == "endgame scaling":
        assert any(evaluate_terms(p)["scale"] != 64 for p in live)
    assert any(evaluate(p) != r["eval"] for p, r in zip(live, results))


def test_safe_checks_by_piece_type(monkeypatch):
    """A piece type counts once when one of its pieces can move to a square that checks the
    enemy king, unless an own piece holds it, an enemy pawn attacks it or it is next to
    the king; each type's weight is its own (patched to powers of ten to tell them apart)."""
    monkeypatch.setattr(evaluate_module, "SAFE_CHECK_MG",
                        {KNIGHT: 1, BISHOP: 10, ROOK: 100, QUEEN: 1000})
    monkeypatch.setattr(evaluate_module, "SAFE_CHECK_EG",
                        {KNIGHT: 2, BISHOP: 20, ROOK: 200, QUEEN: 2000})
    # the c6 knight checks from e7, the d1 queen from d8 (the f6 and h6 knight checks are
    # covered by the g7 pawn; f8 and f7 touch the king)
    t = evaluate_terms(Position("6k1/5ppp/2N5/8/8/8/8/3QK3 w - - 0 1"))
    assert t["safe checks"] == (1001, 2002)
    # a knight on e4 reaches only f6, which the g7 pawn covers; black's a3 rook checks from
    # e3 (e2 touches the white king; the d1 queen stops the rank)
    t = evaluate_terms(Position("6k1/5ppp/8/8/4N3/r7/8/3QK3 w - - 0 1"))
    assert t["safe checks"] == (1000 - 100, 2000 - 200)
    # a square an own piece holds does not count: the a4 bishop reaches the king's diagonal
    # only at b3, the own knight's; from f1 it reaches c4 on it
    t = evaluate_terms(Position("6k1/6pp/8/8/B7/1N6/8/4K3 w - - 0 1"))
    assert t["safe checks"] == (0, 0)
    t = evaluate_terms(Position("6k1/6pp/8/8/8/1N6/8/4KB2 w - - 0 1"))
    assert t["safe checks"] == (10, 20)


def test_blocked_passed_pawns_by_rank(monkeypatch):
    """A passed pawn whose stop square holds any piece adds its relative rank's weight."""
    monkeypatch.setattr(evaluate_module, "PASSED_BLOCKED_MG", tuple(range(0, 80, 10)))
    monkeypatch.setattr(evaluate_module, "PASSED_BLOCKED_EG", tuple(range(0, 800, 100)))
    # white's e5 passer stopped by the e6 knight (rank 5: index 4), black's d3 passer by
    # the d2 bishop (its rank 6: index 5)
    t = evaluate_terms(Position("4k3/8/4n3/4P3/8/3p4/3B4/4K3 w - - 0 1"))
    assert t["passed: blocked"] == (40 - 50, 400 - 500)
    # free stop squares, and a blocked pawn that is not passed (e5 against e6), add nothing
    assert evaluate_terms(Position("4k3/8/8/4P3/8/3p4/8/4K3 w - - 0 1"))["passed: blocked"] == (0, 0)
    assert evaluate_terms(Position("4k3/8/4p3/4P3/8/8/8/4K3 w - - 0 1"))["passed: blocked"] == (0, 0)
    # in a pawn ending (kings and pawns only) the term is left to the pawn-ending rules
    assert evaluate_terms(Position("8/8/4k3/4P3/8/8/8/4K3 w - - 0 1"))["passed: blocked"] == (0, 0)


def test_pawn_push_threats(monkeypatch):
    """Enemy pieces a pawn would attack after a push (one or two squares) to an empty square
    on relative rank 3-6 that no enemy pawn attacks, each piece once."""
    monkeypatch.setattr(evaluate_module, "PAWN_PUSH_THREAT", (10, 3))
    # e2-e3 would hit the d4 knight, e2-e4 the f5 bishop
    assert evaluate_terms(Position("4k3/8/8/5b2/3n4/8/4P3/4K3 w - - 0 1"))["push threats"] == (20, 6)
    # the d5 pawn covers e4: only e3 counts (the knight); for black, d5-d4 is blocked
    assert evaluate_terms(Position("4k3/8/8/3p1b2/3n4/8/4P3/4K3 w - - 0 1"))["push threats"] == (10, 3)
    # a push to the 7th rank is not counted; black's c5-c4 hits the d3 knight and b3 rook
    t = evaluate_terms(Position("3rk3/8/4P3/2p5/8/1R1N4/8/4K3 w - - 0 1"))
    assert t["push threats"] == (-20, -6)


def test_passed_pawns_with_a_safe_stop_square(monkeypatch):
    """A passed pawn on relative rank 4-7 whose stop square is empty and attacked by no enemy
    piece, pawn or king adds the weight times (relative rank - 2); not in pawn endings."""
    monkeypatch.setattr(evaluate_module, "PASSED_SAFE_STOP", (10, 100))
    # white's d5 passer (rank 5: x2), d6 free; the h1 knight keeps it out of a pawn ending
    assert evaluate_terms(Position("4k3/8/8/3P4/8/8/8/4K2N w - - 0 1"))["passed: safe stop"] == (20, 200)
    # d6 attacked by the king, by a rook through d7, by a bishop; or held by a piece
    for fen in ("8/4k3/8/3P4/8/8/8/4K2N w - - 0 1", "3rk3/8/8/3P4/8/8/8/4K2N w - - 0 1",
                "4kb2/8/8/3P4/8/8/8/4K2N w - - 0 1", "4k3/8/3n4/3P4/8/8/8/4K2N w - - 0 1"):
        assert evaluate_terms(Position(fen))["passed: safe stop"] == (0, 0), fen
    # black's d4 passer (its rank 5: x2) and d2 passer (its rank 7: x4); a pawn on the
    # 3rd rank does not count
    assert evaluate_terms(Position("4k3/8/8/8/3p4/8/8/4K2N b - - 0 1"))["passed: safe stop"] == (-20, -200)
    assert evaluate_terms(Position("4k3/8/8/8/8/8/3p4/6KN b - - 0 1"))["passed: safe stop"] == (-40, -400)
    assert evaluate_terms(Position("4k3/8/8/8/8/3P4/8/4K2N w - - 0 1"))["passed: safe stop"] == (0, 0)
    # a pawn ending is left to the pawn-ending rules
    assert evaluate_terms(Position("4k3/8/8/3P4/8/8/8/4K3 w - - 0 1"))["passed: safe stop"] == (0, 0)


def _eval_halves(fen):
    """The reference's summed (mg, eg), white's view, before complexity and scaling."""
    t = evaluate_terms(Position(fen))
    return (sum(t[name][0] for name in TERM_NAMES), sum(t[name][1] for name in TERM_NAMES))


def test_complexity_moves_the_halves_as_defined(monkeypatch):
    """Stockfish's 'winnable' term: the endgame half moves by the complexity (toward 0 when
    it is negative, never past 0), the middlegame half only by its shortfall below the
    offset; both paths agree with the term on, and it changes evaluations."""
    ev = evaluate_module
    # a pawn ending, the e4 pawn passed; kings e5 and e7 (outflanking 0 - 2), one flank,
    # the white king past the middle: almost unwinnable
    kpk = "8/4k3/8/4K3/4P3/8/8/8 w - - 0 1"
    # a rook ending on one flank, kings g2 and g7 (outflanking 0 - 5)
    rook = "8/5pk1/6p1/8/3R4/6P1/5PK1/r7 w - - 0 1"
    expected = {kpk: (ev.C_PASSED + ev.C_PAWNS - 2 * ev.C_OUTFLANKING + ev.C_INFILTRATION
                      + ev.C_PAWN_ENDING - ev.C_UNWINNABLE - ev.C_BASE),
                rook: 4 * ev.C_PAWNS - 5 * ev.C_OUTFLANKING - ev.C_UNWINNABLE - ev.C_BASE}
    before = {fen: _eval_halves(fen) for fen in expected}
    monkeypatch.setattr(ev, "COMPLEXITY_ON", 1)
    for fen, c in expected.items():
        assert c < 0, fen                 # both are drawish: the term shrinks them
        mg, eg = before[fen]
        sign_mg, sign_eg = (mg > 0) - (mg < 0), (eg > 0) - (eg < 0)
        want = (sign_mg * max(min(c + ev.C_MG_OFFSET, 0), -abs(mg)), sign_eg * max(c, -abs(eg)))
        assert evaluate_terms(Position(fen))["complexity"] == want, fen
    fens = POSITIONS[:150] + _ABLATION_EXTRA + list(expected)
    on, off = _probe(fens, "COMPLEXITY_ON=1"), _probe(fens, "COMPLEXITY_ON=0")
    assert all(r["eval"] == r["total"] for r in on + off)
    assert all("complexity" not in r["rows"] for r in off)
    assert sum(r["eval"] != r0["eval"] for r, r0 in zip(on, off)) > len(fens) // 4


def test_few_pawns_scale_as_defined(monkeypatch):
    """With no other drawish rule, a side ahead with pawns keeps SCALE_FEW_PAWNS +
    SCALE_PER_PAWN x its pawns out of 64; both paths agree with it on."""
    ev = evaluate_module
    monkeypatch.setattr(ev, "SCALE_FEW_PAWNS", 36)
    monkeypatch.setattr(ev, "SCALE_PER_PAWN", 7)
    # rook and two pawns against rook and one: white is ahead with two pawns
    t = evaluate_terms(Position("8/5pk1/8/8/3R4/6P1/5PK1/r7 w - - 0 1"))
    assert t["scale"] == 36 + 2 * 7
    # four pawns keep the whole score; a pawnless side ahead is left to the other rules
    assert evaluate_terms(Position("8/5pk1/8/8/3R4/5PP1/4P1PK/r7 w - - 0 1"))["scale"] == 64
    assert evaluate_terms(Position("8/6k1/8/8/3R4/8/6K1/8 w - - 0 1"))["scale"] == 64
    fens = POSITIONS[:150] + _ABLATION_EXTRA
    on = _probe(fens, "SCALE_FEW_PAWNS=36,SCALE_PER_PAWN=7")
    assert all(r["eval"] == r["total"] for r in on)
    assert any(r["scale"] not in (64,) + tuple(ev.SCALE_BY_RULE.values()) for r in on)
