"""The opening book: engine.book against python-chess's Polyglot reader on the repository's
book, weighted choice, bad files, and OwnBook / Book File / Book Best Move through real
`python -m engine` sessions and through python-chess's `chess.engine`."""

import io
import math
import os
import random
import shutil
import struct

import pytest

import chess  # noqa: E402  (the oracle: missing, the run must fail, not skip)
import chess.engine  # noqa: E402
import chess.polyglot  # noqa: E402

from conftest import data_file  # noqa: E402
from engine.book import Book, BookError, polyglot_key  # noqa: E402
from engine.notation import move_to_uci, parse_uci_move  # noqa: E402
from engine.position import Position  # noqa: E402
from test_uci import (REPO, Session, assert_legal, basilisk, errors,  # noqa: E402,F401
                      load_frc_positions, protocol_problems)

BOOK = data_file("books", "8moves_v3.bin")
OPENINGS = data_file("openings", "8moves_v3.pgn")
BOOK_PLIES = 16                 # the book was made with -max-ply 16


@pytest.fixture(scope="module")
def book():
    return Book(str(BOOK))


@pytest.fixture(scope="module")
def oracle():
    reader = chess.polyglot.open_reader(str(BOOK))
    yield reader
    reader.close()


def oracle_entries(reader, board):
    """[(uci, weight)] of python-chess's legal entries (weight 0 too), in file order."""
    return [(entry.move.uci(), entry.weight) for entry in reader.find_all(board, minimum_weight=0)]


def our_entries(book, board):
    pos = Position(board.fen())
    return [(move_to_uci(move), weight) for move, weight in book.entries(pos)]


def book_games(count, seed):
    """`count` games of 8moves_v3.pgn, picked at random, as lists of chess.Move."""
    blocks = OPENINGS.read_text().split("\n\n")
    movetexts = [block for block in blocks if block.strip() and not block.lstrip().startswith("[")]
    games = []
    for text in random.Random(seed).sample(movetexts, count):
        board = chess.Board()
        moves = []
        for token in text.split():
            if token[0].isdigit() and (token.endswith(".") or "-" in token):
                continue                # move numbers and the result
            moves.append(board.push_san(token))
        games.append(moves)
    return games


# ---------------------------------------------------------------------- keys
def test_polyglot_key_is_python_chess_hash_on_the_perft_suites():
    from conftest import read_perft_suite
    for line, fen, _ in read_perft_suite("standard.epd"):
        board = chess.Board(fen)
        assert polyglot_key(Position(fen)) == chess.polyglot.zobrist_hash(board), "line %d" % line


def test_polyglot_key_of_chess960_positions_is_python_chess_hash():
    """Not used for the book (no Chess960 probing), but defined: rights by side of the king."""
    for fen in load_frc_positions()[::7]:
        board = chess.Board(fen, chess960=True)
        assert polyglot_key(Position(fen)) == chess.polyglot.zobrist_hash(board), fen


def test_polyglot_key_along_random_games():
    """From scratch after every move: captures, castling rights lost, en passant."""
    rng = random.Random(7)
    checked = en_passant = 0
    for _ in range(60):
        board = chess.Board()
        pos = Position()
        for _ply in range(rng.randrange(10, 120)):
            legal = list(board.legal_moves)
            if not legal:
                break
            move = rng.choice(legal)
            board.push(move)
            pos.make(parse_uci_move(pos, move.uci()))
            assert polyglot_key(pos) == chess.polyglot.zobrist_hash(board), board.fen()
            checked += 1
            en_passant += board.has_legal_en_passant()
    assert checked > 2000 and en_passant > 0


