"""pyFAI's way of integrating, on kiln's GPU integrator.

    ai = kiln.load("eiger.poni")            # or kiln.Integrator(dist=..., detector="Eiger4M", ...)
    res = ai.integrate1d(frame, 1000, unit="q_A^-1", error_model="poisson")
    res.radial, res.intensity, res.sigma    # NumPy arrays, as pyFAI's Integrate1dResult

The methods take pyFAI 0.21's arguments and defaults (integrate1d_ng's:
correctSolidAngle=True, method "csr" = bbox pixel splitting, unit q_nm^-1).
Each call builds, or takes from a small cache, a kiln.AzimuthalIntegrator
for its parameters: the matrix and the corrections are uploaded once, and a
second call with the same parameters (the same dark, flat, mask and variance
objects) only integrates. Arrays of shape (n, rows, cols) integrate n frames
at once; the results then have a leading frame axis.
"""
import collections as _collections

import numpy as _np

from . import _kiln

_SPLITS = {"no": False, "bbox": True}
_ALGORITHMS = {"csr"}
_IMPLEMENTATIONS = {"cython", "opencl", "python", "*"}


def _split_of(method):
    """pyFAI's method (a name or a (split, algorithm, implementation) tuple)
    as kiln's pixel splitting; kiln integrates through a CSR matrix only."""
    if isinstance(method, str):
        method = {"csr": ("bbox", "csr", "*"), "csr_nosplit": ("no", "csr", "*"),
                  "nosplit_csr": ("no", "csr", "*"), "bbox_csr": ("bbox", "csr", "*"),
                  "csr_bbox": ("bbox", "csr", "*")}.get(method.lower(), (method.lower(), "csr", "*"))
    method = tuple(str(m).lower() for m in method)
    if len(method) != 3 or method[0] not in _SPLITS or method[1] not in _ALGORITHMS or \
            method[2] not in _IMPLEMENTATIONS:
        raise _kiln.InvalidArgument(
            "method %r: kiln integrates through a CSR matrix on the GPU; give 'csr', 'csr_nosplit' or a tuple "
            "(split, 'csr', implementation) with split one of %s" % (method, ", ".join(sorted(_SPLITS))))
    return _SPLITS[method[0]]


class Result:
    """An integration's result as NumPy arrays (pyFAI's Integrate1dResult
    names): radial, intensity, sigma (None without an error model), std,
    sem, count, sum_signal, sum_normalization, sum_variance, and unit."""

    def __init__(self, arrays, unit):
        self.unit = unit
        self.__dict__.update(arrays)

    def __iter__(self):
        """(radial, intensity) or (radial, intensity, sigma), as pyFAI's result unpacks."""
        return iter((self.radial, self.intensity) if self.sigma is None else
                    (self.radial, self.intensity, self.sigma))

    def __repr__(self):
        return "kiln Result(%d bins, unit %s)" % (len(self.radial), self.unit)


