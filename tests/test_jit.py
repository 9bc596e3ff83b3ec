"""engine.jit: the PyPy hint changes nothing a caller can see, and reaches PyPy's JIT; the
functions compiled again for a bitboard form compute what the originals do."""

import os
import subprocess
import sys

import engine.jit as jit
from engine.evaluate import evaluate
from engine.position import Position

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_jit_hint_returns_the_function_itself():
    """not_inlined only advises PyPy: the decorated function is the same object and still
    works, and evaluate (whose uncached path carries it) still evaluates."""
    def plain(x):
        return x + 1

    assert jit.not_inlined(plain) is plain and plain(1) == 2
    assert isinstance(evaluate(Position()), int)


def test_jit_hint_marks_the_function_entry(monkeypatch):
    """Where pypyjit exists, the hint marks the function's code at its entry (offset 0)."""
    calls = []
    monkeypatch.setattr(jit, "_dont_trace_here", lambda *args: calls.append(args))

    def plain(x):
        return x + 1

    assert jit.not_inlined(plain) is plain
    assert calls == [(0, False, plain.__code__)]


def test_trace_eagerness_is_lowered_once_after_the_search_has_searched_enough(monkeypatch):
    """The search reports its nodes; past the countdown the eagerness is set, once."""
    from engine.search import run_bench
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    calls = []
    monkeypatch.setattr(jit, "_set_param", calls.append)
    monkeypatch.setattr(jit, "_countdown", [3000])
    nodes = run_bench(depth=7, positions=[fen])[0]
    assert nodes > 3000 + 2 * 256
    assert calls == ["trace_eagerness=%d" % jit.TRACE_EAGERNESS]
    assert jit._countdown[0] <= 0
    run_bench(depth=3, positions=[fen])
    assert len(calls) == 1


def test_nothing_is_counted_down_where_there_is_no_jit(monkeypatch):
    """Under CPython (no pypyjit) the countdown starts at 0 and stays there."""
    if jit._set_param is None:
        assert jit._countdown[0] == 0
    monkeypatch.setattr(jit, "_countdown", [0])
    jit.nodes_searched(10 ** 6)
    assert jit._countdown == [0]


# Imports the engine's jit module in a fresh interpreter with a stand-in pypyjit module in
# sys.modules (PyPy's own is built in, so one on the path would not replace it) and prints
# each set_param call on a line of its own.
_FAKE_JIT_IMPORT = """
import sys, types
calls = []
fake = types.ModuleType("pypyjit")
fake.set_param = calls.append
fake.dont_trace_here = lambda *args: None
sys.modules["pypyjit"] = fake
import engine.jit
print("\\n".join(calls))
"""


def _set_params_at_import(jit_overrides=""):
    """The set_param calls engine.jit makes at import, with BASILISK_JIT=jit_overrides."""
    env = dict(os.environ, BASILISK_JIT=jit_overrides)
    out = subprocess.run([sys.executable, "-c", _FAKE_JIT_IMPORT], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True).stdout
    return out.splitlines()


def test_recursion_is_not_unrolled_where_there_is_a_jit():
    """With pypyjit present, importing the engine sets max_unroll_recursion (-1 by default,
    BASILISK_JIT may set it back to PyPy's 7); nothing else is set at import."""
    assert jit.MAX_UNROLL_RECURSION == -1
    assert _set_params_at_import() == ["max_unroll_recursion=-1"]
    assert _set_params_at_import("MAX_UNROLL_RECURSION=7") == ["max_unroll_recursion=7"]


# A module whose function counts squares with popcount in every shape the rewrite must
# handle: nested and multi-line arguments, a comment and strings that name it, an
# attribute of the same name (left alone), and a line to raise on.
_POPCOUNT_SAMPLE = '''
from engine.bitboard import popcount
from engine.jit import for_bitboard_form


class Holder:
    @staticmethod
    def popcount(x):
        return -1


@for_bitboard_form
def counts(a, b, fail=False):
    """popcount(a) and friends."""
    # popcount(a) in a comment stays a comment
    label = "popcount(b)" + "\\"popcount(\\""[:0]     # an escaped quote in a string
    total = popcount(a) + 2 * popcount((a | b) & ~(a & b))
    nested = popcount(a & (b | (a >> 1)))
    spread = popcount(
        a
        ^ b)
    if fail:
        raise ValueError("line of the raise")
    return total, nested, spread, popcount(popcount(a) | b), Holder.popcount(a), label
'''