# ---------------------------------------------------------------------- against python-chess
def test_entries_equal_python_chess_along_book_games(book, oracle):
    """Every position of 150 book openings, and one random step off each: same moves and
    weights, in the same order."""
    rng = random.Random(11)
    compared = in_book = 0
    for moves in book_games(150, seed=5):
        board = chess.Board()
        for ply, move in enumerate(moves):
            expected = oracle_entries(oracle, board)
            assert our_entries(book, board) == expected, board.fen()
            # the book was made from these games: the game's move is in it up to ply 16
            assert ply >= BOOK_PLIES or move.uci() in [uci for uci, _ in expected], board.fen()
            side = board.copy()
            side.push(rng.choice(list(side.legal_moves)))
            assert our_entries(book, side) == oracle_entries(oracle, side), side.fen()
            compared += 2
            in_book += bool(expected)
            board.push(move)
    assert compared >= 4000 and in_book >= 2000


def test_entries_equal_python_chess_off_the_book(book, oracle):
    """Random games well past the book's 16 plies: (nearly) always empty, always equal."""
    rng = random.Random(12)
    compared = 0
    for _ in range(40):
        board = chess.Board()
        for _ply in range(rng.randrange(20, 80)):
            legal = list(board.legal_moves)
            if not legal:
                break
            board.push(rng.choice(legal))
            assert our_entries(book, board) == oracle_entries(oracle, board), board.fen()
            compared += 1
    assert compared >= 1000


def test_choose_and_best_only_on_the_start_position(book, oracle):
    board = chess.Board()
    pos = Position()
    best = book.choose(pos, random.Random(0), best_only=True)
    assert move_to_uci(best) == oracle.find(board).move.uci() == "e2e4"
    assert book.choose(Position("8/8/8/4k3/8/8/8/4K3 w - - 0 1"), random.Random(0)) == 0


# ---------------------------------------------------------------------- weighted choice
def test_weighted_choice_follows_the_weights(book):
    pos = Position()
    weights = {move: weight for move, weight in book.entries(pos)}
    total = sum(weights.values())
    rng = random.Random(2024)
    draws = 40000
    counts = dict.fromkeys(weights, 0)
    for _ in range(draws):
        counts[book.choose(pos, rng)] += 1
    for move, weight in weights.items():
        p = weight / total
        expected = draws * p
        # 6 standard deviations: a correct sampler fails this about once in 10^8 runs
        bound = 6 * math.sqrt(draws * p * (1 - p)) + 1
        assert abs(counts[move] - expected) <= bound, (move_to_uci(move), counts[move], expected)
    rare = [move for move, weight in weights.items() if weight <= 7]
    assert sum(counts[m] for m in rare) < draws * 0.01


def write_book(path, entries):
    """A Polyglot file from [(key, move code, weight)] (sorted here, as a book must be)."""
    data = b"".join(struct.pack(">QHHI", key, code, weight, 0) for key, code, weight in sorted(entries))
    path.write_bytes(data)
    return str(path)


def code(uci, promotion=0):
    from_sq = chess.parse_square(uci[:2])
    to_sq = chess.parse_square(uci[2:4])
    return to_sq | from_sq << 6 | promotion << 12


