"""Hints for PyPy's JIT, given from the code, and hot functions compiled for the bitboard
form of the interpreter (engine.bitboard: signed on PyPy, plain on CPython).

PyPy's JIT inlines the functions a hot loop calls into that loop's trace. A long, branchy
function inlined into many callers makes every one of their traces long, and each of its
branches becomes a bridge off each of them. So at import the engine sets PyPy's
``max_unroll_recursion`` to ``MAX_UNROLL_RECURSION`` (below): at -1 no Python function is
inlined into another's trace, and each is compiled as a trace of its own that the callers'
traces call.  ``not_inlined`` asks the same for one function; it acts only where PyPy's
default is set back (``BASILISK_JIT=MAX_UNROLL_RECURSION=7``).

Such a call is not free: the caller allocates the callee's frame, sized by its locals (about
2 KB for the evaluation), at every call.  So a cheap early exit (a cache probe) belongs in a
small function of its own, in front of the large one (engine.evaluate does this), and
``for_bitboard_form`` writes the bitboard popcount, a small function called many times, out
in place in the function that calls it.

The signed form also needs a test for h8 alone in each walk over a set; on CPython, where
they are dead, ``for_bitboard_form`` compiles the function again without them instead.
The other way round, a test that skips work only CPython gains from skipping (PyPy's JIT
makes each branch a path of its own) is marked ``# plain form only`` and tests True in the
signed form.  And a loop over literal rows of locals marked ``# unrolled in the plain form``
is written out row by row in the plain form, so CPython neither builds nor unpacks the rows
(the signed form keeps the loop).  The plain form also reads each module constant (a name
in capitals holding an int, a bool or a flat tuple of them) as a constant, not a global: its
value at import; ``for_plain_form`` does the same for a method.  Each rewrites at
import, once; ``refreshed`` does it again for a test or script that changes a constant
afterwards.
"""

import ast
import dis
import inspect
import linecache
import os
import re
import textwrap

from engine.bitboard import SIGNED, bit_count
from engine.tunables import apply_overrides

try:
    from pypyjit import dont_trace_here as _dont_trace_here, set_param as _set_param
except ImportError:         # CPython (or a PyPy without its JIT)
    _dont_trace_here = _set_param = None

# A guard that fails sends the search back to the interpreter until it has failed
# trace_eagerness times; only then is a bridge compiled for it.  TRACE_EAGERNESS takes
# effect once the process has searched EAGER_AFTER_NODES nodes (0: never, PyPy's default
# of 200 stays).  Off: 20 after 200,000 nodes gave a fresh process's first game 1.53x fewer
# nodes (docs/measurements.md, "Speed", sessions 45-46).
TRACE_EAGERNESS = 20
EAGER_AFTER_NODES = 0
# While tracing, PyPy inlines a called function into the trace unless it is already on the
# trace's stack this many times (default 7: a recursion unrolled seven deep).  At -1 each
# function is traced on its own, the usual advice for recursive code: warm `bench` 1.19x,
# the first `go movetime 1000` 1.54x against 7 (docs/measurements.md, "Speed").
MAX_UNROLL_RECURSION = -1
# BASILISK_JIT overrides the three above at import (``EAGER_AFTER_NODES=200000``,
# ``MAX_UNROLL_RECURSION=7`` for PyPy's default)
apply_overrides(globals(), os.environ.get("BASILISK_JIT", ""), "JIT tunable")
if _set_param is not None:
    _set_param("max_unroll_recursion=%d" % MAX_UNROLL_RECURSION)
# nodes until it takes effect, in a list (a module global rebound that often would undo
# PyPy's compiled code that reads it); 0: nothing left to do, as under CPython
_countdown = [EAGER_AFTER_NODES if _set_param is not None and TRACE_EAGERNESS > 0 else 0]


def nodes_searched(nodes):
    """The search reports its nodes as it goes (engine.search, every few hundred)."""
    left = _countdown[0]
    if left > 0:
        left -= nodes
        _countdown[0] = left
        if left <= 0:
            _set_param("trace_eagerness=%d" % TRACE_EAGERNESS)