# Imports the sample in the signed form and checks the rewrite against popcount itself.
_POPCOUNT_CHILD = r'''
import json, random, sys, traceback
sys.path.insert(0, sys.argv[1])
import engine.bitboard as bitboard
from engine.bitboard import popcount, to_bitboard
import engine.evaluate
import sample

def reference(a, b):
    return (popcount(a) + 2 * popcount((a | b) & ~(a & b)), popcount(a & (b | (a >> 1))),
            popcount(a ^ b), popcount(popcount(a) | b), -1, "popcount(b)")

def calls_popcount(function):
    import dis
    return any(i.opname == "LOAD_GLOBAL" and i.argval == "popcount"
               for i in dis.get_instructions(function))

rng = random.Random(5)
values = [to_bitboard(rng.getrandbits(64)) for _ in range(400)]
values += [bitboard.BIT63, bitboard.BIT63 | 1, 0, to_bitboard((1 << 64) - 1)]
agree = all(sample.counts(a, b) == reference(a, b) for a in values for b in values[::7])
try:
    sample.counts(1, 2, fail=True)
    line = None
except ValueError:
    line = traceback.extract_tb(sys.exc_info()[2])[-1].line
print(json.dumps({
    "signed": bitboard.SIGNED, "agree": agree, "raise_line": line,
    "rewritten": sample.counts is not sample.counts.__wrapped__,
    "sample_calls": calls_popcount(sample.counts),
    "sample_doc": sample.counts.__doc__,
    "evaluate_calls": calls_popcount(engine.evaluate._evaluate_terms),
    "evaluate_was": calls_popcount(engine.evaluate._evaluate_terms.__wrapped__),
}))
'''


def test_popcounts_are_written_out_in_the_signed_form_and_count_the_same(tmp_path):
    """In the signed form (PyPy's; BASILISK_SIGNED_BITBOARDS=1 selects it here) the decorated
    function is compiled again with its popcount calls written out: it counts what popcount
    counts for every bitboard, h8 (the sign bit) included, leaves comments, strings and
    attributes alone, keeps its docstring and the lines its tracebacks name; the
    evaluation is written out the same way."""
    (tmp_path / "sample.py").write_text(_POPCOUNT_SAMPLE)
    env = dict(os.environ, BASILISK_SIGNED_BITBOARDS="1")
    out = subprocess.run([sys.executable, "-c", _POPCOUNT_CHILD, str(tmp_path)], cwd=ROOT,
                         env=env, capture_output=True, text=True, check=True).stdout
    import json
    result = json.loads(out)
    assert result == {"signed": True, "agree": True,
                      "raise_line": 'raise ValueError("line of the raise")',
                      "rewritten": True, "sample_calls": False,
                      "sample_doc": "popcount(a) and friends.",
                      "evaluate_calls": False, "evaluate_was": True}


def test_popcounts_are_left_as_calls_in_the_plain_form():
    """In the plain form (CPython's) popcount is int.bit_count itself: nothing is rewritten."""
    from engine.bitboard import SIGNED, popcount

    def plain(bb):
        return popcount(bb)

    if SIGNED:
        assert jit.for_bitboard_form(plain) is plain     # defined in a function: no top-level def
    else:
        assert jit.for_bitboard_form(plain) is plain and popcount is int.bit_count


# A module with each sign guard of engine.jit._SIGN_GUARDS as the engine writes them, and
# a line to raise on.
_GUARD_SAMPLE = '''
from engine.bitboard import BB_SQUARES, BIT63
from engine.jit import for_bitboard_form


@for_bitboard_form
def walk(b_, caps, fail=False):
    """b_ walked from its top square; caps h8 first."""
    squares, lows, several = [], [], bool(b_ & (b_ - 1) and b_ != BIT63)
    bb = b_
    while bb:
        lows.append(bb & -bb if bb != BIT63 else bb)
        bb ^= lows[-1]
    while b_:
        sq = b_.bit_length() - 1 if b_ > 0 else 63
        b_ ^= BB_SQUARES[sq]
        squares.append(sq)
    if caps < 0:        # h8 first, as the walk from the top below would
        caps ^= BIT63
        squares.append(63)
    while caps:
        sq = caps.bit_length() - 1
        caps ^= BB_SQUARES[sq]
        squares.append(sq)
    if fail:
        raise ValueError("line of the raise")
    return squares, lows, several
'''