def test_decoding_castling_promotion_zero_weights_and_illegal_entries(tmp_path):
    castle_fen = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    promo_fen = "3r3k/4P3/8/8/8/8/8/4K3 w - - 0 1"
    black_fen = "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1"
    castle_key = polyglot_key(Position(castle_fen))
    promo_key = polyglot_key(Position(promo_fen))
    path = write_book(tmp_path / "small.bin", [
        (castle_key, code("e1h1"), 5),          # O-O, written king takes rook
        (castle_key, code("e1a1"), 3),          # O-O-O
        (castle_key, code("e1e5"), 100),        # not a legal move here: skipped
        (castle_key, code("a1a8"), 0),          # weight 0: listed, never chosen
        (polyglot_key(Position(black_fen)), code("e8g8"), 2),   # O-O as the king's step
        (promo_key, code("e7e8", 4), 1),        # e7e8q
        (promo_key, code("e7d8", 1), 2),        # exd8=N
        (promo_key, code("e7e8", 2), 7),        # e7e8b
    ])
    small = Book(path)
    pos = Position(castle_fen)
    entries = [(move_to_uci(m), w) for m, w in small.entries(pos)]
    assert sorted(entries) == [("a1a8", 0), ("e1c1", 3), ("e1g1", 5)]
    assert move_to_uci(small.choose(pos, random.Random(1), best_only=True)) == "e1g1"
    rng = random.Random(3)
    chosen = {move_to_uci(small.choose(pos, rng)) for _ in range(200)}
    assert chosen == {"e1g1", "e1c1"}
    pos = Position(promo_fen)
    entries = sorted((move_to_uci(m), w) for m, w in small.entries(pos))
    assert entries == [("e7d8n", 2), ("e7e8b", 7), ("e7e8q", 1)]
    assert move_to_uci(small.choose(pos, random.Random(1), best_only=True)) == "e7e8b"
    assert [(move_to_uci(m), w) for m, w in small.entries(Position(black_fen))] == [("e8g8", 2)]
    # python-chess reads the same file the same way
    with chess.polyglot.open_reader(path) as reader:
        for fen in (castle_fen, promo_fen, black_fen):
            assert sorted(oracle_entries(reader, chess.Board(fen))) == sorted(
                our_entries(small, chess.Board(fen)))


def test_best_only_takes_the_first_of_equal_weights(tmp_path):
    key = polyglot_key(Position())
    path = write_book(tmp_path / "ties.bin", [(key, code("d2d4"), 9), (key, code("e2e4"), 9),
                                               (key, code("c2c4"), 4)])
    small = Book(path)
    entries = small.entries(Position())
    assert [w for _, w in entries] == [4, 9, 9]         # file order: c2c4, d2d4, e2e4
    assert small.choose(Position(), random.Random(0), best_only=True) == entries[1][0]
    assert small.choose(Position(), random.Random(0), best_only=True, allowed=[code_move("c2c4")]) \
        == code_move("c2c4")


def code_move(uci):
    return parse_uci_move(Position(), uci)


