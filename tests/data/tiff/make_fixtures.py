#!/usr/bin/env python3
"""Writes the TIFF fixtures in tests/data/tiff/ for tests/io/test_tiff.cpp.

Every .tif here is laid out by tifffile (Debian's python3-tifffile, not
libtiff, which kiln reads with), and every readable one has beside it a .npy
of the array it holds, written by NumPy: the test reads both and compares.
tifffile compresses with zlib and lzma itself; the LZW, PackBits and
floating-point predictor encoders below are written from the TIFF 6.0
specification and Adobe's Technical Note 3 (tifffile would need imagecodecs
for them), so libtiff decodes data that no libtiff code encoded.

    apt-get install -y python3-tifffile
    /usr/bin/python3 tests/data/tiff/make_fixtures.py

With --check-kiln KILN, instead writes arrays of every dtype, 2-D and 3-D,
as .npy, converts them with `KILN copy a.npy -o a.tif` (kiln's TIFF writer)
and checks that tifffile reads each back identically (a check run by hand,
not by the test suite: it needs tifffile and a Vulkan device).
"""
import os
import subprocess
import sys
import tempfile
import zlib

import numpy as np
import tifffile

HERE = os.path.dirname(os.path.abspath(__file__))


def lzw_encode(data, axis=None, **_):
    """TIFF LZW: codes of 9 to 12 bits, most significant bit first, Clear
    (256) first and whenever the table reaches 4094 entries, EndOfInformation
    (257) last; the code width grows one code early, as TIFF requires."""
    data = bytes(np.ascontiguousarray(data).tobytes())
    bits, nbits, out = 0, 0, bytearray()

    def put(code, width):
        nonlocal bits, nbits
        bits = (bits << width) | code
        nbits += width
        while nbits >= 8:
            nbits -= 8
            out.append((bits >> nbits) & 0xFF)
        bits &= (1 << nbits) - 1

    def fresh():
        return {bytes([i]): i for i in range(256)}, 258, 9

    table, next_code, width = fresh()
    put(256, width)
    prefix = b""
    for byte in data:
        longer = prefix + bytes([byte])
        if longer in table:
            prefix = longer
            continue
        put(table[prefix], width)
        table[longer] = next_code
        next_code += 1
        if next_code == 4094:
            put(256, width)
            table, next_code, width = fresh()
        elif next_code > (1 << width) - 1:
            width += 1
        prefix = bytes([byte])
    if prefix:
        put(table[prefix], width)
        # The decoder adds an entry for this code too, so it may widen first.
        if next_code + 1 > (1 << width) - 1 and width < 12:
            width += 1
    put(257, width)
    if nbits:
        out.append((bits << (8 - nbits)) & 0xFF)
    return bytes(out)


def packbits_encode(data, axis=None, **_):
    """PackBits, each row on its own: runs of 2 to 128 equal bytes as
    (1 - n, byte), other bytes as literals (n - 1, n bytes)."""
    data = np.ascontiguousarray(data)
    row_bytes = data.shape[-2] * data.shape[-1] * data.itemsize
    raw = data.tobytes()
    out = bytearray()
    for start in range(0, len(raw), row_bytes):
        row = raw[start:start + row_bytes]
        i = 0
        while i < len(row):
            run = 1
            while i + run < len(row) and run < 128 and row[i + run] == row[i]:
                run += 1
            if run >= 2:
                out += bytes([(1 - run) & 0xFF, row[i]])
                i += run
                continue
            j = i
            while j < len(row) and j - i < 128 and not (j + 1 < len(row) and row[j + 1] == row[j]):
                j += 1
            j = max(j, i + 1)
            out += bytes([j - i - 1]) + row[i:j]
            i = j
    return bytes(out)


def floatpred_encode(data, axis=-2, **_):
    """Floating-point predictor (Adobe Technical Note 3): each row's values as
    big-endian bytes, regrouped by significance (all first bytes, then all
    second bytes...), then each byte minus its left neighbour."""
    data = np.asarray(data)
    width = data.shape[-2] * data.shape[-1]
    size = data.dtype.itemsize
    rows = data.astype(data.dtype.newbyteorder(">")).reshape(-1, width).view(np.uint8)
    shuffled = rows.reshape(-1, width, size).transpose(0, 2, 1).reshape(-1, width * size)
    diff = shuffled.copy()
    diff[:, 1:] = shuffled[:, 1:] - shuffled[:, :-1]
    return diff.reshape(data.shape[:-2] + (width * size, 1))


tifffile.TIFF.COMPRESSORS._codecs[5] = lzw_encode
tifffile.TIFF.COMPRESSORS._codecs[32773] = packbits_encode
tifffile.TIFF.PREDICTORS._codecs[3] = floatpred_encode


def random_bits(rng, shape, dtype):
    """Every bit pattern is fair, so floats include NaN payloads, infinities
    and -0: a reader must pass them through untouched."""
    dtype = np.dtype(dtype)
    raw = rng.integers(0, 256, size=int(np.prod(shape)) * dtype.itemsize, dtype=np.uint8)
    return raw.view(dtype).reshape(shape)