class Integrator:
    """A detector geometry with pyFAI's integration methods.

    dist, poni1, poni2 (metres), rot1-3 (radians) and wavelength (metres) as
    in a .poni file; detector: a name ('Eiger4M', 'Pilatus 1M', ...: its
    shape, pixel sizes and module-gap mask) or None with pixel1, pixel2 and
    shape given. A named detector's gap mask is OR-ed with each call's mask.
    """

    def __init__(self, dist=1.0, poni1=0.0, poni2=0.0, rot1=0.0, rot2=0.0, rot3=0.0, wavelength=0.0,
                 detector=None, pixel1=None, pixel2=None, shape=None, *, context=None, cache_size=4):
        det = _kiln.detector(detector) if isinstance(detector, str) else dict(detector or {})
        self.detector = det.get("name", "Detector")
        self.pixel1 = float(pixel1 if pixel1 is not None else det.get("pixel1", 0.0))
        self.pixel2 = float(pixel2 if pixel2 is not None else det.get("pixel2", 0.0))
        shape = tuple(shape) if shape is not None else tuple(det.get("shape", (0, 0)))
        self.shape = shape if all(shape) else None
        self.detector_mask = det.get("mask")
        self.dist, self.poni1, self.poni2 = float(dist), float(poni1), float(poni2)
        self.rot1, self.rot2, self.rot3 = float(rot1), float(rot2), float(rot3)
        self.wavelength = float(wavelength)
        self._context = context
        self._cache = _collections.OrderedDict()
        self._cache_size = cache_size

    def __repr__(self):
        return ("kiln.Integrator(dist=%g, poni1=%g, poni2=%g, rot1=%g, rot2=%g, rot3=%g, wavelength=%g, "
                "detector=%r, pixel1=%g, pixel2=%g, shape=%r)" % (
                    self.dist, self.poni1, self.poni2, self.rot1, self.rot2, self.rot3, self.wavelength,
                    self.detector, self.pixel1, self.pixel2, self.shape))

    # -- set-up ---------------------------------------------------------------

    def _frame_shape(self, data):
        shape = tuple(getattr(data, "shape", _np.shape(data)))
        frame = shape[-2:] if len(shape) in (2, 3) else None
        if frame is None:
            raise _kiln.InvalidArgument("data of shape %r: give a (rows, cols) frame or an (n, rows, cols) stack"
                                        % (shape,))
        if self.shape is not None and frame != self.shape:
            raise _kiln.InvalidArgument("frames of shape %r do not match the detector's %r" % (frame, self.shape))
        return frame

    def _mask(self, mask):
        """The caller's mask OR-ed with the detector's gap mask."""
        if self.detector_mask is None:
            return mask
        if mask is None:
            return self.detector_mask
        return _np.logical_or(_np.asarray(mask) != 0, self.detector_mask).astype(_np.uint8)

    def _integrator(self, data, **setup):
        frame = self._frame_shape(data)
        # The frame's shape, and the caller's arrays by identity: the same
        # objects give the same set-up (the detector's mask is OR-ed in only
        # when an integrator is made).
        key = (frame,) + tuple(sorted((k, id(v) if isinstance(v, _np.ndarray) or hasattr(v, "shape") else v)
                                      for k, v in setup.items()))
        entry = self._cache.get(key)
        if entry is None:
            ai = _kiln.AzimuthalIntegrator(
                shape=frame, pixel1=self.pixel1, pixel2=self.pixel2, dist=self.dist, poni1=self.poni1,
                poni2=self.poni2, rot1=self.rot1, rot2=self.rot2, rot3=self.rot3, wavelength=self.wavelength,
                context=self._context, **dict(setup, mask=self._mask(setup.get("mask"))))
            # The caller's arrays stay referenced, so the ids in the key stay theirs.
            entry = self._cache[key] = (ai, setup)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        return entry[0]

    # Arguments of pyFAI's methods that go to kiln.AzimuthalIntegrator as they are.
    _PASSED = ("radial_range", "azimuth_range", "dark", "flat", "mask", "polarization_factor", "dummy", "variance",
               "empty", "dark_variance", "renormalize")

    def _integrator_for(self, data, args, model, **extra):
        """The integrator for a pyFAI method's arguments (its locals())."""
        setup = {k: args[k] for k in self._PASSED if k in args}
        setup.update(extra)
        if "npt" not in setup:
            setup["npt"] = int(args["npt"])
        if "unit" not in setup:
            setup["unit"] = args["unit"]
        return self._integrator(data, pixel_split=_split_of(args["method"]),
                                solid_angle=bool(args["correctSolidAngle"]),
                                delta_dummy=args.get("delta_dummy") or 0.0, error_model=model, **setup)

    @staticmethod
    def _result(res, unit, with_sigma):
        names = ["intensity", "sigma", "sem", "std", "sum_signal", "sum_variance", "sum_normalization", "count"]
        arrays = {k: _np.asarray(getattr(res, k).get(), dtype=_np.float64) for k in names}
        arrays["radial"] = res.radial
        arrays["azimuthal"] = res.azimuthal if len(res.azimuthal) else None
        if not with_sigma:
            arrays["sigma"] = None
        return Result(arrays, unit)

    # -- pyFAI's methods --------------------------------------------------------

    def integrate1d(self, data, npt, correctSolidAngle=True, variance=None, error_model=None,
                    radial_range=None, azimuth_range=None, mask=None, dummy=None, delta_dummy=None,
                    polarization_factor=None, dark=None, flat=None, method="csr", unit="q_nm^-1",
                    empty=0.0, dark_variance=False, renormalize=False):
        """pyFAI's integrate1d_ng: the mean intensity in npt bins of unit,
        with the corrections and error model given ('poisson', 'azimuthal',
        'variance'; None: 'variance' when a variance is given, else no
        sigma). dark_variance: whether the Poisson variance includes the
        dark's (False: pyFAI 0.21's compiled integrators; True: its Python
        reference and kiln.AzimuthalIntegrator's default). azimuth_range:
        a sector (chi, degrees). renormalize: pyFAI 0.21's rule for split
        pixels cut by a range edge (False: they keep only their inside
        part)."""
        model = error_model or ("variance" if variance is not None else "none")
        ai = self._integrator_for(data, locals(), model)
        return self._result(ai.integrate(data), unit, model != "none")

    def integrate2d(self, data, npt_rad, npt_azim=360, correctSolidAngle=True, variance=None, error_model=None,
                    radial_range=None, azimuth_range=None, mask=None, dummy=None, delta_dummy=None,
                    polarization_factor=None, dark=None, flat=None, method="bbox", unit="q_nm^-1", empty=0.0,
                    dark_variance=False, renormalize=False):
        """pyFAI's integrate2d_ng: a cake of npt_azim x npt_rad bins; the
        result's arrays are (npt_azim, npt_rad) ((n, npt_azim, npt_rad) for
        n frames), with radial and azimuthal (chi, degrees) centres."""
        model = error_model or ("variance" if variance is not None else "none")
        ai = self._integrator_for(data, locals(), model, npt=int(npt_rad), npt_azim=int(npt_azim))
        return self._result(ai.integrate(data), unit, model != "none")

    def integrate_radial(self, data, npt, npt_rad=100, correctSolidAngle=True, radial_range=None,
                         azimuth_range=None, mask=None, dummy=None, delta_dummy=None, polarization_factor=None,
                         dark=None, flat=None, method="csr", unit="chi_deg", radial_unit="q_nm^-1", empty=0.0,
                         renormalize=False):
        """pyFAI's integrate_radial: the intensity in npt azimuthal bins
        (chi, degrees), summed over npt_rad radial bins of radial_unit in
        radial_range; result.radial holds the chi centres."""
        if unit != "chi_deg":
            raise _kiln.InvalidArgument("integrate_radial: unit %r; kiln gives chi in degrees ('chi_deg')" % (unit,))
        ai = self._integrator_for(data, locals(), "none", npt=int(npt_rad), unit=radial_unit, npt_azim=int(npt),
                                  radial_sum=True)
        return self._result(ai.integrate(data), unit, False)

    def sigma_clip(self, data, npt, correctSolidAngle=True, variance=None, error_model=None,
                   radial_range=None, mask=None, dummy=None, delta_dummy=None, polarization_factor=None,
                   dark=None, flat=None, method=("no", "csr", "cython"), unit="q_nm^-1", thres=5.0,
                   max_iter=5, empty=0.0, dark_variance=False, threshold="chauvenet"):
        """pyFAI's sigma_clip_ng: integration keeping, per bin, the pixels
        within t standard deviations of the mean, iterated up to max_iter
        times; t = max(thres, Chauvenet's criterion for the bin's count)
        (threshold 'chauvenet', pyFAI's rule) or thres ('fixed').
        error_model None: 'variance' when a variance is given, else
        'poisson' (pyFAI 0.21's fallback)."""
        model = error_model or ("variance" if variance is not None else "poisson")
        ai = self._integrator_for(data, locals(), model)
        return self._result(ai.sigma_clip(data, thres, max_iter, threshold), unit, True)

    def medfilt1d(self, data, npt=1024, correctSolidAngle=True, polarization_factor=None, variance=None,
                  error_model=None, radial_range=None, dark=None, flat=None, method=("no", "csr", "cython"),
                  unit="q_nm^-1", percentile=50, dummy=None, delta_dummy=None, mask=None, empty=0.0,
                  dark_variance=False):
        """pyFAI's medfilt1d_ng: per bin, the mean of the pixels between two
        percentiles of the normalized values (percentile: one number, the
        same twice, or a (low, high) pair, in percent; 50: the median)."""
        lo, hi = _percentiles(percentile)
        model = error_model or ("variance" if variance is not None else "none")
        ai = self._integrator_for(data, locals(), model)
        return self._result(ai.medfilt1d(data, lo, hi), unit, model != "none")

    def separate(self, data, npt=1024, unit="2th_deg", method=("no", "csr", "cython"), percentile=50,
                 mask=None, restore_mask=True, correctSolidAngle=True, polarization_factor=None, dark=None,
                 flat=None, dummy=None, delta_dummy=None):
        """pyFAI's separate: (bragg, amorphous) NumPy images. The amorphous
        part is medfilt1d's profile at each pixel's radial position, the
        corrections undone; bragg = data - amorphous. With restore_mask,
        masked pixels keep data's value in both."""
        lo, hi = _percentiles(percentile)
        ai = self._integrator_for(data, locals(), "none")
        bragg, amorphous, _ = ai.separate(data, lo, hi, restore_mask)
        return bragg.get(), amorphous.get()


def _percentiles(percentile):
    """pyFAI's percentile argument (a number or a (low, high) pair, in
    percent) as kiln's quantiles in [0, 1]."""
    lo, hi = (percentile, percentile) if _np.isscalar(percentile) else tuple(percentile)
    return float(lo) / 100.0, float(hi) / 100.0


def load(path, *, context=None):
    """An Integrator from a pyFAI .poni file (versions 1 and 2), as pyFAI.load."""
    p = _kiln.read_poni(path)
    det = p["detector"]
    return Integrator(dist=p["dist"], poni1=p["poni1"], poni2=p["poni2"], rot1=p["rot1"], rot2=p["rot2"],
                      rot3=p["rot3"], wavelength=p["wavelength"], detector=det, context=context)
