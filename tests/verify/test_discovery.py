"""Claim modules are discovered, not listed: a new ``claims_*`` module is run and reported.

The toy module is written into a temporary directory appended to the package's ``__path__``
(what a new ``verify/claims_<name>.py`` file amounts to), so nothing is left in the project.
"""

import sys
import textwrap

import pytest

from cascading_bandits import verify
from cascading_bandits.verify.registry import _REGISTRY
from cascading_bandits.verify.verdict import FAILS, HOLDS

TOY = "claims_zz_toy"
TOY_IDS = ("toy.true", "toy.false")
TOY_SOURCE = textwrap.dedent(
    '''
    """Toy claims: one true, one false (planted), to test discovery and failure reporting."""
    from cascading_bandits.verify.checks import SlackTracker
    from cascading_bandits.verify.registry import claim


    @claim("toy.true", "nowhere", "x^2 + 1 >= 2x on [0, 3]", method="high-precision-sampling")
    def _true(ctx):
        tr = SlackTracker()
        for x in ctx.rng.uniform(0, 3, ctx.examples):
            tr.add(x * x + 1 - 2 * x, {"x": float(x)})
        return tr.outcome("high-precision-sampling", "[0, 3]")


    @claim("toy.false", "nowhere", "x^2 >= x on [0, 2] (false on (0, 1))",
           method="high-precision-sampling")
    def _false(ctx):
        tr = SlackTracker()
        for x in ctx.rng.uniform(0, 2, ctx.examples):
            tr.add(x * x - x, {"x": float(x)})
        return tr.outcome("high-precision-sampling", "[0, 2]")
    '''
)


@pytest.fixture
def toy_module(tmp_path, monkeypatch):
    (tmp_path / f"{TOY}.py").write_text(TOY_SOURCE, encoding="utf-8")
    monkeypatch.setattr(verify, "__path__", [*verify.__path__, str(tmp_path)])
    full = f"{verify.__name__}.{TOY}"
    yield full
    for cid in TOY_IDS:
        _REGISTRY.pop(cid, None)
    sys.modules.pop(full, None)


def test_paper_modules_first_in_paper_order():
    names = [m.rsplit(".", 1)[1] for m in verify.claim_modules()]
    paper = [m for m in verify.PAPER_ORDER if m in names]
    assert names[: len(paper)] == paper
    assert names[len(paper) :] == sorted(names[len(paper) :])
    # every claims_* file of the package is found, and each one registered something
    assert set(verify.PAPER_ORDER) <= set(names)
    modules = {c.check.__module__ for c in verify.all_claims()}
    assert {f"{verify.__name__}.{m}" for m in names} <= modules


def test_new_module_is_discovered_and_run(toy_module):
    assert toy_module not in sys.modules
    assert verify.claim_modules()[-1] == toy_module  # 'zz': after the paper's, alphabetically
    assert not set(TOY_IDS) & {c.id for c in verify.all_claims()}
    # run_all loads it: no registration anywhere else
    vs = verify.run_all(examples=200, seed=0, claims=list(TOY_IDS))
    assert toy_module in sys.modules
    by_id = {v.claim_id: v for v in vs}
    assert by_id["toy.true"].status == HOLDS
    assert by_id["toy.true"].min_slack >= 0
    # the planted false claim is reported as failing, with a true counterexample
    bad = by_id["toy.false"]
    assert bad.status == FAILS and not bad.ok
    x = bad.counterexample["x"]
    assert 0 < x < 1 and bad.counterexample["slack"] == pytest.approx(x * x - x)
    assert verify.registry.any_failed(vs)
    # and it is listed with the others, after them
    ids = [c.id for c in verify.available_claims()]
    assert ids[-2:] == list(TOY_IDS)


def test_load_claims_is_idempotent(toy_module):
    first = verify.load_claims()
    n = len(verify.all_claims())
    assert verify.load_claims() == first and len(verify.all_claims()) == n
    assert toy_module in first


def test_broken_claim_module_is_loud(tmp_path, monkeypatch):
    (tmp_path / "claims_zz_broken.py").write_text("raise RuntimeError('broken claims')\n")
    monkeypatch.setattr(verify, "__path__", [*verify.__path__, str(tmp_path)])
    try:
        with pytest.raises(RuntimeError, match="broken claims"):
            verify.load_claims()
    finally:
        sys.modules.pop(f"{verify.__name__}.claims_zz_broken", None)
