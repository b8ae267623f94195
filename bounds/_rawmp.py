"""The Bernoulli KL divergence on mpmath's raw numbers (``mpf`` tuples, ``mpmath.libmp``).

:func:`kl_mpf` performs the very operations of ``bounds.kl``'s mpmath form
(``bounds.kl._kl_py_mp``: the same branches, each sum, product, quotient and logarithm at the
same precision with the same rounding, ``log1p`` with mpmath's own guard bits), so it returns
the same number to the last bit; it only skips the ``mpf`` objects around each step, whose
creation and dispatch were most of the cost of a 50-digit evaluation (2.5x faster).
``bounds.kl.kl_mp`` computes with it (after its checks), and ``lemma2.integral`` evaluates
its integrand ``1 / kl(p, p + x)`` about a thousand times per quadrature with it.
tests/verify/test_rawmp.py checks the equality bit for bit.
"""

from __future__ import annotations

from mpmath.libmp import (
    finf,
    fone,
    from_float,
    fzero,
    mpf_add,
    mpf_div,
    mpf_gt,
    mpf_log,
    mpf_lt,
    mpf_mul,
    mpf_neg,
    mpf_pos,
    mpf_pow_int,
    mpf_sub,
)

__all__ = ["kl_mpf", "log1p_mpf"]

_N = "n"  # round to nearest, mpmath's default
# the float constants of bounds.kl's _log_ratio, converted as mpmath converts a float operand
_TINY = from_float(1e-300)
_HUGE = from_float(1e300)
_SCALE = from_float(2.0**600)
_HALF = from_float(0.5)


def log1p_mpf(z, prec: int):
    """``mpmath.log1p(z)`` at working precision ``prec`` (bits), on an mpf tuple.

    mpmath.log1p is a wrapped function: it works with 10 more bits, returns
    ``z - z**2/2`` when ``|z| < 2**-(prec + 10)`` and ``log(1 + z)`` (the sum at twice that
    precision) otherwise, then rounds to ``prec``.
    """
    if z == fzero:
        return fzero
    wp = prec + 10
    _, man, exp, bc = z
    if man and exp + bc < -wp:  # mpmath's mag(z) < -prec, at the raised precision
        r = mpf_sub(z, mpf_mul(mpf_pow_int(z, 2, wp, _N), _HALF, wp, _N), wp, _N)
    else:
        r = mpf_log(mpf_add(fone, z, 2 * wp, _N), wp, _N)
    return mpf_pos(r, prec, _N)


def _log_ratio(x, y, d, prec):
    """``bounds.kl``'s ``_log_ratio`` (``log(x / y)`` given ``d = y - x``) on mpf tuples."""
    if mpf_lt(y, _TINY):
        if mpf_gt(x, mpf_mul(y, _HUGE, prec, _N)):
            return mpf_sub(mpf_log(x, prec, _N), mpf_log(y, prec, _N), prec, _N)
        x = mpf_mul(x, _SCALE, prec, _N)
        y = mpf_mul(y, _SCALE, prec, _N)
        d = mpf_mul(d, _SCALE, prec, _N)
    if mpf_gt(d, mpf_mul(y, _HALF, prec, _N)):
        return mpf_log(mpf_div(x, y, prec, _N), prec, _N)
    return log1p_mpf(mpf_div(mpf_neg(d, prec, _N), y, prec, _N), prec)


def kl_mpf(p, q, prec: int):
    """Bernoulli ``kl(p, q)`` of two mpf tuples at ``prec`` bits, rounding to nearest:
    ``bounds.kl._kl_py_mp(p, q)`` at working precision ``prec``, bit for bit.

    No input checks (as ``_kl_py_mp``): the caller keeps ``0 <= p <= 1`` and ``0 <= q <= 1``.
    """
    d = mpf_sub(q, p, prec, _N)
    if p == fzero:
        a = fzero
    elif q == fzero:
        a = mpf_mul(p, finf, prec, _N)
    else:
        a = mpf_mul(p, _log_ratio(p, q, d, prec), prec, _N)
    if p == fone:
        b = fzero
    elif q == fone:
        b = mpf_mul(mpf_sub(fone, p, prec, _N), finf, prec, _N)
    else:
        p1 = mpf_sub(fone, p, prec, _N)
        q1 = mpf_sub(fone, q, prec, _N)
        b = mpf_mul(p1, _log_ratio(p1, q1, mpf_neg(d, prec, _N), prec), prec, _N)
    return mpf_add(a, b, prec, _N)