def _compares(function):
    import dis
    return sum(1 for i in dis.get_instructions(function) if i.opname == "COMPARE_OP")


def test_sign_guards_are_dropped_in_the_plain_form_and_walk_the_same(tmp_path, monkeypatch):
    """In the plain form (CPython's) a function under for_bitboard_form is compiled again
    without the tests for h8 alone: it finds the same squares, lowest bits and "two or
    more" answers as the original for every bitboard, h8 included, with fewer comparisons,
    and keeps its docstring and the lines its tracebacks name."""
    from engine.bitboard import SIGNED, BIT63, to_bitboard
    if SIGNED:
        return      # PyPy: the signed form keeps its guards (next test)
    (tmp_path / "guard_sample.py").write_text(_GUARD_SAMPLE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import guard_sample
    walk = guard_sample.walk
    assert walk is not walk.__wrapped__ and walk.__doc__ == walk.__wrapped__.__doc__
    assert _compares(walk) == _compares(walk.__wrapped__) - 4
    import random
    rng = random.Random(11)
    values = [to_bitboard(rng.getrandbits(64)) for _ in range(300)]
    values += [0, 1, BIT63, BIT63 | 1, BIT63 | (1 << 62), to_bitboard((1 << 64) - 1)]
    for a in values:
        for caps in (0, BIT63, BIT63 | 5, a & 0xFFFF):
            assert walk(a, caps) == walk.__wrapped__(a, caps)
    try:
        walk(1, 0, fail=True)
    except ValueError:
        import traceback
        assert traceback.extract_tb(sys.exc_info()[2])[-1].line == 'raise ValueError("line of the raise")'


def test_every_sign_guard_of_the_hot_functions_is_dropped():
    """The move generators, the exchange evaluator and the evaluation carry for_bitboard_form:
    in the plain form none of them loads BIT63 any more and each has fewer comparisons,
    and the rewrite of each one's source leaves no guard as the engine writes them (a new
    guard written another way would stay, costing CPython its comparison)."""
    import dis
    import inspect
    import re
    from engine.bitboard import SIGNED
    from engine.evaluate import _evaluate_terms
    from engine.movegen import _king_danger, _king_moves, generate_captures, generate_moves
    from engine.ordering import see_ge
    for function in (_king_danger, _king_moves, generate_moves, generate_captures, see_ge,
                     _evaluate_terms):
        original = getattr(function, "__wrapped__", function)
        if not SIGNED:
            assert function is not original, function.__name__
            assert not any(i.argval == "BIT63" for i in dis.get_instructions(function))
            assert _compares(function) < _compares(original)
        text, count = jit.drop_sign_guards(inspect.getsource(original))
        assert count >= 1, function.__name__
        code = "\n".join(line.split("#")[0] for line in text.split("\n"))
        assert not re.search(r"else 63|!= BIT63", code), function.__name__
        assert all("if False:" in line for line in text.split("\n") if "# h8 first" in line)


_SIGNED_FORM_CHILD = r'''
import json
import engine.movegen, engine.ordering
print(json.dumps([hasattr(f, "__wrapped__") for f in (engine.movegen.generate_moves,
                  engine.movegen._king_danger, engine.ordering.see_ge)]))
'''


def test_sign_guards_stay_in_the_signed_form():
    """In the signed form (PyPy's; BASILISK_SIGNED_BITBOARDS=1 here) the guards are needed:
    for_bitboard_form leaves each function as it is."""
    env = dict(os.environ, BASILISK_SIGNED_BITBOARDS="1")
    out = subprocess.run([sys.executable, "-c", _SIGNED_FORM_CHILD], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[false, false, false]"


_PLAIN_ONLY_SAMPLE = '''
from engine.jit import for_bitboard_form


@for_bitboard_form
def count(bb, table):
    """How many of the tests let their body run."""
    ran = 0
    if bb:                                  # plain form only
        ran += 1
    if table[1:2] == [bb]:                  # plain form only
        ran += 1
    if bb:
        ran += 10
    return ran
'''


def test_plain_only_tests_are_true_in_the_signed_form_only(tmp_path):
    """A test marked "# plain form only" skips its body in the plain form (CPython's) as
    written; in the signed form (PyPy's) it is True, so the body always runs there.  An
    unmarked test is asked in both forms; a colon inside the test is no end of it."""
    text, count = jit.keep_plain_only_bodies(_PLAIN_ONLY_SAMPLE)
    assert count == 2 and text.count("if True:") == 2 and "    if bb:\n        ran += 10" in text
    (tmp_path / "plain_only_sample.py").write_text(_PLAIN_ONLY_SAMPLE)
    child = ("import plain_only_sample as s, engine.bitboard as b; "
             "print(b.SIGNED, s.count(0, [5, 7]), s.count(7, [5, 7]))")
    forms = set()
    for signed in ("0", "1"):       # PyPy runs the signed form whatever the variable says
        env = dict(os.environ, BASILISK_SIGNED_BITBOARDS=signed,
                   PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT]))
        form, *answers = subprocess.run([sys.executable, "-c", child], cwd=ROOT, env=env,
                                        capture_output=True, text=True, check=True).stdout.split()
        assert answers == (["2", "12"] if form == "True" else ["0", "12"])
        forms.add(form)
    assert "True" in forms