def not_inlined(function):
    """Decorator: under PyPy, trace ``function`` on its own instead of inside its callers."""
    if _dont_trace_here is not None:
        _dont_trace_here(0, False, function.__code__)
    return function


# In a function's source: a comment, a string, or a popcount( call (not an attribute's)
_TOKEN = re.compile(r"#[^\n]*|'''[\s\S]*?'''|\"\"\"[\s\S]*?\"\"\"|"
                    r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|(?<![\w.])popcount\(")
_NESTING = {"(": 1, ")": -1}
# popcount(x) in the signed form (engine.bitboard): h8 is the sign bit, so count the 63 low
# bits and add one when it is set
_WRITTEN = "(bit_count((_popcount_arg := ({})) & 0x7FFFFFFFFFFFFFFF) + (_popcount_arg < 0))"


def _write_out_popcounts(text):
    """text with each popcount(...) call written out; (text, how many)."""
    out = []
    done = count = 0
    for match in _TOKEN.finditer(text):
        if match.start() < done or not match.group().startswith("popcount("):
            continue
        depth, end = 1, match.end()
        while depth:
            if end >= len(text):
                return text, 0
            depth += _NESTING.get(text[end], 0)
            end += 1
        argument = _write_out_popcounts(text[match.end():end - 1])[0]    # popcount(popcount(...))
        out.append(text[done:match.start()])
        out.append(_WRITTEN.format(argument))
        done = end
        count += 1
    out.append(text[done:])
    return "".join(out), count


# The tests the signed form needs for h8 alone (engine.bitboard), as the engine writes them,
# and what each is in the plain form, where a bitboard is never negative and h8 is 1 << 63
# like any other square: the walk from the top bit's sign test, the lowest bit of a set, the
# "two or more squares" test, and the h8-first branch of a move loop (compiled out there).
_SIGN_GUARDS = (
    (re.compile(r"\b(\w+)\.bit_length\(\) - 1 if \1 > 0 else 63\b"), r"\1.bit_length() - 1"),
    (re.compile(r"\b(\w+) & -\1 if \1 != BIT63 else \1\b"), r"\1 & -\1"),
    (re.compile(r"\b(\w+) & \(\1 - 1\) and \1 != BIT63\b"), r"\1 & (\1 - 1)"),
    (re.compile(r"\bif \w+ < 0:(?=\s*# h8 first)"), "if False:"),
)


def drop_sign_guards(text):
    """text with each sign guard of _SIGN_GUARDS put in its plain form; (text, how many)."""
    count = 0
    for pattern, plain in _SIGN_GUARDS:
        text, n = pattern.subn(plain, text)
        count += n
    return text, count


# An if statement's test marked as worth asking in the plain form only, and what it is in
# the signed form (its body then always runs)
_PLAIN_ONLY_TEST = re.compile(r"\bif [^\n]+?:(?=[ \t]*# plain form only\b)")


def keep_plain_only_bodies(text):
    """text with each test marked "# plain form only" made True; (text, how many)."""
    return _PLAIN_ONLY_TEST.subn("if True:", text)


def _signed_form(text):
    """The signed form's rewrite: popcounts written out, plain-only tests made True."""
    text, written = _write_out_popcounts(text)
    text, kept = keep_plain_only_bodies(text)
    return text, written + kept


def for_bitboard_form(function):
    """Decorator: ``function`` compiled again from its source for the bitboard form in use.

    Signed (PyPy's): each ``popcount(x)`` call written out in place.  PyPy traces every
    Python function on its own (MAX_UNROLL_RECURSION above), so each popcount would be a
    call with a frame: written out in the evaluation, 1.10x fewer instructions a node warm,
    for at most about 60 ms more at import (docs/measurements.md, "Speed", session 60).
    And each ``if ...:  # plain form only`` becomes ``if True:`` (keep_plain_only_bodies).

    Plain (CPython's): without the tests only the signed form needs for h8
    (drop_sign_guards), each a comparison of a 64-bit int, which CPython does not
    specialise: the search 1.1% fewer instructions a node (docs/measurements.md, "Speed",
    session 89).  popcount is int.bit_count itself there and stays a call.  Each loop
    marked ``# unrolled in the plain form`` is written out (unroll_marked_loops), and the
    module constants it reads are folded in (fold_constants).

    ``function`` as it is where the source cannot be read or holds nothing to rewrite.  Put
    it beneath every other decorator: it compiles the function alone (a top-level function,
    its decorators left out)."""
    return _recompiled(function, _signed_form if SIGNED else drop_sign_guards,
                       plain=not SIGNED)


# A module constant's name: capitals (a table of lists or dicts stays a global: no constant
# can hold it)
_CONSTANT_NAME = re.compile(r"_?[A-Z][A-Z0-9_]*$")


def _constant(value):
    """An int, a bool or a flat tuple of them (a nested table would cost the import more to
    compile, for every function that folds it, than its reads gain)."""
    return type(value) in (int, bool) or (type(value) is tuple
                                          and all(type(item) in (int, bool) for item in value))


def fold_constants(tree, namespace):
    """Replace, in place, each read of a module constant (a capitals name whose value in
    ``namespace``, the function's globals, is an int, a bool or a flat tuple of them) that
    tree never binds by that value; the names folded, sorted.  CPython then loads a constant
    instead of looking up a global, and compiles ``if FLAG:`` on a constant to one branch:
    the search 1.016x fewer instructions a node for the hot functions (the bitboard tables
    made tuples), 1.008x more for the hot methods (docs/measurements.md, "Speed", session
    92).  The value is the one at import: a later assignment to the module's name is not
    seen until ``refreshed``."""
    # one pass over the tree (it runs for every hot function at import): the names read,
    # each with the node and field that hold it, and the names bound
    reads, bound = [], set()
    stack = [tree]
    while stack:
        node = stack.pop()
        if type(node) is ast.arg:
            bound.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update(alias.asname or alias.name for alias in node.names)
        for field in node._fields:
            child = getattr(node, field, None)
            for i, item in enumerate(child) if type(child) is list else ((None, child),):
                if type(item) is ast.Name:
                    if type(item.ctx) is ast.Load:
                        reads.append((node, field, i, item))
                    else:
                        bound.add(item.id)
                elif isinstance(item, ast.AST):
                    stack.append(item)
    folded, constants = set(), {}
    for node, field, i, name in reads:
        if name.id not in constants:        # a table is looked at once, not at every read
            value = namespace.get(name.id, namespace)       # (the namespace: no constant)
            constants[name.id] = (name.id not in bound and _CONSTANT_NAME.match(name.id)
                                  and _constant(value))
        if constants[name.id]:
            value = namespace[name.id]
            constant = ast.copy_location(ast.Constant(value), name)
            if i is None:
                setattr(node, field, constant)
            else:
                getattr(node, field)[i] = constant
            folded.add(name.id)
    return tuple(sorted(folded))


# A for loop over literal rows, marked on its first line, written out row by row in the plain
# form: each loop name read as its row's value (a name or a constant put in its place, any
# other expression assigned to the loop name first), so CPython builds and unpacks no rows
_UNROLL_MARK = "# unrolled in the plain form"


def _simple(node):
    """Can node stand in for a loop name wherever that name is read (a name, a constant, a
    negated constant)?"""
    return (isinstance(node, (ast.Name, ast.Constant))
            or isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub)
            and isinstance(node.operand, ast.Constant))


# What a row's value may be made of: names, constants and operators on them
_PURE_NODES = (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare,
               ast.IfExp, ast.Load, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)


def _pure(value, stored):
    """Does value read only names outside ``stored`` through operators (no call, no
    subscript or attribute, whose answer the body might change)?"""
    return all(isinstance(node, _PURE_NODES)
               and not (isinstance(node, ast.Name) and node.id in stored)
               for node in ast.walk(value))


def _read_as(statements, values):
    """statements with each read of a name in ``values`` replaced by its value, in place
    (a value node may stand in several places: compile() does not mind)."""
    def read(node):
        return (isinstance(node, ast.Name) and node.id in values
                and isinstance(node.ctx, ast.Load))

    for statement in statements:
        for node in ast.walk(statement):
            for field, child in ast.iter_fields(node):
                if read(child):
                    setattr(node, field, values[child.id])
                elif isinstance(child, list):
                    child[:] = [values[item.id] if read(item) else item for item in child]
    return statements


def _unrolled(loop, bodies):
    """The statements that run ``loop``'s body once per row (``bodies``: a separate copy of
    the body for each row), or None where it cannot be written out (not a tuple of names
    over a tuple of rows as long, an else, a break or continue, a function or class inside,
    a row's name reassigned in the body, or a row's value other than operators on names
    the body does not assign)."""
    names, rows = loop.target, loop.iter
    if (loop.orelse or not isinstance(names, ast.Tuple) or not isinstance(rows, ast.Tuple)
            or not all(isinstance(name, ast.Name) for name in names.elts)
            or not all(isinstance(row, ast.Tuple) and len(row.elts) == len(names.elts)
                       for row in rows.elts)):
        return None
    inner = [node for statement in loop.body for node in ast.walk(statement)]
    if any(isinstance(node, (ast.Break, ast.Continue, ast.FunctionDef, ast.Lambda,
                             ast.ClassDef, ast.AsyncFunctionDef)) for node in inner):
        return None
    stored = {node.id for node in inner
              if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load)}
    # the loop makes every row before its first pass: written out, a row's values are
    # read at its own pass, the same only where they read nothing the body changes
    if any(name.id in stored for name in names.elts) or not all(
            _pure(value, stored) for row in rows.elts for value in row.elts):
        return None
    statements = []
    for row, body in zip(rows.elts, bodies):
        values = {}
        for name, value in zip(names.elts, row.elts):
            if _simple(value):
                values[name.id] = value
            else:
                target = ast.copy_location(ast.Name(name.id, ast.Store()), value)
                statements.append(ast.copy_location(ast.Assign(targets=[target], value=value),
                                                    value))
        statements.extend(_read_as(body, values))
    return statements


