"""kiln.Array from and to NumPy: creation, push and pull of every dtype,
properties, conversions, operators against NumPy, and the errors."""
import numpy as np
import pytest

import kiln
from conftest import DTYPES, random_array

SHAPES = [(7,), (5, 13), (3, 4, 9)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_push_pull_round_trip(rng, dtype, shape):
    host = random_array(rng, shape, dtype)
    a = kiln.asarray(host)
    assert a.shape == shape and a.dtype == np.dtype(dtype)
    assert a.ndim == len(shape) and a.size == host.size and a.nbytes == host.nbytes
    back = a.get()
    assert back.dtype == host.dtype and back.shape == shape
    np.testing.assert_array_equal(back, host)
    np.testing.assert_array_equal(np.asarray(a), host)
    np.testing.assert_array_equal(kiln.pull(a), host)


def test_non_contiguous_and_big_endian_inputs_are_converted(rng):
    host = random_array(rng, (6, 10), np.float32)
    np.testing.assert_array_equal(kiln.asarray(host[:, ::3]).get(), host[:, ::3])
    np.testing.assert_array_equal(kiln.asarray(host.T).get(), host.T)
    be = host.astype(">f4")
    a = kiln.asarray(be)
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a.get(), host)


def test_numpy_types_kiln_lacks_are_stored_as_documented():
    b = kiln.asarray(np.array([True, False, True]))
    assert b.dtype == np.uint8 and b.get().tolist() == [1, 0, 1]
    h = kiln.asarray(np.array([1.5, -2.25], np.float16))
    assert h.dtype == np.float32 and h.get().tolist() == [1.5, -2.25]
    i = kiln.asarray(np.arange(-3, 3))  # int64, NumPy's default integer
    assert i.dtype == np.int64 and i.get().tolist() == [-3, -2, -1, 0, 1, 2]
    u = kiln.asarray(np.array([0, 2**64 - 1], np.uint64))
    assert u.dtype == np.uint64 and u.get().tolist() == [0, 2**64 - 1]
    assert kiln.asarray([[1.0, 2.0]]).dtype == np.float64  # as numpy.asarray
    assert kiln.asarray(np.array([2**40])).get().tolist() == [2**40]
    with pytest.raises(TypeError, match="float128"):
        kiln.asarray(np.zeros(3, np.longdouble))


def test_asarray_with_dtype_converts(rng):
    host = random_array(rng, (4, 5), np.float64)
    a = kiln.asarray(host, dtype=np.float32)
    assert a.dtype == np.float32
    np.testing.assert_array_equal(a.get(), host.astype(np.float32))
    assert kiln.asarray(a) is not None and kiln.asarray(a, dtype="int16").dtype == np.int16


@pytest.mark.parametrize("dtype", DTYPES)
def test_creation(dtype):
    z = kiln.zeros((3, 5), dtype)
    assert z.dtype == np.dtype(dtype) and z.shape == (3, 5)
    np.testing.assert_array_equal(z.get(), np.zeros((3, 5), dtype))
    f = kiln.full(7, 3, dtype)
    np.testing.assert_array_equal(f.get(), np.full(7, 3, dtype))
    np.testing.assert_array_equal(kiln.ones((2, 2, 2), dtype).get(), np.ones((2, 2, 2), dtype))
    e = kiln.empty((4,), dtype)
    assert e.shape == (4,) and e.dtype == np.dtype(dtype)
    assert kiln.zeros_like(z).shape == (3, 5) and kiln.full_like(z, 2).get()[0, 0] == 2


def test_default_dtype_is_float32():
    assert kiln.zeros(3).dtype == np.float32
    assert kiln.empty((2, 3)).dtype == np.float32
    assert kiln.create((2, 3)).dtype == np.float32


def test_shape_errors():
    with pytest.raises(kiln.InvalidArgument, match="1 to 3 dimensions"):
        kiln.zeros((2, 2, 2, 2))
    with pytest.raises(kiln.InvalidArgument, match="1 to 3 dimensions"):
        kiln.asarray(np.float32(3))
    with pytest.raises(kiln.InvalidArgument, match="positive"):
        kiln.zeros((3, 0))
    with pytest.raises(TypeError, match="whole numbers"):
        kiln.zeros((3.5, 2))
    with pytest.raises(TypeError, match="kiln arrays hold"):
        kiln.zeros(3, dtype=np.longdouble)
    assert issubclass(kiln.InvalidArgument, ValueError) and issubclass(kiln.OutOfMemory, MemoryError)
    assert issubclass(kiln.Unsupported, RuntimeError) and issubclass(kiln.IoError, OSError)