def test_the_evaluation_marks_its_plain_only_tests():
    """The evaluation's shortcuts for CPython (the push-threat reach, outposts, threats) are
    marked, so PyPy computes those terms without the branches."""
    import inspect
    from engine.evaluate import _evaluate_terms
    source = inspect.getsource(getattr(_evaluate_terms, "__wrapped__", _evaluate_terms))
    text, count = jit.keep_plain_only_bodies(source)
    assert count >= 6
    assert all("if True:" in line for line in text.split("\n")
               if line.strip().startswith("if") and "# plain form only" in line)


# A loop over literal rows marked to be written out, each kind of value a row may hold: a
# name, a constant, a negated constant and an expression (assigned first).
_UNROLL_SAMPLE = '''
from engine.jit import for_bitboard_form


@for_bitboard_form
def sides(a, b, table):
    """Each row's sum, kept by its index."""
    out = [0, 0]
    if a < 0 and a != -1:       # a sign guard to drop, so the plain form is compiled again
        a = -a
    first_a, first_b = table
    for (us, sign, own, both, first) in (  # unrolled in the plain form
            (0, 1, a, a + b, first_a),
            (1, -1, b, a * b, first_b)):
        total = own
        k = 0
        while k < both:
            total += sign * first
            k += 1
        out[us] = total
    if a == 99:
        raise ValueError("line of the raise")
    return out
'''


def _loops(function):
    import dis
    return sum(1 for i in dis.get_instructions(function) if i.opname == "FOR_ITER")