def _marked_loops(tree, marked):
    """(statement list, index) of each for loop of tree whose first line is in marked."""
    found = []
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(node, field, None)
            if isinstance(statements, list):
                found.extend((statements, i) for i, statement in enumerate(statements)
                             if isinstance(statement, ast.For) and statement.lineno in marked)
    return found


def unroll_marked_loops(source, filename="<unrolled>"):
    """(the module AST of source with its marked loops written out, how many).  Each row
    gets its own copy of the body from a parse of its own (ast.parse is C; deep copies of
    the tree cost the evaluation's import 40 ms)."""
    tree = ast.parse(source, filename)
    marked = {number for number, line in enumerate(source.split("\n"), 1)
              if _UNROLL_MARK in line}
    loops = _marked_loops(tree, marked) if marked else []
    # from the last, so that writing one out leaves the indices of those before it
    for statements, i in sorted(loops, key=lambda place: place[1], reverse=True):
        loop = statements[i]
        if any(isinstance(node, ast.For) and node.lineno in marked
               for statement in loop.body for node in ast.walk(statement)):
            raise SyntaxError("a loop marked %r inside another (line %d)"
                              % (_UNROLL_MARK, loop.lineno))
        bodies = [loop.body]
        for _ in range(len(loop.iter.elts) - 1 if isinstance(loop.iter, ast.Tuple) else 0):
            (fresh, j), = _marked_loops(ast.parse(source, filename), {loop.lineno})
            bodies.append(fresh[j].body)
        written = _unrolled(loop, bodies)
        if written is None:
            raise SyntaxError("a loop marked %r cannot be written out (line %d)"
                              % (_UNROLL_MARK, loop.lineno))
        statements[i:i + 1] = written
    return tree, len(loops)