# ---------------------------------------------------------------------- bad files
def bad_files(tmp_path):
    """{case: path} for every kind of file that is not a usable book."""
    data = BOOK.read_bytes()
    rng = random.Random(99)
    text = "".join("line %d of a text file, not an opening book\n" % i for i in range(200))
    cases = {
        "missing": tmp_path / "no-such-book.bin",
        "empty": tmp_path / "empty.bin",
        "truncated": tmp_path / "truncated.bin",
        "random bytes": tmp_path / "random.bin",
        "random bytes, whole entries": tmp_path / "random16.bin",
        "text": tmp_path / "text.txt",
        "text, whole entries": tmp_path / "text16.txt",
        "unsorted entries": tmp_path / "unsorted.bin",
        "a directory": tmp_path,
    }
    cases["empty"].write_bytes(b"")
    cases["truncated"].write_bytes(data[:16 * 5000 + 9])
    cases["random bytes"].write_bytes(bytes(rng.randrange(256) for _ in range(16 * 3000 + 5)))
    cases["random bytes, whole entries"].write_bytes(bytes(rng.randrange(256) for _ in range(16 * 3000)))
    cases["text"].write_text(text)
    cases["text, whole entries"].write_text(text[:len(text) // 16 * 16])
    entries = [data[i:i + 16] for i in range(0, 16 * 5000, 16)]
    rng.shuffle(entries)
    cases["unsorted entries"].write_bytes(b"".join(entries))
    return {name: str(path) for name, path in cases.items()}


def test_bad_files_raise_a_clear_book_error(tmp_path):
    for case, path in bad_files(tmp_path).items():
        with pytest.raises(BookError) as info:
            Book(path)
        message = str(info.value)
        assert path in message, (case, message)
        print("%s: %s" % (case, message))
    with pytest.raises(BookError):
        Book("")


def test_a_whole_book_prefix_is_still_a_book(tmp_path):
    """Truncated at an entry boundary a book is a smaller valid book (not an error)."""
    path = tmp_path / "prefix.bin"
    path.write_bytes(BOOK.read_bytes()[:16 * 1000])
    assert len(Book(str(path))) == 1000


def test_a_book_over_max_book_bytes_is_refused_and_leaves_no_book(monkeypatch, tmp_path):
    """engine.book.MAX_BOOK_BYTES (lowered here to the repository book's size): a file of
    that size is a book, one byte more is refused with a clear error naming the file and
    both sizes; through the UCI, the book set before is dropped (engine.Engine.set_book:
    no book after an error) and `go` searches, without a book move."""
    import engine.book as book_module
    from engine.uci import UciSession
    size = BOOK.stat().st_size
    bigger = tmp_path / "bigger.bin"
    bigger.write_bytes(BOOK.read_bytes() + BOOK.read_bytes()[-16:])      # one entry more
    monkeypatch.setattr(book_module, "MAX_BOOK_BYTES", size)
    assert len(Book(str(BOOK))) == size // 16                   # at the limit: a book
    with pytest.raises(BookError) as info:
        Book(str(bigger))
    message = str(info.value)
    assert "too big" in message and str(bigger) in message, message
    assert "%d bytes" % (size + 16) in message and "at most %d" % size in message, message

    out = io.StringIO()
    session = UciSession(out=out)
    session.loader.start()
    for line in ("setoption name OwnBook value true", "setoption name Book File value %s" % BOOK):
        session.handle_line(line)
    assert session.engine.book is not None and errors(out.getvalue().splitlines()) == []
    mark = len(out.getvalue())
    session.handle_line("setoption name Book File value %s" % bigger)
    lines = out.getvalue()[mark:].splitlines()
    assert len(lines) == 1 and errors(lines) == lines, lines
    assert "too big" in lines[0] and "playing without a book" in lines[0], lines
    assert session.engine.book is None
    mark = len(out.getvalue())
    for line in ("position startpos", "go depth 1"):
        session.handle_line(line)
    assert session.engine.wait_idle(30)
    lines = out.getvalue()[mark:].splitlines()
    assert lines[-1].startswith("bestmove ") and not book_info(lines) and searched(lines), lines
    assert_legal(chess.STARTING_FEN, lines[-1].split()[1])


# ---------------------------------------------------------------------- through the UCI loop
def book_info(lines):
    return [line for line in lines if line.startswith("info string book move ")]


def searched(lines):
    return any(line.startswith("info depth ") for line in lines)


@pytest.fixture
def booked():
    """A session with OwnBook on and the repository's book set (as a relative path)."""
    session = Session()
    session.send("uci")
    session.expect("uciok")
    session.send("setoption name OwnBook value true")
    session.send("setoption name Book File value data/books/8moves_v3.bin")
    assert session.sync() == []
    yield session
    session.close()


def test_go_plays_the_book_through_the_opening(booked, oracle):
    """Follows the book (each move one of its entries, with the weights it reports) until
    the book runs out, then searches."""
    board = chess.Board()
    history = []
    book_moves = 0
    while True:
        booked.send("position startpos moves " + " ".join(history))
        booked.send("go wtime 2000 btime 2000")
        move, ponder, lines = booked.bestmove()
        assert_legal(board.fen(), move, ponder=ponder)
        entries = [(e.move.uci(), e.weight) for e in oracle.find_all(board)]
        info = book_info(lines)
        if not info:
            assert entries == [] and searched(lines), (history, lines)
            break
        assert not searched(lines) and len(info) == 1 and ponder is None
        weight, total = (int(x) for x in info[0].split("(weight ")[1].rstrip(")").split(" of total "))
        assert info[0].startswith("info string book move %s " % move)
        assert (move, weight) in entries and total == sum(w for _, w in entries), (info, entries)
        board.push_uci(move)
        history.append(move)
        book_moves += 1
    print("\n%d book moves: %s" % (book_moves, " ".join(history)))
    assert book_moves >= BOOK_PLIES, history
    assert errors(booked.transcript) == []


def test_out_of_book_is_remembered_until_the_game_changes(booked):
    booked.send("debug on")
    booked.send("position startpos moves h2h4 a7a5 h4h5 a5a4 h5h6")     # not in the book
    booked.send("go depth 1")
    _, _, lines = booked.bestmove()
    assert "info string book not used: no book move here" in lines and searched(lines)
    booked.send("position startpos moves h2h4 a7a5 h4h5 a5a4 h5h6 g7h6 e2e4")
    booked.send("go depth 1")
    _, _, lines = booked.bestmove()
    assert "info string book not used: out of book in this game" in lines
    booked.send("position startpos moves e2e4")                  # not a continuation
    booked.send("go depth 1")
    _, _, lines = booked.bestmove()
    assert len(book_info(lines)) == 1 and not searched(lines)
    booked.send("position startpos moves h2h4 a7a5 h4h5 a5a4 h5h6")
    booked.send("go depth 1")
    _, _, lines = booked.bestmove()
    booked.send("ucinewgame")
    booked.send("position startpos moves h2h4 a7a5 h4h5 a5a4 h5h6 g7h6 e2e4")
    booked.send("go depth 1")
    _, _, lines = booked.bestmove()
    assert "info string book not used: no book move here" in lines        # asked again


def test_searchmoves_infinite_and_ponder(booked):
    booked.send("position startpos")
    booked.send("go depth 1 searchmoves a2a3 h2h4")        # a2a3 is a (rare) book move
    move, _, lines = booked.bestmove()
    assert move == "a2a3" and book_info(lines) and not searched(lines)
    booked.send("go depth 1 searchmoves h2h4")             # h2h4 is not in the book
    move, _, lines = booked.bestmove()
    assert move == "h2h4" and not book_info(lines) and searched(lines)
    for go, release in (("go infinite", "stop"), ("go ponder wtime 5000 btime 5000", "ponderhit")):
        booked.send(go)
        waiting = booked.quiet_for(0.3)
        assert not any(line.startswith("bestmove") for line in waiting), go
        booked.send(release)
        move, _, lines = booked.bestmove()
        lines = waiting + lines
        assert not book_info(lines) and searched(lines), go
        assert_legal(chess.STARTING_FEN, move)
    booked.send("go depth 2")                             # the book is still there
    _, _, lines = booked.bestmove()
    assert book_info(lines)


def test_book_best_move_always_plays_the_heaviest(booked, oracle):
    booked.send("setoption name Book Best Move value true")
    board = chess.Board("rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1")
    best = oracle.find(board)
    for _ in range(3):
        booked.send("position startpos moves d2d4")
        booked.send("go movetime 1000")
        move, _, lines = booked.bestmove()
        assert move == best.move.uci() and book_info(lines)


def test_chess960_never_probes(booked):
    booked.send("debug on")
    booked.send("setoption name UCI_Chess960 value true")
    booked.send("position startpos")                     # in the book, but a Chess960 game
    booked.send("go depth 1")
    move, _, lines = booked.bestmove()
    assert not book_info(lines) and searched(lines)
    assert "info string book not used: Chess960" in lines
    booked.send("setoption name UCI_Chess960 value false")
    fen = load_frc_positions()[100]
    booked.send("position fen " + fen)                   # a Chess960 layout, option off
    booked.send("go depth 1")
    move, _, lines = booked.bestmove()
    assert "info string book not used: Chess960" in lines and not book_info(lines)
    assert_legal(fen, move, chess960=True)


def test_a_bad_book_gives_one_error_and_play_goes_on(tmp_path):
    """Each bad file: set with OwnBook off, nothing yet; OwnBook switched on, one error;
    set again with OwnBook on, one error; `go` plays a searched legal move, silently."""
    s = Session()
    s.send("uci")
    s.expect("uciok")
    for case, path in bad_files(tmp_path).items():
        s.send("setoption name OwnBook value false")
        s.send("setoption name Book File value " + path)
        assert s.sync() == [], case
        s.send("setoption name OwnBook value true")
        lines = s.sync()
        assert len(lines) == 1 and errors(lines) == lines, (case, lines)
        assert "playing without a book" in lines[0] and "Traceback" not in lines[0]
        s.send("setoption name Book File value " + path)
        assert len(errors(s.sync())) == 1, case
        s.send("position startpos")
        s.send("go depth 1")
        move, _, lines = s.bestmove()
        assert_legal(chess.STARTING_FEN, move)
        assert not book_info(lines) and searched(lines), case
        assert errors(lines) == [], case        # reported once, not at every go
    s.close()


def test_switching_book_file_and_ownbook(booked, tmp_path):
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    booked.send("setoption name Book File value %s" % empty)
    assert len(errors(booked.sync())) == 1
    booked.send("position startpos")
    booked.send("go depth 1")
    _, _, lines = booked.bestmove()
    assert not book_info(lines)
    booked.send("setoption name Book File value %s" % BOOK)       # absolute path
    booked.send("setoption name OwnBook value false")
    booked.send("go depth 1")
    _, _, lines = booked.bestmove()
    assert not book_info(lines)
    booked.send("setoption name OwnBook value true")
    booked.send("go depth 1")
    _, _, lines = booked.bestmove()
    assert book_info(lines)
    booked.send("setoption name Book File value <empty>")
    booked.send("go depth 1")
    _, _, lines = booked.bestmove()
    assert not book_info(lines)
    # OwnBook on with no Book File: said once, at the first go, not as an error
    note = "info string OwnBook is on but Book File is empty: searching"
    assert lines.count(note) == 1
    booked.send("go depth 1")
    _, _, lines = booked.bestmove()
    assert note not in lines and booked.transcript.count(note) == 1
    assert len(errors(booked.transcript)) == 1


def test_book_load_does_not_delay_readyok():
    s = Session()
    s.send("uci")
    s.expect("uciok")
    s.sync()                                       # the engine modules are loaded
    times = []
    for _ in range(3):
        s.send("setoption name OwnBook value true")
        s.send("setoption name Book File value data/books/8moves_v3.bin")
        sent = __import__("time").perf_counter()
        s.send("isready")
        stamp, line = s.read()
        assert line == "readyok"
        times.append(stamp - sent)
    s.close()
    print("\nreadyok after loading the book: best %.0f ms" % (min(times) * 1000))
    assert min(times) < 0.2         # a few ms on CPython and PyPy; seconds if read badly


def first_move_with_book_file(cwd, book_file, env=None, options=()):
    """(move, lines before bestmove) of a `go` from the start position, in an engine
    started in ``cwd`` with ``options`` (setoption lines) sent, then OwnBook on and Book
    File ``book_file``."""
    session = Session(cwd=cwd, env=env)
    try:
        session.send("uci")
        session.expect("uciok")
        for line in options:
            session.send(line)
        session.send("setoption name OwnBook value true")
        session.send("setoption name Book File value " + book_file)
        assert errors(session.sync()) == [], book_file
        session.send("position startpos")
        session.send("go depth 1")
        move, ponder, lines = session.bestmove()
        assert errors(session.transcript) == [], session.transcript
    finally:
        session.close()
    return move, lines


def assert_book_move(move, lines, oracle):
    info = book_info(lines)
    assert len(info) == 1 and info[0].startswith("info string book move %s " % move), lines
    assert not searched(lines), lines
    assert move in [entry.move.uci() for entry in oracle.find_all(chess.Board())]


def test_a_relative_book_file_is_found_in_the_repository(tmp_path, oracle):
    """A GUI starts the engine in a folder of its own: a relative Book File that is not
    there is looked up in the repository (engine.uci.resolve_path)."""
    relative = "data/books/8moves_v3.bin"
    assert not (tmp_path / relative).exists() and (REPO / relative).exists()
    move, lines = first_move_with_book_file(tmp_path, relative)
    assert_book_move(move, lines, oracle)


def test_a_book_file_under_home_is_found(tmp_path, oracle):
    """`~/...` is the home folder's (HOME, a temporary folder here holding a copy of the
    book under a name the repository does not have)."""
    home = tmp_path / "home"
    (home / "books").mkdir(parents=True)
    shutil.copyfile(BOOK, home / "books" / "my-book.bin")
    work = tmp_path / "work"
    work.mkdir()
    move, lines = first_move_with_book_file(work, "~/books/my-book.bin",
                                            dict(os.environ, HOME=str(home)))
    assert_book_move(move, lines, oracle)


def test_file_names_the_file_system_encoding_cannot_spell_go_as_utf8(monkeypatch):
    """PyPy under the C locale spells file names in ASCII: a name it cannot spell goes to
    the OS as UTF-8 bytes (POSIX), one it can as it is."""
    import sys
    from engine.streams import os_path
    monkeypatch.setattr(sys, "getfilesystemencoding", lambda: "ascii")
    assert os_path("/tmp/books/a.bin") == "/tmp/books/a.bin"
    assert os_path("/tmp/livres-\xe9/a.bin") == (
        "/tmp/livres-\xe9/a.bin".encode("utf-8") if os.name == "posix" else "/tmp/livres-\xe9/a.bin")


def test_a_book_and_a_log_in_a_folder_named_in_other_letters(tmp_path, oracle):
    """Under the C locale (a container, cron, `env -i`) a Book File and a Debug Log File in
    a folder whose name is not ASCII still open, on PyPy too (a traceback and no book, once)."""
    folder = tmp_path / "livres-\xe9"
    folder.mkdir()
    shutil.copyfile(BOOK, folder / "book.bin")
    env = {name: value for name, value in os.environ.items()
           if not name.startswith("LC_") and name != "LANG"}
    env["LC_ALL"] = "C"
    move, lines = first_move_with_book_file(
        REPO, str(folder / "book.bin"), env,
        ["setoption name Debug Log File value %s" % (folder / "log.txt")])
    assert_book_move(move, lines, oracle)
    assert "<< go depth 1" in (folder / "log.txt").read_text(encoding="utf-8")


# ---------------------------------------------------------------------- python-chess as client
def test_python_chess_client_gets_book_moves(protocol_problems, oracle, tmp_path):
    engine = basilisk()
    try:
        assert engine.options["OwnBook"].default is False
        assert engine.options["Book File"].type == "string"
        engine.configure({"OwnBook": True, "Book File": str(BOOK)})
        board = chess.Board()
        board.push_uci("c2c4")
        result = engine.play(board, chess.engine.Limit(time=2.0), info=chess.engine.INFO_ALL)
        assert result.info.get("string", "").startswith("book move " + result.move.uci())
        assert result.move in [entry.move for entry in oracle.find_all(board)]
        # out of the book: a search
        board = chess.Board("r1bq1rk1/pp2ppbp/2np1np1/8/3NP3/2N1BP2/PPPQ2PP/R3KB1R w KQ - 3 9")
        assert oracle.get(board) is None
        result = engine.play(board, chess.engine.Limit(depth=2), info=chess.engine.INFO_ALL)
        assert result.move in board.legal_moves and "book" not in result.info.get("string", "")
        # a Chess960 game from the standard layout: no book
        board = chess.Board(chess960=True)
        result = engine.play(board, chess.engine.Limit(depth=1), info=chess.engine.INFO_ALL,
                             game="960")
        assert result.move in board.legal_moves and "book" not in result.info.get("string", "")
        # a bad file: play goes on without a book
        engine.configure({"Book File": str(tmp_path / "missing.bin")})
        board = chess.Board()
        result = engine.play(board, chess.engine.Limit(depth=1), info=chess.engine.INFO_ALL,
                             game="after")
        assert result.move in board.legal_moves and "book move" not in result.info.get("string", "")
        engine.ping()
    finally:
        engine.quit()
    assert protocol_problems == []
