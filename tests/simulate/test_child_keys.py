"""Run keys: ``rng.policy_keys`` / ``users_keys`` equal numpy's SeedSequence children, bit for
bit."""

import numpy as np
import pytest

from cascading_bandits.simulate import rng


def _numpy(entropy, prefix, runs):
    return np.array(
        [rng._key(np.random.SeedSequence(entropy, spawn_key=prefix + (r,))) for r in range(runs)],
        dtype=np.uint64,
    )


def test_child_keys_are_numpys_on_random_entropies_and_prefixes():
    """Entropies of 1 to 4 words and prefixes of 1 to 12 ints of 1 to 2 words each (the
    word counts set the mixing constant's power), against numpy's own SeedSequence."""
    R = np.random.default_rng(7)
    for _ in range(300):
        e = int(R.integers(0, 2**63)) >> int(R.integers(0, 63))
        e *= 2 ** int(32 * R.integers(0, 3))
        prefix = tuple(
            int(R.integers(0, 2**62)) >> int(R.integers(0, 62)) for _ in range(R.integers(1, 13))
        )
        runs = int(R.integers(2, 40))
        assert (rng._child_keys(e, prefix, runs) == _numpy(e, prefix, runs)).all(), (e, prefix)


def test_policy_and_users_keys_take_the_mixing_path(monkeypatch):
    """A long spawn key (verify's shared cells) and 500 runs: same keys as numpy's, with
    numpy's SeedSequence built three times (the common words, and the first and last key as
    a check), not once per run."""
    ss = np.random.SeedSequence(12345, spawn_key=tuple(b"('bound', 'cascade-klucb', 0.2)" * 6))
    w = (0.3, 0.2, 0.1)
    want_p = _numpy(ss.entropy, tuple(ss.spawn_key), 500)
    want_u = _numpy(ss.entropy, (rng.USERS_TAG, *rng.instance_words(w)), 500)
    calls = []
    real = np.random.SeedSequence

    def counting(*a, **k):
        calls.append(1)
        return real(*a, **k)

    monkeypatch.setattr(np.random, "SeedSequence", counting)
    assert (rng.policy_keys(ss, 500) == want_p).all()
    assert len(calls) == 3
    assert (rng.users_keys(ss, w, 500) == want_u).all()
    assert len(calls) == 6


@pytest.mark.parametrize("runs", [1, 2])
def test_short_and_unkeyed_cases(runs):
    """One run, and a root with no spawn key (numpy's path), give numpy's keys."""
    ss = np.random.SeedSequence(3)
    assert (rng.policy_keys(ss, runs) == _numpy(3, (), runs)).all()
    assert rng.policy_keys(ss.spawn(1)[0], runs).tolist() == _numpy(3, (0,), runs).tolist()