def _def_source(function):
    """(first, indent, text): the source of ``function``'s def statement, without its
    decorators, dedented, with comment-only lines blanked (nothing can read a marker in
    them, and a comment as far left as the def cannot break the dedent); ``first`` its
    0-based line in the file, ``indent`` the def's.  None where the source cannot be read
    or is not where the function's code says it is."""
    code = function.__code__
    lines = linecache.getlines(code.co_filename)
    first = code.co_firstlineno - 1
    while first < len(lines) and lines[first].lstrip().startswith("@"):
        first += 1                      # past the decorators (co_firstlineno is the first one's)
    head = lines[first] if first < len(lines) else ""
    if not head.lstrip().startswith("def %s(" % function.__name__):
        return None
    indent = len(head) - len(head.lstrip())
    block = [head]
    last = 0                # the block: then lines indented deeper, blank or comments only
    for line in lines[first + 1:]:
        stripped = line.lstrip()
        if stripped.startswith("#") or not stripped:
            block.append("\n")
        elif len(line) - len(stripped) > indent:
            block.append(line)
            last = len(block)
        else:
            break
    if last < 2 or max(line for _, line in dis.findlinestarts(code) if line) > first + last:
        return None
    return first, indent, textwrap.dedent("".join(block[:last]))


def _recompiled(function, rewrite, plain=False):
    """``function`` compiled again from the source that ``rewrite(source) -> (source, count)``
    makes of its own, on the lines it stands on (so tracebacks name them), with its
    docstring and defaults, and the original as ``__wrapped__``; in the plain form its
    marked loops written out and its module constants folded (``__folded__`` names them).
    ``function`` itself where its source cannot be read, it is not a top-level def, or
    nothing was rewritten."""
    found = _def_source(function)
    if found is None or found[1] or not found[0]:
        return function         # not a top-level function, or not the file it came from
    start, _, text = found
    code = function.__code__
    text, count = rewrite(text)
    # def _make(bit_count): <the function>; return it, on the lines the function stands on;
    # bit_count a closure cell (the written-out popcounts use it), no new module name
    body = "\n".join("    " + line if line else line for line in text.split("\n"))
    source = ("\n" * (start - 1) + "def _make(bit_count):\n" + body
              + "\n    return %s\n" % function.__name__)
    folded = ()
    if plain:
        source, unrolled = unroll_marked_loops(source, code.co_filename)
        folded = fold_constants(source, function.__globals__)
        count += unrolled + len(folded)
    if not count:
        return function
    made = {}
    exec(compile(source, code.co_filename, "exec"), function.__globals__, made)
    written = made["_make"](bit_count)
    written.__doc__ = function.__doc__
    written.__defaults__ = function.__defaults__
    written.__wrapped__ = function
    written.__folded__ = folded
    return written