def test_a_marked_loop_is_written_out_in_the_plain_form(tmp_path, monkeypatch):
    """In the plain form (CPython's) the marked loop is written out row by row (no loop is
    left), and the function answers as written, tracebacks naming its own lines; in the
    signed form the loop stays."""
    from engine.bitboard import SIGNED
    (tmp_path / "unroll_sample.py").write_text(_UNROLL_SAMPLE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import unroll_sample
    sides = unroll_sample.sides
    original = getattr(sides, "__wrapped__", sides)        # the signed form: not compiled again
    assert _loops(original) == 1
    assert _loops(sides) == (1 if SIGNED else 0)
    for a in range(-3, 6):
        for b in range(0, 5):
            assert sides(a, b, [3, 5]) == original(a, b, [3, 5]), (a, b)
    try:
        sides(99, 0, [0, 0])
    except ValueError:
        import traceback
        assert traceback.extract_tb(sys.exc_info()[2])[-1].line == 'raise ValueError("line of the raise")'


def test_a_marked_loop_that_cannot_be_written_out_is_refused():
    """A marked loop whose body reassigns a row's name or a name a row reads, leaves the
    loop early, or whose rows call or subscript, or one inside another, is an error at
    import rather than a silently different function (the loop makes all its rows first)."""
    import pytest
    head = ("def f(x, out):\n    for (a, b) in (  # unrolled in the plain form\n"
            "            (1, x), (2, x)):\n")
    for body in ("        a += 1\n", "        if b:\n            break\n",
                 "        x = b + a\n"):
        with pytest.raises(SyntaxError):
            jit.unroll_marked_loops(head + body)
    for rows in ("(1, x[0]), (2, x[1])", "(1, len(x)), (2, 0)"):
        with pytest.raises(SyntaxError):
            jit.unroll_marked_loops(head.replace("(1, x), (2, x)", rows) + "        pass\n")
    with pytest.raises(SyntaxError):        # one marked loop inside another
        jit.unroll_marked_loops(head + head.split("\n", 1)[1].replace("    ", "        ", 1)
                                .replace("            (", "                (")
                                .replace("(a, b)", "(c, d)") + "            pass\n")
    source = head + "        y = b + a\n        out.append(y)\n    return out\n"
    tree, count = jit.unroll_marked_loops(source)
    written, looped = {}, {}
    exec(compile(tree, "<unrolled>", "exec"), written)
    exec(source, looped)
    assert count == 1 and written["f"](10, []) == looped["f"](10, []) == [11, 12]


def _unpacks(function):
    import dis
    return sum(1 for i in dis.get_instructions(function) if i.opname == "UNPACK_SEQUENCE")


def test_the_hot_functions_write_out_their_marked_loops():
    """The evaluation's loop over the two sides and the generators' loops over the two
    pawn-capture directions are marked: in the plain form each is written out (its rows no
    longer unpacked, and the evaluation has no loop left); the signed form keeps them."""
    import inspect
    from engine.bitboard import SIGNED
    from engine.evaluate import _evaluate_terms
    from engine.movegen import generate_captures, generate_moves
    assert _loops(_evaluate_terms.__wrapped__) == 1
    assert _loops(_evaluate_terms) == (1 if SIGNED else 0)
    for function in (_evaluate_terms, generate_moves, generate_captures):
        original = getattr(function, "__wrapped__", function)    # signed: maybe as written
        assert jit.unroll_marked_loops(inspect.getsource(original))[1] == 1, function.__name__
        assert _unpacks(function) == _unpacks(original) - (0 if SIGNED else 1), function.__name__


# Module constants of each kind, and names that look like constants but must stay globals
# (a nested tuple, a list, a lowercase name, a parameter, a name the function assigns).
_FOLD_SAMPLE = '''
from engine.jit import for_bitboard_form

FLAG = 0
WEIGHT = 7
TABLE = (1, 2, 3, 4)
NESTED = ((1, 2), (3, 4))
LIST_TABLE = [10, 20]
lower = 100
SHADOWED = 1000
BIT = 1 << 63


@for_bitboard_form
def score(b_, PARAM=5):
    """A sum of what it reads."""
    if b_ < 0 and b_ != -1:     # a sign guard, so the plain form is compiled again
        b_ = -b_
    total = WEIGHT + TABLE[3] + LIST_TABLE[1] + lower + PARAM + (b_ & BIT > 0) + NESTED[0][0] - 1
    if FLAG:
        total += no_such_name       # compiled out where FLAG is folded
    SHADOWED = 1
    return total + SHADOWED
'''


def _globals_read(function):
    import dis
    return {i.argval for i in dis.get_instructions(function) if i.opname == "LOAD_GLOBAL"}


def test_module_constants_are_folded_in_the_plain_form(tmp_path, monkeypatch):
    """In the plain form (CPython's) a function reads each module constant (capitals: an
    int, a bool, a flat tuple of them) as its value at import, and an ``if`` on a false one is
    compiled out; lists, lowercase names, parameters and names it assigns stay as they are.
    A later change to the module is seen only once the function is refreshed.  The signed
    form folds nothing."""
    from engine.bitboard import SIGNED
    (tmp_path / "fold_sample.py").write_text(_FOLD_SAMPLE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import fold_sample
    score = fold_sample.score
    original = getattr(score, "__wrapped__", score)    # the signed form: maybe as written
    assert score(3) == 7 + 4 + 20 + 100 + 5 + 0 + 1 == original(3)
    assert score(1 << 63) == original(1 << 63) == 138
    if SIGNED:
        assert getattr(score, "__folded__", ()) == ()
        assert {"WEIGHT", "TABLE", "FLAG"} <= _globals_read(score)
    else:
        assert score.__folded__ == ("BIT", "FLAG", "TABLE", "WEIGHT")
        assert _globals_read(score) == {"LIST_TABLE", "lower", "NESTED"}
        assert {"WEIGHT", "FLAG", "no_such_name"} <= _globals_read(original)
    monkeypatch.setattr(fold_sample, "WEIGHT", 8)
    monkeypatch.setattr(fold_sample, "LIST_TABLE", [10, 30])
    assert score(3) == (148 if SIGNED else 147)       # the list is read at the call
    assert jit.refreshed(score)(3) == 148
    assert getattr(jit.refreshed(jit.refreshed(score)), "__wrapped__", original) is original


def test_the_hot_functions_fold_their_constants():
    """The evaluation, the move generators and the exchange evaluator read their weights,
    switches and bitboard tables as constants in the plain form: of the globals they read,
    only functions, caches (the evaluation's, the move lists'), the slider tables (lists
    of dicts) and popcount are left."""
    from engine.bitboard import SIGNED
    from engine.evaluate import _evaluate_terms
    from engine.movegen import generate_captures, generate_moves
    from engine.ordering import see_ge
    if SIGNED:
        return
    assert {"SAFE_CHECKS_ON", "MOB_KNIGHT", "KNIGHT_ATTACKS", "BB_SQUARES",
            "KING_ZONE"} <= set(_evaluate_terms.__folded__)
    import builtins
    for function in (_evaluate_terms, generate_moves, generate_captures, see_ge):
        module = sys.modules[function.__module__]
        left = {name for name in _globals_read(function)
                if not hasattr(builtins, name) and not callable(getattr(module, name))}
        assert left <= {"ROOK_TABLE", "BISHOP_TABLE", "PAWN_ATTACKS", "BETWEEN", "LINE",
                        "_pawn_cache", "_eval_keys", "_eval_scores", "_QUIET_MEMO",
                        "_CAPTURE_MEMO", "_PUSH_MEMO", "_DOUBLE_PUSH_MEMO"}, (function.__name__, left)


_CLASS_SAMPLE = '''
from engine.jit import for_plain_form, not_inlined

STEP = 3
TABLE = (10, 20)


class Base:
    def kind(self):
        return "base"


class Counter(Base):
    """Methods of each kind."""

    def __init__(self, start=STEP):
        self.value = start

    @not_inlined
    @for_plain_form
    def step(self, times=1):
        """Adds STEP times."""
        self.value += STEP * times + TABLE[1]
        return self.value

    @staticmethod
    @for_plain_form
    def table():
        return TABLE

    @for_plain_form
    def kind(self):
        return "counter of " + super().kind()

    @for_plain_form
    def fail(self):
# a comment as far left as it goes, and one as far as the def
    # (neither ends the method)
        if STEP:
            raise ValueError("line of the raise")
'''


def test_a_method_for_the_plain_form_folds_its_constants(tmp_path, monkeypatch):
    """for_plain_form compiles a method again with its module constants folded (CPython),
    a static method too, keeping docstrings and defaults; a method using super() is left as
    it is, tracebacks name the method's own lines, and refreshed_methods sees a changed
    constant.  The signed form takes each method as it is."""
    from engine.bitboard import SIGNED
    (tmp_path / "class_sample.py").write_text(_CLASS_SAMPLE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import class_sample
    Counter = class_sample.Counter
    c = Counter()
    assert (c.value, c.step(2), c.table(), c.kind()) == (3, 29, (10, 20), "counter of base")
    assert Counter.step.__doc__ == "Adds STEP times." and Counter.step.__defaults__ == (1,)
    folded = {name: getattr(getattr(Counter, name), "__folded__", None)
              for name in ("step", "table", "kind", "fail")}
    if SIGNED:
        assert set(folded.values()) == {None}
    else:
        assert folded == {"step": ("STEP", "TABLE"), "table": ("TABLE",), "kind": None,
                          "fail": ("STEP",)}    # (its comments left of the body: blanked)
        assert Counter.step.__qualname__ == "Counter.step"
        assert "STEP" in _globals_read(Counter.step.__wrapped__)
        assert not _globals_read(Counter.step)
    try:
        c.fail()
    except ValueError:
        import traceback
        assert traceback.extract_tb(sys.exc_info()[2])[-1].line == 'raise ValueError("line of the raise")'
    monkeypatch.setattr(class_sample, "STEP", 100)
    assert Counter().step() == (123 if SIGNED else 26)      # the default is the one of import
    for name, method in jit.refreshed_methods(Counter).items():
        monkeypatch.setattr(Counter, name, method)
    assert Counter().step() == 123


def test_the_hot_classes_fold_their_constants():
    """The search, the position and the move orderer read their switches and tables as
    constants in the plain form."""
    from engine.bitboard import SIGNED
    from engine.ordering import MoveOrderer
    from engine.search import Searcher
    if SIGNED:
        return
    assert {"USE_LMR", "USE_FUTILITY", "LMP_BASE", "VALUE_MATE"} <= set(Searcher._moves.__folded__)
    assert {"KNIGHT_ATTACKS", "ROOK_RAYS"} <= set(Position.in_check.__folded__)
    assert hasattr(MoveOrderer.score, "__folded__")
