"""bounds._blocked.arange_blocks: the same array as one pass, for any block size."""

import numpy as np
import pytest

from cascading_bandits.bounds._blocked import BLOCK, arange_blocks


def _f(t):
    with np.errstate(divide="ignore"):
        return np.where(t >= 3, np.minimum(1.0, t * np.maximum(t - 1, 1) ** -1.3), 1.0)


CASES = [(1, 1, BLOCK), (1, 10, 3), (5, 2 * BLOCK + 7, BLOCK), (3, 1000, 1000), (3, 1000, 999)]


@pytest.mark.parametrize("start,stop,block", CASES + [(2, 2, 1)])
def test_equals_one_pass_bit_for_bit(start, stop, block):
    one = _f(np.arange(start, stop + 1, dtype=np.float64))
    got = arange_blocks(start, stop, _f, block)
    assert got.shape == (stop - start + 1,)
    assert np.array_equal(got.view(np.uint64), one.view(np.uint64))
    assert np.sum(got) == np.sum(one)


def test_a_function_of_the_position_would_differ():
    # the helper relies on f being elementwise: a block-relative f shows the blocking
    def relative(t):
        return t - t[0]

    assert not np.array_equal(arange_blocks(1, 100, relative, 10), relative(np.arange(1.0, 101.0)))


def test_bad_arguments():
    with pytest.raises(ValueError, match="start <= stop"):
        arange_blocks(5, 4, _f)
    with pytest.raises(ValueError, match="block must be >= 1"):
        arange_blocks(1, 4, _f, 0)
    with pytest.raises(ValueError, match="bool"):
        arange_blocks(True, 4, _f)