def for_plain_form(method):
    """Decorator for a method (or any function for_bitboard_form does not suit): in the
    plain form (CPython's) ``method`` is compiled again with the module constants it reads
    folded in (fold_constants); the signed form takes it as it is.  Put it beneath every
    other decorator: they are not run again on the new function."""
    return method if SIGNED else _folded_method(method)


def _folded_method(method):
    """``method`` compiled again from its source with the module constants it reads folded
    in, on its own lines (tracebacks name them); ``method`` itself where its source cannot
    be read, it has cells, or it reads no constant."""
    found = _def_source(method)
    if found is None or method.__code__.co_freevars:
        return method       # a closure (super()), or its source is not where its code says
    first, _, text = found
    tree = ast.parse("\n" * first + text)
    folded = fold_constants(tree, method.__globals__)
    if not folded:
        return method
    made = {}
    exec(compile(tree, method.__code__.co_filename, "exec"), method.__globals__, made)
    written = made[method.__name__]
    written.__qualname__ = method.__qualname__
    written.__defaults__ = method.__defaults__
    written.__kwdefaults__ = method.__kwdefaults__
    written.__wrapped__ = method
    written.__folded__ = folded
    return written


def refreshed(function):
    """``function`` (from for_bitboard_form, or a method from for_plain_form) compiled
    again, so that its plain form reads the constants of its module as they are now: for a
    test or script that changes one after import (the engine itself sets them at import:
    BASILISK_EVAL and the like)."""
    original = getattr(function, "__wrapped__", function)
    if "." in original.__qualname__:
        return _folded_method(original) if not SIGNED else original
    return for_bitboard_form(original)


def refreshed_methods(cls):
    """{name: refreshed(method)} for each method of cls that for_plain_form compiled."""
    return {name: refreshed(method) for name, method in vars(cls).items()
            if inspect.isfunction(method) and hasattr(method, "__wrapped__")}
