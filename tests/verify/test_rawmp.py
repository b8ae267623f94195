"""bounds._rawmp: bounds.kl's mpmath KL on raw mpf tuples, the same number to the last bit."""

import mpmath
import numpy as np
import pytest
from mpmath.libmp import mpf_add, mpf_rdiv_int

from cascading_bandits.bounds._rawmp import kl_mpf, log1p_mpf
from cascading_bandits.bounds.kl import _kl_py_mp


def _points(rng, n):
    """(p, q) pairs over the whole range: uniform, log-uniform near 0 and 1, tiny gaps, the
    ends 0 and 1, and the rescaled branch of the log ratio (q below 1e-300)."""
    out = [(0.0, 0.5), (0.5, 0.0), (1.0, 0.5), (0.5, 1.0), (0.0, 1.0), (0.3, 0.3), (0.25, 1e-310)]
    out += [(1e-305, 1e-302), (1e-302, 1e-305), (5e-324, 0.5), (0.5, 1 - 2**-53)]
    for _ in range(n):
        p, q = (rng.random() ** float(rng.choice([1, 4, 40])) for _ in range(2))
        if rng.random() < 0.3:
            q = p * (1 + float(rng.choice([1e-3, 1e-9, 1e-15, -1e-12])) * rng.random())
        if rng.random() < 0.2:
            p, q = 1 - p, 1 - q
        out.append((p, min(max(q, 0.0), 1.0)))
    return out


# The two checks below draw 1000 and 400 random pairs (and the 11 fixed edge pairs) at each
# precision in the default run, the 3000 and 1000 they had in the slow tier.
@pytest.mark.parametrize("n", [1000, pytest.param(3000, marks=pytest.mark.slow)])
@pytest.mark.parametrize("dps", [15, 50])
def test_kl_mpf_equals_bounds_kl_bit_for_bit(dps, n):
    rng = np.random.default_rng(27)
    with mpmath.workdps(dps):
        prec = mpmath.mp.prec + 20  # what mpmath.quad works at
        with mpmath.workprec(prec):
            for p, q in _points(rng, n):
                P, Q = mpmath.mpf(p), mpmath.mpf(q)
                assert kl_mpf(P._mpf_, Q._mpf_, prec) == _kl_py_mp(P, Q)._mpf_, (p, q)


def test_log1p_mpf_equals_mpmath_log1p():
    rng = np.random.default_rng(1)
    with mpmath.workprec(186):
        zs = [0.0, 1e-70, -1e-70, 2.0**-196, -(2.0**-197), 0.5, -0.5, 3.0, -1 + 1e-12]
        zs += [float(rng.choice([-1, 1])) * rng.random() ** 30 for _ in range(500)]
        for z in zs:
            Z = mpmath.mpf(z)
            assert log1p_mpf(Z._mpf_, 186) == mpmath.log1p(Z)._mpf_, z


def test_lemma2_integrand_is_the_one_over_kl_of_bounds_kl():
    """The integrand of lemma2.integral's quadrature, as claims_peeling builds it."""
    with mpmath.workdps(50), mpmath.workprec(mpmath.mp.prec + 20):
        prec = mpmath.mp.prec
        p = mpmath.mpf("1e-6")
        for x in mpmath.linspace(mpmath.mpf("1e-9"), 1 - p - mpmath.mpf("1e-9"), 200):
            raw = mpf_rdiv_int(
                1, kl_mpf(p._mpf_, mpf_add(p._mpf_, x._mpf_, prec, "n"), prec), prec, "n"
            )
            assert raw == (1 / _kl_py_mp(p, p + x))._mpf_


@pytest.mark.parametrize("n", [400, pytest.param(1000, marks=pytest.mark.slow)])
@pytest.mark.parametrize("dps", [17, 50])
def test_kl_mp_is_the_mpf_arithmetic_bit_for_bit(dps, n):
    """bounds.kl.kl_mp computes with kl_mpf: the number _kl_py_mp gives, at the dps asked
    for and at the caller's (dps None), from floats and from numeric strings."""
    from cascading_bandits.bounds.kl import kl_mp

    rng = np.random.default_rng(36)
    pts = _points(rng, n) + [("0.3", "0.30000000000000000000001"), ("1", "0"), (0, "0")]
    for p, q in pts:
        with mpmath.workdps(dps):
            ref = _kl_py_mp(mpmath.mpf(p), mpmath.mpf(q))._mpf_
            assert kl_mp(p, q)._mpf_ == ref, (p, q)
        assert kl_mp(p, q, dps=dps)._mpf_ == ref, (p, q)
