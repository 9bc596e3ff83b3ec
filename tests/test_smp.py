"""Threads (engine.smp): the shared table against the split one it copies, torn entries,
helper processes through the facade (they search, stop, change, and end), and the real
engine with Threads 2 in a subprocess and under python-chess: no helper outlives it."""

import os
import random
import signal
import sys
import time
from multiprocessing import shared_memory

import pytest

from engine import smp, uci
from engine.engine import Engine
from engine.movegen import generate_moves
from engine.position import Position
from engine.timeman import Limits, plan_search
from engine.tt import SharedTranspositionTable, SplitTranspositionTable, BOUND_EXACT

import chess  # noqa: E402  (the oracle: missing, the run must fail, not skip)
import chess.engine  # noqa: E402

from test_uci import ENGINE_CMD, PROMPT_MS, STOP_LIMIT_MS, Session, protocol_problems  # noqa: E402,F401

KEY_BITS = 63 if sys.implementation.name == "pypy" else 64     # engine.zobrist's key width
MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 8"


# The engine starts at most one search process per CPU it may run on (engine.uci.CORES),
# so the tests that set Threads 2 through the UCI need two of them; CI has two.
needs_two_cpus = pytest.mark.skipif(uci.CORES < 2, reason="Threads 2 needs two usable CPUs")
needs_proc = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc")


def shared_table(entries):
    buf = memoryview(bytearray(entries * SharedTranspositionTable.ENTRY_BYTES))
    return SharedTranspositionTable(buf.cast("q"), entries, buf)


# ---------------------------------------------------------------------- the shared table
def test_the_threads_option_stays_within_the_shared_blocks_node_counts():
    """Threads N runs N - 1 helpers, each counting its nodes in word 1 + index of the shared
    block's head: the option's maximum must leave every helper a word (with 65 or more
    CPUs, Threads 65 would otherwise fail every search)."""
    assert uci.MAX_THREADS - 1 <= smp.CONTROL_WORDS - 1
    assert uci.CORES <= uci.MAX_THREADS
    threads = [opt for opt in uci.OPTIONS if opt.name == "Threads"][0]
    assert threads.maximum == uci.MAX_THREADS


def test_helpers_that_cannot_start_are_reported_once(monkeypatch):
    """Where helper processes cannot start, Threads falls back to one search and says so
    once; a later Hash change does not try (and report) the helpers again."""
    def no_processes(*args, **kwargs):
        raise OSError("no processes here")

    monkeypatch.setattr(smp, "HelperPool", no_processes)
    errors = []
    engine = Engine(hash_mb=1, on_error=errors.append)
    engine.set_threads(4)
    engine.set_hash(2)
    engine.set_hash(1)
    assert engine.threads == 1 and engine.pool is None
    assert len(errors) == 1 and "cannot start helper processes" in errors[0], errors
    engine.close()


def test_shared_table_answers_as_the_split_table():
    rng = random.Random(7)
    entries = 1024
    shared = shared_table(entries)
    split = SplitTranspositionTable(1)
    split.size = entries
    split.checks, split.data = [0] * entries, [0] * entries
    keys = [rng.getrandbits(KEY_BITS) for _ in range(3000)]
    for step in range(20000):
        if step % 5000 == 0:
            shared.new_search()
            split.new_search()
        key = rng.choice(keys)
        ply = rng.randrange(0, 20)
        if rng.random() < 0.5:
            args = (key, ply, rng.choice([0, rng.getrandbits(16)]),
                    rng.choice([rng.randrange(-3000, 3000), 31990, -31990]),
                    rng.randrange(-2000, 2000), rng.randrange(-8, 40), rng.randrange(1, 4))
            shared.store(*args)
            split.store(*args)
        assert shared.probe(key, ply) == split.probe(key, ply)
    assert shared.hashfull() == split.hashfull() > 0
    shared.clear()
    assert all(shared.probe(key, 0) is None for key in keys)