def with_runs(rng, shape, dtype):
    """Values that repeat in runs, so run-length coding has work to do."""
    values = rng.integers(-300, 300, size=shape[-1] // 3 + 2)
    row = np.repeat(values, 3)[: shape[-1]]
    return (np.tile(row, (int(np.prod(shape[:-1])), 1)) + np.arange(int(np.prod(shape[:-1])))[:, None] % 2) \
        .astype(dtype).reshape(shape)


def rng_for(name):
    """Each fixture's own random values: adding one changes no other."""
    return np.random.default_rng(zlib.crc32(name.encode()))


def write(name, make, expected=True, **options):
    """Writes NAME.tif holding make(rng), and NAME.npy if kiln reads it."""
    array = make(rng_for(name))
    path = os.path.join(HERE, name + ".tif")
    tifffile.imwrite(path, array, **options)
    if expected:
        native = array.astype(array.dtype.newbyteorder("="))
        np.save(os.path.join(HERE, name + ".npy"), native)
        # tifffile reads back what it wrote (where it has the decoder).
        if options.get("compression") not in ("lzw", "packbits") and options.get("predictor") != 3:
            assert same(tifffile.imread(path), native), name


def same(a, b):
    """Same shape, same dtype whatever its byte order, same bits."""
    native = a.dtype.newbyteorder("=")
    return a.shape == b.shape and native == b.dtype.newbyteorder("=") and \
        a.astype(native).tobytes() == b.astype(native).tobytes()


def write_pages(name, make):
    with tifffile.TiffWriter(os.path.join(HERE, name + ".tif")) as tif:
        for page in make(rng_for(name)):
            tif.write(page, photometric="minisblack", contiguous=False)


def make_fixtures():
    shape = (13, 17)
    for code in ("u1", "i1", "u2", "i2", "u4", "i4", "f4", "f8"):
        write(code + "_13x17", lambda r: random_bits(r, shape, "<" + code))
    for code in ("i2", "u4", "f4", "f8"):
        write("be_" + code + "_13x17", lambda r: random_bits(r, shape, ">" + code), byteorder=">")
    write("rows4_u2_13x17", lambda r: random_bits(r, shape, "<u2"), rowsperstrip=4)
    write("bigtiff_be_u2_13x17", lambda r: random_bits(r, shape, ">u2"), byteorder=">", bigtiff=True)
    write("deflate_pred_u2_13x17", lambda r: random_bits(r, shape, "<u2") // 64, compression="zlib",
          predictor=2, rowsperstrip=4)
    write("deflate_fpred_f4_13x17", lambda r: r.standard_normal(shape).astype("<f4"), compression="zlib",
          predictor=3, rowsperstrip=5)
    # 5120 bytes of noise: enough LZW codes to pass every code width and a Clear.
    write("lzw_u1_64x80", lambda r: random_bits(r, (64, 80), "u1"), compression="lzw")
    write("lzw_be_f4_13x17", lambda r: random_bits(r, shape, ">f4"), byteorder=">", compression="lzw",
          rowsperstrip=5)
    write("packbits_i2_13x17", lambda r: with_runs(r, shape, "<i2"), compression="packbits",
          rowsperstrip=3)
    write("lzma_i4_13x17", lambda r: random_bits(r, shape, "<i4") >> 8, compression="lzma")
    write("tiled_u2_20x35", lambda r: random_bits(r, (20, 35), "<u2"), tile=(16, 16))
    write("tiled_deflate_be_f8_20x35", lambda r: r.standard_normal((20, 35)), byteorder=">",
          tile=(16, 16), compression="zlib")
    write("miniswhite_u1_13x17", lambda r: random_bits(r, shape, "u1"), photometric="miniswhite")
    write("stack_u2_3x13x17", lambda r: random_bits(r, (3, 13, 17), "<u2"), photometric="minisblack")
    # Tiles larger than the 9 x 11 pages.
    write("stack_tiled_deflate_be_f4_4x9x11", lambda r: r.standard_normal((4, 9, 11)).astype(">f4"),
          byteorder=">", tile=(16, 16), compression="zlib", photometric="minisblack")

    # Refused, each for one reason.
    write("rgb_u1_5x7", lambda r: random_bits(r, (5, 7, 3), "u1"), expected=False, photometric="rgb")
    colormap = rng_for("colormap").integers(0, 65536, size=(3, 256), dtype=np.uint16)
    write("palette_u1_5x7", lambda r: random_bits(r, (5, 7), "u1"), expected=False, colormap=colormap)
    write("f2_5x7", lambda r: random_bits(r, (5, 7), "<f2"), expected=False)
    write("i8_5x7", lambda r: random_bits(r, (5, 7), "<i8"), expected=False)
    write("c8_5x7", lambda r: random_bits(r, (5, 7), "<c8"), expected=False)
    write("bool_5x7", lambda r: random_bits(r, (5, 7), "u1") > 127, expected=False)
    write_pages("pages_of_two_shapes",
                lambda r: [random_bits(r, (5, 7), "<u2"), random_bits(r, (6, 7), "<u2")])
    write_pages("pages_of_two_dtypes",
                lambda r: [random_bits(r, (5, 7), "<u2"), random_bits(r, (5, 7), "<f4")])


def check_kiln(kiln):
    """kiln's writer against tifffile's reader, for every dtype, 2-D and 3-D."""
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for code in ("u1", "i1", "u2", "i2", "u4", "i4", "f4", "f8"):
            for shape in ((13, 17), (3, 13, 17), (1, 31), (300, 1031)):
                array = random_bits(rng_for(code + str(shape)), shape, "<" + code)
                npy, tif = os.path.join(tmp, "a.npy"), os.path.join(tmp, "a.tif")
                np.save(npy, array)
                subprocess.run([kiln, "copy", npy, "-o", tif], check=True)
                back = tifffile.imread(tif)
                ok = same(back, array)
                print(code, shape, "ok" if ok else f"DIFFERENT: {back.dtype} {back.shape}")
                failures += not ok
    return failures


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--check-kiln":
        sys.exit(1 if check_kiln(sys.argv[2]) else 0)
    make_fixtures()
