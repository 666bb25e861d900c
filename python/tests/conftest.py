"""pytest setup for kiln's Python tests: run with PYTHONPATH holding the
built package (CTest sets it) and KILN_VALIDATION=1; every test fails when
the Vulkan validation layer reported anything during it."""
import numpy as np
import pytest

import kiln

# Every dtype kiln arrays hold, as NumPy dtypes.
DTYPES = [np.float32, np.float64, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32]


@pytest.fixture(autouse=True)
def no_validation_messages():
    ctx = kiln.default_context()
    before = ctx.validation_message_count()
    yield
    ctx.sync()
    after = ctx.validation_message_count()
    if after != before:
        messages = ctx.validation_messages()[-(after - before):]
        pytest.fail(f"{after - before} validation message(s):\n" + "\n".join(messages))


@pytest.fixture
def rng():
    return np.random.default_rng(20261126)


def random_array(rng, shape, dtype):
    """Random values spanning a useful part of dtype's range."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return (rng.standard_normal(shape) * 10).astype(dtype)
    info = np.iinfo(dtype)
    lo, hi = max(info.min, -1000), min(info.max, 1000)
    return rng.integers(lo, hi, size=shape, endpoint=True).astype(dtype)