def resident_bytes():
    """This process's resident set (shared pages it has touched included)."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@needs_proc
def test_a_table_no_search_has_written_is_cleared_without_touching_it():
    # the ucinewgame before a first game with Threads 2: zeroing the whole fresh block
    # committed every page of it (Hash 1024: 2.4-3.4 s before readyok, 41 MB -> 1.07 GB)
    entries = smp.table_entries(256)
    shm = shared_memory.SharedMemory(create=True, size=smp.CONTROL_WORDS * smp.WORD_BYTES
                                     + entries * smp.ENTRY_BYTES)
    try:
        _, table, release = smp._views(shm.buf, entries, True)
        before = resident_bytes()
        table.clear()
        grown = resident_bytes() - before
        # once a search has started on it, a clear still empties it
        key = 12345 << 40 | 99
        table.new_search()
        table.store(key, 0, 77, 100, 20, 5, BOUND_EXACT)
        assert table.probe(key, 0)[0] == 77
        table.clear()
        assert table.probe(key, 0) is None
        release()
    finally:
        shm.close()
        shm.unlink()
    assert grown < 16 << 20, "clearing an unwritten 256 MB table touched %d MB" % (grown >> 20)


def test_a_torn_entry_fails_its_check():
    table = shared_table(1024)
    a, b = 5 + (123 << 40), 5 + (456 << 40)         # the same slot, other positions
    table.store(a, 0, 77, 100, 20, 5, BOUND_EXACT)
    words = table.words
    assert table.probe(a, 0)[0] == 77
    # another writer's data lands beside a's check word (two processes storing at once)
    other = shared_table(1024)
    other.store(b, 0, 99, 300, 0, 9, BOUND_EXACT)
    words[2 * 5 + 1] = other.words[2 * 5 + 1]
    assert table.probe(a, 0) is None and table.probe(b, 0) is None


def test_helper_depth_skipping_keeps_helpers_apart():
    # helper 0 leaves out every other depth, helper 1 the others: they never overlap
    first, second = smp.skip_rule(0, 10), smp.skip_rule(1, 10)
    for depth in range(2, 30):
        assert first(depth) != second(depth)
    assert [smp.skip_rule(2, 0)(d) for d in range(2, 10)].count(True) == 4


def line(move, depth, score=None, mate=None):
    out = {"depth": depth, "pv": [move, 999]}
    out.update({"score": score} if mate is None else {"mate": mate})
    return out


def test_the_vote_among_lines():
    main = line(1, 10, 20)
    assert smp.pick_line([main, line(1, 12, 90)]) is main             # the same move
    assert smp.pick_line([main, line(2, 11, 10)]) is main             # lower, hardly deeper
    deeper = line(2, 11, 30)
    assert smp.pick_line([main, deeper]) is deeper                    # higher and deeper
    assert smp.pick_line([main, line(2, 5, 30)]) is main              # higher but shallow
    mate = line(2, 5, mate=3)
    assert smp.pick_line([main, mate]) is mate                        # a mate wins outright
    assert smp.pick_line([line(1, 9, mate=2), mate])["pv"][0] == 1    # the shorter mate
    assert smp.pick_line([main, line(2, 30, mate=-4)]) is main        # never a mated line
    # three lines: two votes for move 2 outweigh one better line for move 1
    a, b, c = line(1, 10, 25), line(2, 10, 20), line(2, 10, 20)
    assert smp.pick_line([a, b, c])["pv"][0] == 2


def test_a_helpers_line_is_shown_before_it_is_played():
    from engine.engine import SearchJob

    class Pool:
        lines = []

    pos = Position(MIDDLEGAME)
    legal = generate_moves(pos)
    limits = Limits()
    limits.depth = 5
    shown = []
    job = SearchJob(Engine(hash_mb=1), pos, limits, plan_search(limits, pos.turn, len(legal)),
                    legal, 1, False, shown.append, None)
    main = dict(line(legal[0], 8, 15), seldepth=12, multipv=1, nodes=100, nps=1, time=1,
                hashfull=0, bound=None)
    main["pv"] = [legal[0]]
    job.last_line = main
    Pool.lines = [dict(line(legal[1], 9, 40), seldepth=14)]
    Pool.lines[0]["pv"] = [legal[1]]
    job.searcher.nodes = 5000               # what the main search spent
    assert job.vote(legal[0], 0, Pool) == (legal[1], 0)
    assert shown[-1]["pv"] == [legal[1]] and shown[-1]["depth"] == 9 and shown[-1]["score"] == 40
    assert "mate" not in shown[-1] and shown[-1]["multipv"] == 1
    # with the whole search's cost: its nodes, and a rate that agrees with them and the
    # time (a whole ms, truncated), not the main line's
    played = shown[-1]
    assert played["nodes"] == job.searcher.nodes == 5000
    assert 5000 * 1000 / (played["time"] + 1) <= played["nps"] <= 5000 * 1000 / max(played["time"], 1)
    # an illegal helper move never counts; the main move stands when its line was cut short
    Pool.lines = [dict(line(12345, 20, 500), seldepth=20)]
    assert job.vote(legal[0], 0, Pool) == (legal[0], 0)
    Pool.lines = [dict(line(legal[1], 9, 40), seldepth=14)]
    assert job.vote(legal[2], 0, Pool) == (legal[2], 0)


# ---------------------------------------------------------------------- through the facade
def go(engine, fen, depth=None, nodes=None, infinite=False):
    pos = Position(fen)
    limits = Limits()
    limits.depth, limits.nodes, limits.infinite = depth, nodes, infinite
    legal = generate_moves(pos)
    infos, result = [], []
    engine.go(pos, limits, plan_search(limits, pos.turn, len(legal)), legal,
              on_info=infos.append, on_bestmove=lambda best, ponder: result.append(best))
    return infos, result


@pytest.fixture
def threaded():
    errors = []
    engine = Engine(hash_mb=8, on_error=errors.append)
    engine.set_threads(2)
    assert engine.wait_ready(60)
    yield engine, errors
    pool = engine.pool
    engine.close()
    if pool is not None:
        assert all(proc.poll() is not None for proc in pool.procs)


def test_helpers_search_and_stop(threaded):
    engine, errors = threaded
    pool = engine.pool
    assert pool.helpers == 1 and engine.searcher.tt is pool.table
    # Hash is the total: the one shared block holds the table of 8 MB
    assert pool.entries * smp.ENTRY_BYTES <= 8 * 1024 * 1024 < (pool.entries + 1) * smp.ENTRY_BYTES
    assert pool.shm.size >= smp.CONTROL_WORDS * smp.WORD_BYTES + pool.entries * smp.ENTRY_BYTES
    infos, result = go(engine, MIDDLEGAME, depth=9)
    assert engine.wait_idle(120)
    board = chess.Board(MIDDLEGAME)
    assert len(result) == 1 and chess.Move.from_uci(_uci(result[0])) in board.legal_moves
    # the helper searched too: the reported nodes are more than the main search's own
    assert infos[-1]["nodes"] > engine.searcher.nodes
    # stop ends the helpers' search as well; they stay alive for the next one
    infos, result = go(engine, MIDDLEGAME, infinite=True)
    time.sleep(1.0)
    engine.stop()
    assert engine.wait_idle(10) and len(result) == 1
    assert pool.collect(10)                     # a helper may answer after the bestmove
    assert pool.active == [] and pool.control[0] == 0
    assert all(proc.poll() is None for proc in pool.procs)
    assert errors == []


def test_a_search_started_before_its_helpers_are_ready_takes_them_when_they_are():
    """`setoption name Threads value 2` and then `go` with no `isready` between (python-chess
    sends none when options change within a game): the helper, still starting when the
    search began, joins it once ready (between the search's iterations), not only the next
    search."""
    errors = []
    engine = Engine(hash_mb=8, on_error=errors.append)
    try:
        engine.set_threads(2)
        pool = engine.pool
        infos, result = go(engine, MIDDLEGAME, infinite=True)
        deadline = time.monotonic() + 30
        while pool.helper_nodes() == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pool.active == [0] and pool.waiting == []
        assert pool.helper_nodes() > 0          # it searches this search
        engine.stop()
        assert engine.wait_idle(10) and len(result) == 1
        assert pool.collect(10)
        assert errors == []
    finally:
        engine.close()


def _uci(move):
    from engine.notation import move_to_uci
    return move_to_uci(move)


def timed_go(engine, movetime):
    """Start `go movetime`; a list that gets the seconds from the go to its bestmove."""
    pos = Position(MIDDLEGAME)
    limits = Limits()
    limits.movetime = movetime
    legal = generate_moves(pos)
    result = []
    start = time.perf_counter()
    engine.go(pos, limits, plan_search(limits, pos.turn, len(legal), start=start), legal,
              on_bestmove=lambda best, ponder: result.append(time.perf_counter() - start))
    return result


def wait_for(result, seconds=5):
    waited = time.perf_counter() + seconds
    while not result and time.perf_counter() < waited:
        time.sleep(0.002)
    assert result, "no bestmove"
    return result[0]


def helper_stopped_during(engine, movetime, after):
    """A `go movetime` whose helper is stopped by SIGSTOP ``after`` seconds into it:
    (the list that gets the seconds to its bestmove, the stopped helper)."""
    result = timed_go(engine, movetime)
    time.sleep(after)
    helper = engine.pool.procs[0]
    os.kill(helper.pid, signal.SIGSTOP)
    return result, helper


def resume(helper):
    if helper.poll() is None:                   # not replaced (killed) meanwhile
        os.kill(helper.pid, signal.SIGCONT)


def test_a_late_helper_does_not_hold_back_a_timed_bestmove(threaded):
    """A helper the OS does not run when the search's time is up (here: stopped by a signal)
    would make the move wait for it; the bestmove goes after a short grace, and the helper
    is waited for (not replaced) once it answers: it joins the next search."""
    engine, errors = threaded
    pool = engine.pool
    result, helper = helper_stopped_during(engine, 400, 0.1)
    try:
        seconds = wait_for(result)
    finally:
        resume(helper)
    print("\nmovetime 400 with the helper stopped: bestmove after %.0f ms" % (seconds * 1000))
    # waiting for the helper would take STOP_WAIT_SECONDS (1 s) beyond the 400 ms
    assert seconds < 0.4 + smp.STOP_WAIT_SECONDS / 2
    assert engine.wait_idle(10) and pool.control[0] == 0
    time.sleep(0.2)                             # the helper answers the stop it was sent
    infos, best = go(engine, MIDDLEGAME, depth=5)
    assert engine.wait_idle(60) and len(best) == 1
    assert pool.collect(10)                     # it answers this search too, in time
    assert pool.procs[0] is helper and helper.poll() is None and errors == []
    assert pool.late == {} and pool.active == []


def test_a_silent_helper_delays_no_search_and_is_replaced(threaded):
    """A helper that stays stopped: the next search starts at once without waiting for it
    (its clock runs from the go), and a search after STOP_WAIT_SECONDS replaces it."""
    engine, errors = threaded
    pool = engine.pool
    result, helper = helper_stopped_during(engine, 200, 0.05)
    try:
        first = wait_for(result)
        second = wait_for(timed_go(engine, 300))    # sent the moment the bestmove came
        assert engine.wait_idle(10)
        print("\nwith the helper stopped: bestmove after %.0f ms, then %.0f ms"
              % (first * 1000, second * 1000))
        assert second < 0.3 + smp.STOP_WAIT_SECONDS / 2 and errors == []
        assert 0 in pool.late and pool.procs[0] is helper
        time.sleep(smp.STOP_WAIT_SECONDS)
        wait_for(timed_go(engine, 100))
        assert engine.wait_idle(10)
    finally:
        resume(helper)
    assert errors == ["helper 1 did not stop; starting a new one"]
    assert pool.procs[0] is not helper and helper.wait(5) is not None
    assert engine.wait_ready(60)
    infos, best = go(engine, MIDDLEGAME, depth=5)
    assert engine.wait_idle(60) and len(best) == 1
    assert pool.collect(10) and pool.late == {}   # the new helper answers this search


def test_a_helper_ended_by_a_group_signal_is_replaced_by_the_next_search(threaded):
    """SIGTERM to the whole process group (a GUI or service manager ending the engine) ends
    the helpers as well: the search that finds one gone starts no new one, since this
    process is ending too; the next search, if one comes, does."""
    engine, errors = threaded
    pool = engine.pool
    helper = pool.procs[0]
    infos, result = go(engine, MIDDLEGAME, infinite=True)
    time.sleep(0.3)
    os.kill(helper.pid, signal.SIGTERM)
    assert helper.wait(5) == -signal.SIGTERM
    engine.stop()
    assert engine.wait_idle(10) and len(result) == 1
    pool.collect(1.0)
    assert errors == [] and pool.procs[0] is helper and pool.signalled == {0: signal.SIGTERM}
    started = time.monotonic()
    assert not engine.wait_ready(5)             # it will never say it is ready: not waited for
    assert time.monotonic() - started < 1
    infos, result = go(engine, MIDDLEGAME, depth=5)
    assert engine.wait_idle(60) and len(result) == 1
    assert errors == ["helper 1 was ended by SIGTERM; starting a new one"]
    assert pool.procs[0] is not helper and pool.signalled == {}
    assert engine.wait_ready(60)


def test_node_limited_search_is_one_process(threaded):
    engine, errors = threaded
    alone = Engine(hash_mb=8)
    # the same entries as the main process's shared table (a plain table of 8 MB has fewer,
    # so its index collisions, and with them the tree, may differ)
    alone.searcher.set_table(SplitTranspositionTable(engine.searcher.tt.mb))
    assert alone.searcher.tt.size == engine.searcher.tt.size
    ours, _ = go(engine, MIDDLEGAME, nodes=3000)
    assert engine.wait_idle(60)
    theirs, _ = go(alone, MIDDLEGAME, nodes=3000)
    assert alone.wait_idle(60)
    assert [(i["depth"], i["nodes"], i["pv"]) for i in ours] == \
        [(i["depth"], i["nodes"], i["pv"]) for i in theirs]
    assert errors == []


def test_threads_change_between_searches():
    fresh = Engine(hash_mb=4)
    engine = Engine(hash_mb=4)
    for threads in (2, 1, 3, 2):
        engine.set_threads(threads)
        assert engine.threads == threads
        assert (engine.pool is None) == (threads == 1)
        if engine.pool is not None:
            assert engine.pool.helpers == threads - 1 and engine.wait_ready(60)
        _, result = go(engine, MIDDLEGAME, depth=6)
        assert engine.wait_idle(60) and len(result) == 1
    engine.set_hash(2)                          # a new size: a new shared block
    assert engine.pool.entries == smp.table_entries(2)
    old = engine.pool
    engine.set_threads(1)                       # back to one: exactly today's search
    assert all(proc.poll() is not None for proc in old.procs)
    assert type(engine.searcher.tt) is type(fresh.searcher.tt)
    engine.set_hash(4)
    engine.new_game()
    # one after the other: two searches at once in one process would share its evaluation
    # cache, whose key and score are two stores a thread switch can come between
    a, _ = go(engine, MIDDLEGAME, depth=7)
    assert engine.wait_idle(60)
    b, _ = go(fresh, MIDDLEGAME, depth=7)
    assert fresh.wait_idle(60)
    assert [(i["nodes"], i["pv"]) for i in a] == [(i["nodes"], i["pv"]) for i in b]


@pytest.mark.parametrize("threads_first", [True, False])
def test_threads_and_hash_set_during_a_search_both_apply_after_it(threads_first):
    engine = Engine(hash_mb=4)
    _, result = go(engine, MIDDLEGAME, infinite=True)
    time.sleep(0.2)
    changes = [lambda: engine.set_threads(2), lambda: engine.set_hash(8)]
    for change in changes if threads_first else changes[::-1]:
        change()
    assert engine.threads == 1 and engine.pool is None      # not during the search
    engine.stop()
    assert engine.wait_idle(10) and len(result) == 1
    try:
        assert engine.settle()                  # what `isready` asks: before any next go
        assert engine.threads == 2 and engine.pool is not None and engine.pool.helpers == 1
        assert engine.pool.hash_mb == 8 and engine.pool.entries == smp.table_entries(8)
        engine.set_hash(2)                      # idle now: at once
        assert engine.pool.hash_mb == 2 and engine.pending == []
        _, result = go(engine, MIDDLEGAME, depth=3)
        assert engine.wait_idle(60) and len(result) == 1
    finally:
        engine.close()


@needs_proc
@needs_two_cpus
def test_threads_set_during_a_search_start_by_the_next_isready():
    """The README: set during a search, Threads apply when it ends, and the next `isready`
    waits for the helpers (not the next `go`, whose clock would pay for their start)."""
    s = Session()
    s.send("uci")
    s.expect("uciok")
    s.send("go infinite")
    time.sleep(0.3)
    s.send("setoption name Threads value 2")
    time.sleep(0.3)
    assert helper_pids(s.proc.pid) == []
    s.send("stop")
    s.bestmove()
    s.sync(60)
    assert len(helper_pids(s.proc.pid)) == 1
    s.send("quit")
    assert s.proc.wait(10) == 0


# ---------------------------------------------------------------------- the real engine
def children(pid):
    """The pids whose parent is pid (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def helper_pids(pid):
    out = []
    for child in children(pid):
        try:
            with open("/proc/%d/cmdline" % child, "rb") as f:
                if b"engine.smp" in f.read():
                    out.append(child)
        except OSError:
            pass
    return out


def wait_gone(pids, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        alive = [pid for pid in pids if os.path.exists("/proc/%d" % pid)
                 and "Z" not in open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[0]]
        if not alive:
            return []
        time.sleep(0.05)
    return alive




@needs_proc
@needs_two_cpus
@pytest.mark.parametrize("ending", ["quit", "eof", "term", "quit-term", "int", "quit-int",
                                    "ctrl-c", "group-term", "kill"])
def test_no_helper_outlives_the_engine(ending):
    """However the engine ends, its helpers end too; by quit, end of input, SIGTERM (what a
    GUI sends when quit goes unanswered, also while the engine is already shutting down
    after quit, or to the whole process group) or SIGINT (Ctrl-C, which a terminal sends
    to the helpers as well) cleanly: exit status 0, nothing on stderr (no traceback, no
    leaked shared memory), and no new helper started on the way out."""
    s = Session()
    s.send("uci")
    s.expect("uciok")
    s.send("setoption name Threads value 2")
    s.sync(60)
    s.send("position fen " + MIDDLEGAME)
    s.send("go infinite")
    time.sleep(0.5)
    helpers = helper_pids(s.proc.pid)
    assert len(helpers) == 1
    if ending == "quit":
        s.send("quit")
    elif ending == "eof":
        s.proc.stdin.close()
    elif ending == "kill":
        os.kill(s.proc.pid, signal.SIGKILL)
    else:                               # a signal, right behind `quit` for "quit-..."
        if ending.startswith("quit-"):
            s.send("quit")
            time.sleep(0.03)
        signum = signal.SIGTERM if ending.endswith("term") else signal.SIGINT
        for pid in (helpers if ending in ("ctrl-c", "group-term") else []) + [s.proc.pid]:
            os.kill(pid, signum)
    s.proc.wait(10)
    assert wait_gone(helpers, 10) == []
    if ending != "kill":
        assert s.proc.returncode == 0
        assert s.all_stderr() == ""     # a resource tracker would warn after the engine is gone
        assert not [line for line in s.transcript if "helper" in line], s.transcript[-5:]


def test_a_pool_that_fails_to_start_frees_its_block(monkeypatch):
    """Failing while it maps its views (here by an interrupt, as Ctrl-C gives one to an
    in-process user), a new HelperPool still unlinks the block it created."""
    created = []
    real = smp.shared_memory.SharedMemory

    def recording(*args, **kwargs):
        shm = real(*args, **kwargs)
        created.append(shm.name)
        return shm

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(smp.shared_memory, "SharedMemory", recording)
    monkeypatch.setattr(smp, "_views", interrupted)
    with pytest.raises(KeyboardInterrupt):
        smp.HelperPool(1, 1)
    assert len(created) == 1
    with pytest.raises(FileNotFoundError):
        smp._attach(created[0])


def test_a_helper_whose_block_is_gone_ends_quietly():
    """A helper that starts after its pool was closed (a SIGTERM right behind `setoption
    name Threads`) finds no block: it ends with status 0 and nothing on the shared stderr."""
    import subprocess
    out = subprocess.run([sys.executable, "-c", smp.HELPER_COMMAND,
                          "psm_basilisk_gone", "1024", "0"], stdin=subprocess.DEVNULL,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stderr == ""


def test_a_helper_ignores_ctrl_c_from_its_first_line(tmp_path):
    """Ctrl-C reaches a helper too (one process group); it must not end it with a traceback
    on the shared stderr, also while its imports build their tables.  Here a stand-in
    engine.smp sends that SIGINT during its own import."""
    import subprocess
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "__init__.py").write_text("")
    (tmp_path / "engine" / "smp.py").write_text(
        "import os, signal, time\n"
        "os.kill(os.getpid(), signal.SIGINT)\n"
        "time.sleep(0.2)\n"
        "def helper_main():\n"
        "    print('helper ran')\n")
    out = subprocess.run([sys.executable, "-c", smp.HELPER_COMMAND], cwd=str(tmp_path),
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
                         # SIGINT as a terminal gives it, whatever pytest was started with
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert (out.returncode, out.stdout, out.stderr) == (0, "helper ran\n", "")


def test_an_abandoned_engine_leaves_no_shared_block():
    """The exit that cannot wait for a stuck job (uci.main's os._exit) unlinks the block
    first; the pool's own close() afterwards is still safe."""
    engine = Engine(hash_mb=1)
    engine.set_threads(2)
    name = engine.pool.shm.name
    engine.abandon()
    with pytest.raises(FileNotFoundError):
        smp._attach(name)
    engine.close()
    assert engine.pool is None


@needs_two_cpus
def test_stop_latency_with_helpers():
    s = Session()
    s.send("uci")
    s.expect("uciok")
    s.send("setoption name Threads value 2")
    s.sync(60)
    latencies = []
    for fen in (chess.STARTING_FEN, MIDDLEGAME, "8/5pk1/6p1/8/3R4/6P1/5PK1/1r6 b - - 0 40"):
        s.send("position fen " + fen)
        s.send("go infinite")
        time.sleep(0.6)
        s.sync()
        start = time.perf_counter()
        s.send("stop")
        move, _, _ = s.bestmove()
        latencies.append((time.perf_counter() - start) * 1000)
        assert chess.Move.from_uci(move) in chess.Board(fen).legal_moves
    print("\nThreads 2: stop -> bestmove (ms): %s" % " ".join("%.1f" % t for t in latencies))
    assert min(latencies) < STOP_LIMIT_MS
    assert max(latencies) < PROMPT_MS
    s.close()
    assert "error" not in "".join(s.stderr)


@needs_two_cpus
def test_threads_under_python_chess(protocol_problems):
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE_CMD)
    try:
        assert engine.options["Threads"].default == 1
        assert engine.options["Threads"].min == 1
        engine.configure({"Threads": 2, "Hash": 8})
        board = chess.Board()
        for _ in range(6):
            result = engine.play(board, chess.engine.Limit(time=0.2), info=chess.engine.INFO_ALL)
            assert result.move in board.legal_moves
            board.push(result.move)
        info = engine.analyse(board, chess.engine.Limit(depth=6))
        assert info["depth"] >= 6 and info["nodes"] > 0
        engine.configure({"Threads": 1})
        assert engine.play(board, chess.engine.Limit(nodes=500)).move in board.legal_moves
    finally:
        engine.quit()
    assert protocol_problems == []


@needs_proc
def test_threads_above_the_cpus_are_accepted_and_capped_at_them(protocol_problems):
    """Threads is declared up to MAX_THREADS whatever the machine, so a client's setting
    (lichess-bot's default config asks for 2) is never refused; the engine says how many
    processes it runs, one per usable CPU, and searches with them."""
    asked = uci.CORES + 1
    s = Session()
    s.send("uci")
    s.expect("uciok")
    s.send("setoption name Threads value %d" % asked)
    lines = s.sync(60)
    assert "info string Threads %d: %d usable CPU" % (asked, uci.CORES) in "\n".join(lines), lines
    assert len(helper_pids(s.proc.pid)) == uci.CORES - 1
    s.send("position startpos")
    s.send("go depth 4")
    move, _, _ = s.bestmove(30)
    assert chess.Move.from_uci(move) in chess.Board().legal_moves
    s.send("quit")
    assert s.proc.wait(10) == 0
    # python-chess checks a value against the declared range before it sends it
    engine = chess.engine.SimpleEngine.popen_uci(ENGINE_CMD)
    try:
        assert engine.options["Threads"].max == uci.MAX_THREADS
        engine.configure({"Threads": asked})
        assert engine.play(chess.Board(), chess.engine.Limit(depth=3)).move
    finally:
        engine.quit()
    assert protocol_problems == []


def test_no_room_for_the_table_means_one_thread(monkeypatch):
    class Tiny:
        f_bavail, f_frsize = 100, 4096          # 400 kB free in /dev/shm

    monkeypatch.setattr(os, "statvfs", lambda path: Tiny())
    errors = []
    engine = Engine(hash_mb=4, on_error=errors.append)
    engine.set_threads(2)
    assert engine.pool is None and engine.threads == 1
    assert len(errors) == 1 and "does not fit in /dev/shm" in errors[0] and "one" in errors[0]
    _, result = go(engine, MIDDLEGAME, depth=4)
    assert engine.wait_idle(60) and len(result) == 1


def test_threads_switches_for_ab_matches():
    import subprocess
    probe = "import engine.smp as s; print(s.USE_VOTE, s.USE_DEPTH_SKIPPING, s.skip_rule(0, 0))"
    env = dict(os.environ, BASILISK_SMP="USE_VOTE=0,USE_DEPTH_SKIPPING=0")
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.stdout.split() == ["False", "False", "None"], out.stderr
    env["BASILISK_SMP"] = "USE_VOTES=0"         # a typo stops the engine instead of being ignored
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True,
                         timeout=60)
    assert out.returncode != 0 and "unknown Threads tunable 'USE_VOTES'" in out.stderr
