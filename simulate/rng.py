"""Counter-based random numbers: every draw of a run is a pure function of (key, stream, t, index).

Why counter-based
-----------------
Common random numbers (docs/design.md, "Simulation") ask that the user's draws at step
``t`` do not depend on the policy. If draws were taken from a sequential
generator, a policy that examines fewer items would shift the stream. Here the
uniform behind "item ``e`` attracts the user at step ``t``" is

    u = splitmix64(key, counter(stream, t, e)) * 2**-53,

a fixed function of the run's 64-bit ``key``, so it is the same whichever
policy is running, whichever items are examined, in whichever order, on
whichever machine or thread. Only the draws a step actually needs are
computed (at most ``K`` per step for the cascade model), which keeps
``L = 2048`` cheap.

SplitMix64 (Steele, Lea and Flood, OOPSLA 2014; the seeding generator of
xoshiro) maps the ``i``-th counter ``x = key + (i + 1) * 0x9E3779B97F4A7C15`` through
a bijective 64-bit finaliser; its output sequence passes BigCrush. The uniform is
the top 53 bits: ``u in {0, 2**-53, ..., 1 - 2**-53}``, so ``u < w`` is a Bernoulli(w)
draw exact to 2**-53 (``w = 0`` never fires, ``w = 1`` always does).

Counters: ``i = ((t * width + index) * N_STREAMS + stream) * 256 + j``; ``width`` is
``L`` (or ``K`` for per-position draws), ``j < 256`` numbers a draw's sub-draws
(rejection sampling of Beta variates). Streams: :data:`ATTRACT` (w_t(e), the cascade
and DBN attraction of item e at step t; step 0 is the initial observation w_0),
:data:`SATISFY` (DBN satisfaction of item e), :data:`PERSIST` (DBN persistence after
position k), :data:`POLICY` (a policy's own randomness, e.g. Thompson samples; drawn
from the run's *policy* key, never the users' key).

Keys come from :class:`numpy.random.SeedSequence` (see :func:`users_keys`,
:func:`policy_keys`), so one root seed fixes everything.
"""

from __future__ import annotations

import hashlib
import json
import math

import numba
import numpy as np

from cascading_bandits.simulate.jitopts import HOT, helper

__all__ = [
    "ATTRACT",
    "SATISFY",
    "PERSIST",
    "POLICY",
    "N_STREAMS",
    "counter",
    "bits",
    "uniform",
    "uniform_py",
    "bits_py",
    "beta_draw",
    "users_keys",
    "policy_keys",
    "instance_words",
]

ATTRACT, SATISFY, PERSIST, POLICY = 0, 1, 2, 3
N_STREAMS = 4
_SUB = 256  # sub-draws per (stream, t, index)

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31, _S11 = np.uint64(30), np.uint64(27), np.uint64(31), np.uint64(11)
_ONE = np.uint64(1)
_TWO_M53 = 2.0**-53

#: tag in the users' spawn key ("USER" in ASCII), so users' and policies' streams never coincide
USERS_TAG = 0x55534552


@numba.njit(cache=True, inline="always")
def counter(stream, t, index, width, j):
    """Counter of sub-draw ``j`` of draw (``stream``, ``t``, ``index``); ``width`` items a step."""
    return np.uint64(((t * width + index) * N_STREAMS + stream) * _SUB + j)


@numba.njit(cache=True, inline="always")
def bits(key, stream, t, index, width, j):
    """The 64-bit SplitMix64 output number ``counter(stream, t, index, width, j)`` of ``key``."""
    z = key + (counter(stream, t, index, width, j) + _ONE) * _GAMMA
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@numba.njit(cache=True, inline="always")
def _unit(z):
    """The top 53 bits of the 64-bit ``z`` as a float in [0, 1) on the 2**-53 grid (through
    int64: the same value as from uint64, and a single conversion instruction)."""
    return np.float64(np.int64(z >> _S11)) * _TWO_M53


@helper(HOT)
def _uniform(key, stream, t, index, width, j):
    return _unit(bits(key, stream, t, index, width, j))


# The body is one HOT helper (compiled once, inlined by LLVM) behind an IR-inlined wrapper
# that gives it one signature: inlined in numba's IR at each of the click model's three
# call sites, the SplitMix64 chain cost about 0.5 s of a kernel's first compile, and as a
# helper called with literal streams and steps it compiled once per literal.
@numba.njit(cache=True, inline="always")
def uniform(key, stream, t, index, width, j):
    """Uniform in [0, 1) on the 2**-53 grid: the top 53 bits of :func:`bits`."""
    return _uniform(
        np.uint64(key), np.int64(stream), np.int64(t), np.int64(index), np.int64(width), np.int64(j)
    )


_MASK = (1 << 64) - 1