def test_astype_reshape_copy_set(rng):
    host = random_array(rng, (4, 6), np.float32)
    a = kiln.asarray(host)
    np.testing.assert_array_equal(a.astype(np.float64).get(), host.astype(np.float64))
    r = a.reshape(2, 12)
    assert r.shape == (2, 12)
    np.testing.assert_array_equal(r.get(), host.reshape(2, 12))
    assert a.reshape((3, -1)).shape == (3, 8) and a.reshape(-1).shape == (24,)
    with pytest.raises(kiln.InvalidArgument):
        a.reshape(5, 5)
    c = a.copy()
    a.set(np.zeros((4, 6), np.float32))
    np.testing.assert_array_equal(c.get(), host)
    np.testing.assert_array_equal(a.get(), np.zeros((4, 6), np.float32))
    with pytest.raises(kiln.InvalidArgument, match="shape"):
        a.set(np.zeros((6, 4)))


def test_scalar_conversions_and_truth():
    one = kiln.full(1, 2.5)
    assert float(one) == 2.5 and int(one) == 2 and bool(one)
    with pytest.raises(ValueError, match="ambiguous"):
        bool(kiln.zeros(3))
    with pytest.raises(TypeError, match="indexing"):
        kiln.zeros(3)[0]
    assert len(kiln.zeros((5, 2))) == 5
    assert "shape=(5, 2)" in repr(kiln.zeros((5, 2))) and "float32" in repr(kiln.zeros((5, 2)))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int16, np.uint8])
def test_arithmetic_operators_match_numpy(rng, dtype):
    x = random_array(rng, (5, 7), dtype)
    y = random_array(rng, (5, 7), dtype)
    if np.dtype(dtype).kind != "f":
        y[y == 0] = 1
    a, b = kiln.asarray(x), kiln.asarray(y)
    for got, want in [(a + b, x + y), (a - b, x - y), (a * b, x * y)]:
        if np.dtype(dtype).kind == "f":
            np.testing.assert_allclose(got.get(), want, rtol=1e-6)
        else:  # integers wrap as NumPy's do
            np.testing.assert_array_equal(got.get(), want)
    # With a number: converted to a's dtype first, the result in a's dtype.
    s = np.dtype(dtype).type
    np.testing.assert_array_equal((a + 2).get(), x + s(2))
    np.testing.assert_array_equal((3 * a).get(), s(3) * x)
    if np.dtype(dtype).kind == "f":
        np.testing.assert_allclose((a / b).get(), x / y, rtol=1e-6)
        np.testing.assert_allclose((1 - a).get(), 1 - x, rtol=1e-6)
        np.testing.assert_allclose((-a).get(), -x, rtol=1e-6)
        np.testing.assert_allclose((2 / a).get(), 2 / x, rtol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.uint16])
def test_comparison_operators_match_numpy(rng, dtype):
    x = random_array(rng, (3, 11), dtype)
    y = random_array(rng, (3, 11), dtype)
    y[0, :3] = x[0, :3]
    a, b = kiln.asarray(x), kiln.asarray(y)
    for got, want in [(a == b, x == y), (a != b, x != y), (a < b, x < y), (a <= b, x <= y),
                      (a > b, x > y), (a >= b, x >= y), (a > 5, x > 5), (5 < a, 5 < x)]:
        assert got.dtype == np.uint8
        np.testing.assert_array_equal(got.get(), want.astype(np.uint8))


def test_operators_with_numpy_operands(rng):
    x = random_array(rng, (4, 4), np.float32)
    a = kiln.asarray(x)
    np.testing.assert_allclose((a + x).get(), x + x)
    r = x * a  # NumPy defers to kiln.Array
    assert isinstance(r, kiln.Array)
    np.testing.assert_allclose(r.get(), x * x)
    assert (a == None) is False  # noqa: E711  (not an operand: identity)


def test_memory_stats_follow_arrays():
    kiln.sync()
    before = kiln.memory_stats()["in_use"]
    a = kiln.zeros((256, 256), np.float32)
    kiln.sync()
    assert kiln.memory_stats()["in_use"] >= before + a.nbytes
    del a
    kiln.sync()
    assert kiln.memory_stats()["in_use"] <= before