def bits_py(key, stream, t, index, width, j=0):
    """Pure-Python integer version of :func:`bits` (the test suite's independent copy)."""
    key = int(key)
    c = ((int(t) * int(width) + int(index)) * N_STREAMS + int(stream)) * _SUB + int(j)
    z = (key + (c + 1) * 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def uniform_py(key, stream, t, index, width, j=0):
    """Pure-Python integer version of :func:`uniform` (the test suite's independent copy)."""
    return (bits_py(key, stream, t, index, width, j) >> 11) * _TWO_M53


@numba.njit(cache=True, inline="always")
def _policy_bits(key, t, index, width, j):
    """Sub-draw ``j`` (any j >= 0) of the policy stream, 64 bits; beyond 255 the key is varied.

    ``key ^ ((j >> 8) * M2)`` without a branch: for j < 256 the xor is with 0 (the key
    itself), the same bits as testing ``j >= 256`` first, two instructions fewer a sub-draw
    (four sub-draws a Beta sample)."""
    return bits(key ^ (np.uint64(j >> 8) * _M2), POLICY, t, index, width, j & (_SUB - 1))


@numba.njit(cache=True, inline="always")
def _policy_uniform(key, t, index, width, j):
    """Sub-draw ``j`` of the policy stream as a uniform in [0, 1) (:func:`uniform`)."""
    return _unit(_policy_bits(key, t, index, width, j))


# --------------------------------------------------------------------------
# standard normal variates: the ziggurat of Marsaglia and Tsang
# --------------------------------------------------------------------------
# Marsaglia and Tsang, "The Ziggurat Method for Generating Random Variables", J. Stat.
# Software 5(8), 2000: the area under f(x) = exp(-x^2 / 2), x >= 0, is covered by ZIG_N
# layers of equal area v -- a base strip [0, r] x [0, f(r)] plus the tail beyond r, and
# rectangles [0, x_i] x [f(x_i), f(x_(i+1))] above it, x_1 = r > x_2 > ... > x_N = 0, with
# x_(i+1) = f^-1(v / x_i + f(x_i)). r is the root of "the top layer closes", x_(N-1) (1 -
# f(x_(N-1))) = v; for N = 256, r = 3.6541528853610088 (derived again in mpmath by the test
# suite, tests/simulate/test_normal_draws.py) and v = r f(r) + int_r^inf f.
# One draw of 64 bits picks the layer i (bits 0-7), the sign (bit 8) and u in [0, 1) (bits
# 11-63), independent bits (the remedy of Doornik, "An Improved Ziggurat Method to Generate
# Normal Random Samples", 2005, for the original's dependence between layer and value).
# x = u x_i is accepted at once if x < x_(i+1) (about 98.8% of draws, no transcendental
# function); else the tail (layer 0, Marsaglia's exponential method) or the wedge (one more
# uniform and one exp) decide, and a rejected point starts over. Exact, like any rejection
# sampler, up to the float64 rounding of the tables (relative 1e-16 of a layer's area).
ZIG_N = 256
ZIG_R = 3.6541528853610088


def _ziggurat_tables(n: int = ZIG_N, r: float = ZIG_R):
    """(x (n + 1,), f(x) (n + 1,)) float64: x_0 = v / f(r) (the base layer's width with
    its tail), x_1 = r, ..., x_n = 0, and f at each tabulated x; computed in mpmath at 40
    digits and rounded once, so every machine gets the same tables."""
    import mpmath as mp

    with mp.workdps(40):
        rr = mp.mpf(r)
        f = lambda x: mp.exp(-x * x / 2)  # noqa: E731
        v = rr * f(rr) + mp.sqrt(mp.pi / 2) * mp.erfc(rr / mp.sqrt(2))
        xs = [v / f(rr), rr]
        for _ in range(2, n):
            xs.append(mp.sqrt(-2 * mp.log(v / xs[-1] + f(xs[-1]))))
        xs.append(mp.mpf(0))
        x = np.array([float(a) for a in xs])
        fx = np.array([float(f(mp.mpf(a))) for a in x])  # f of the tabulated x
    return x, fx


ZIG_X, ZIG_F = _ziggurat_tables()
_LAYER = np.uint64(ZIG_N - 1)
_SIGN = np.uint64(8)


# --------------------------------------------------------------------------
# standard exponential variates: the same ziggurat for f(x) = exp(-x), x >= 0
# --------------------------------------------------------------------------
# Marsaglia and Tsang (2000), section 3: ZIG_N layers of area v = r f(r) + int_r^inf f =
# (r + 1) exp(-r), x_(i+1) = f^-1(v / x_i + f(x_i)); for N = 256, r = 7.69711747013104972
# (derived again in mpmath by tests/simulate/test_exp_draws.py). A draw past r in the base
# layer is r plus a new exponential (the tail's law, by memorylessness).
EXP_ZIG_R = 7.69711747013104972


def _exp_ziggurat_tables(n: int = ZIG_N, r: float = EXP_ZIG_R):
    """(x (n + 1,), f(x) (n + 1,)) float64 of the exponential ziggurat, laid out as
    :func:`_ziggurat_tables`' (x_0 = v / f(r) = r + 1, x_1 = r, ..., x_n = 0); mpmath at 40
    digits, rounded once."""
    import mpmath as mp

    with mp.workdps(40):
        rr = mp.mpf(r)
        v = (rr + 1) * mp.exp(-rr)
        xs = [v / mp.exp(-rr), rr]
        for _ in range(2, n):
            xs.append(-mp.log(v / xs[-1] + mp.exp(-xs[-1])))
        xs.append(mp.mpf(0))
        x = np.array([float(a) for a in xs])
        fx = np.array([float(mp.exp(-mp.mpf(a))) for a in x])
    return x, fx


EXP_ZIG_X, EXP_ZIG_F = _exp_ziggurat_tables()


# a helper, not inlined in numba's IR: IR inlining of this loop cost a second per compile
@helper(HOT)
def _normal_draw(key, t, index, width, j):
    """Standard normal by the ziggurat (above) from policy sub-draws j, j+1, ...

    Returns (draw, next unused sub-draw number); a draw takes one sub-draw 98.8% of the time.
    """
    while True:
        z = _policy_bits(key, t, index, width, j)
        j += 1
        i = np.int64(z & _LAYER)
        x = _unit(z) * ZIG_X[i]
        neg = (z >> _SIGN) & _ONE
        if x < ZIG_X[i + 1]:
            return (-x if neg else x), j
        if i == 0:  # the tail (Marsaglia): e1 = -log(U)/r, e2 = -log(U'); r + e1 if 2 e2 > e1^2
            while True:
                e1 = -math.log1p(-_policy_uniform(key, t, index, width, j)) / ZIG_R
                e2 = -math.log1p(-_policy_uniform(key, t, index, width, j + 1))
                j += 2
                if e2 + e2 > e1 * e1:
                    x = ZIG_R + e1
                    return (-x if neg else x), j
        y = ZIG_F[i] + _policy_uniform(key, t, index, width, j) * (ZIG_F[i + 1] - ZIG_F[i])
        j += 1
        if y < math.exp(-0.5 * x * x):
            return (-x if neg else x), j


@helper(HOT)
def _gamma_draw(a, key, t, index, width, j):
    """Gamma(a, 1) for a >= 1 by Marsaglia and Tsang (2000), from policy sub-draws j, j+1, ...

    Normals by the ziggurat (:func:`_normal_draw`), then one uniform for the acceptance test
    (its squeeze accepts about 98% without a logarithm). Returns (draw, next unused sub-draw
    number).
    """
    d = a - 1.0 / 3.0
    return _gamma_dc(d, 1.0 / math.sqrt(9.0 * d), key, t, index, width, j)


@helper(HOT)
def _gamma_dc(d, cc, key, t, index, width, j):
    """:func:`_gamma_draw` from its constants ``d = a - 1/3`` and ``cc = 1 / sqrt(9 d)`` (a
    sampler that keeps them per item computes them once: :mod:`.policies._ts_gamma`)."""
    while True:
        x, j = _normal_draw(key, t, index, width, j)
        u3 = 1.0 - _policy_uniform(key, t, index, width, j)  # in (0, 1]: log u3 is finite
        j += 1
        v = 1.0 + cc * x
        if v <= 0.0:
            continue
        v = v * v * v
        if u3 < 1.0 - 0.0331 * x * x * x * x:
            return d * v, j
        if math.log(u3) < 0.5 * x * x + d * (1.0 - v + math.log(v)):
            return d * v, j


@numba.njit(cache=True, no_cfunc_wrapper=True)
def beta_draw(a, b, key, t, index, width):
    """Beta(a, b) draw for a, b >= 1 as X / (X + Y), X ~ Gamma(a), Y ~ Gamma(b) (policy stream).

    A pure function of (key, t, index): the Thompson sample of item ``index`` at step ``t``.
    """
    x, j = _gamma_draw(a, key, t, index, width, np.int64(0))  # not a literal: compiled once
    y, j = _gamma_draw(b, key, t, index, width, j)
    return x / (x + y)


# --------------------------------------------------------------------------
# keys from SeedSequence
# --------------------------------------------------------------------------


def instance_words(weights) -> tuple:
    """Two 32-bit words identifying an instance's attraction probabilities (for the users' key).

    sha256 of the JSON list of the weights' ``repr``; the users of two cells share their
    draws iff their attraction probabilities are the same list.
    """
    s = json.dumps([repr(float(x)) for x in weights]).encode()
    h = hashlib.sha256(s).digest()
    return (int.from_bytes(h[:4], "little"), int.from_bytes(h[4:8], "little"))


def _key(ss: np.random.SeedSequence) -> np.uint64:
    return ss.generate_state(1, np.uint64)[0]


# numpy's SeedSequence (M. E. O'Neill's seed_seq_fe with 32-bit words, pool of 4): the
# constants of its hashmix / mix / generate_state steps. Used only to go on mixing one
# last word from a pool numpy itself mixed; every call checks its first and last keys
# against numpy's own SeedSequence and falls back to numpy for all keys if they differ.
_U32 = np.uint32
_INIT_A, _MULT_A = 0x43B0D7E5, 0x931E8875
_INIT_B, _MULT_B = 0x8B51F9DD, 0x58F38DED
_MIX_L, _MIX_R = 0xCA01F9DD, 0x4973F715
_POOL = 4
_MASK32 = 0xFFFFFFFF


def _n_words(v: int) -> int:
    """How many 32-bit words SeedSequence makes of a non-negative int (0 is one word)."""
    return max(1, -(-int(v).bit_length() // 32))


def _child_keys(entropy: int, prefix: tuple, runs: int) -> np.ndarray:
    """``_key(SeedSequence(entropy, spawn_key=prefix + (r,)))`` for r = 0..runs-1, (runs,) uint64.

    Bit for bit numpy's keys: numpy mixes the common words (entropy, then ``prefix``) once,
    and only the last word, r, is mixed here, for all r at once in uint32 arithmetic.
    SeedSequence converts a spawn key word by word in Python, so one key of a long prefix
    (verify's shared cells name theirs by a 200-byte text) cost 0.6 ms: 1,000 runs took
    0.6 s. A prefix that is empty or not of non-negative ints, an entropy that is not an int,
    or r beyond one word take numpy's path for every key.
    """

    def one(r):
        return _key(np.random.SeedSequence(entropy, spawn_key=prefix + (r,)))

    def slow():
        return np.array([one(r) for r in range(runs)], dtype=np.uint64)

    ints = all(isinstance(v, (int, np.integer)) and v >= 0 for v in (entropy, *prefix))
    if runs < 2 or runs > _MASK32 + 1 or not prefix or not ints:
        return slow()
    pool = np.random.SeedSequence(entropy, spawn_key=prefix).pool.astype(_U32)
    # words mixed so far: the entropy padded to the pool size (a spawn key is present), then
    # the prefix's words; hashmix was called 4 + 12 + 4 (m - 4) times, each step multiplying
    # the running constant by MULT_A
    m = max(_n_words(entropy), _POOL) + sum(_n_words(v) for v in prefix)
    h = _INIT_A * pow(_MULT_A, _POOL * (m - 4) + 16, 2**32) & _MASK32
    r = np.arange(runs, dtype=np.uint64).astype(_U32)
    with np.errstate(over="ignore"):
        mixed = np.empty((_POOL, runs), _U32)
        for i in range(_POOL):
            v = r ^ _U32(h)  # hashmix(r)
            h = h * _MULT_A & _MASK32
            v = v * _U32(h)
            v ^= v >> _U32(16)
            x = _U32(_MIX_L) * pool[i] - _U32(_MIX_R) * v  # mix(pool[i], hashmix(r))
            mixed[i] = x ^ (x >> _U32(16))
        words, hb = [], _INIT_B  # generate_state(1, uint64): two words from the pool
        for i in range(2):
            d = mixed[i] ^ _U32(hb)
            hb = hb * _MULT_B & _MASK32
            d = d * _U32(hb)
            words.append((d ^ (d >> _U32(16))).astype(np.uint64))
    keys = words[0] | (words[1] << np.uint64(32))
    if keys[0] != one(0) or keys[-1] != one(runs - 1):
        return slow()
    return keys


def users_keys(seed: np.random.SeedSequence, weights, runs: int) -> np.ndarray:
    """64-bit users' keys of runs ``0..runs-1``, shape (runs,) uint64.

    Run ``r``'s key is drawn from ``SeedSequence(seed.entropy, spawn_key=(USERS_TAG, w0, w1, r))``
    with ``(w0, w1) = instance_words(weights)``: it depends on the root entropy, the
    instance and the run index only -- not on the policy, the order, the click
    model's other parameters, nor the cell's own spawn key -- so every policy of an
    experiment meets the same users in run ``r``.
    """
    w = instance_words(weights)
    return _child_keys(seed.entropy, (USERS_TAG, *w), runs)


def policy_keys(seed: np.random.SeedSequence, runs: int) -> np.ndarray:
    """64-bit policy keys, shape (runs,) uint64.

    Run ``r`` uses ``SeedSequence(entropy, spawn_key + (r,))``.

    That is the ``r``-th child ``seed.spawn`` would give, built without mutating ``seed``.
    """
    return _child_keys(seed.entropy, tuple(seed.spawn_key), runs)
