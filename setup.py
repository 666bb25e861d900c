"""Builds the Python package kiln with CMake (see pyproject.toml).

The extension kiln._kiln and libkiln.so (its SONAME file, found beside the
module through an $ORIGIN RPATH) are built by CMake in setuptools' build_temp
folder for the Python running pip, then copied into the package. Tests,
samples, benchmark and install rules are left out of that build.
KILN_CMAKE_ARGS adds CMake arguments; KILN_BUILD_JOBS sets the build's
parallelism (default: every core).
"""
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = Path(self.build_temp).resolve() / "cmake"
        build.mkdir(parents=True, exist_ok=True)
        configure = [
            "cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
            f"-DPython_EXECUTABLE={sys.executable}",
            "-DKILN_BUILD_PYTHON=ON", "-DKILN_BUILD_TESTS=OFF", "-DKILN_BUILD_SAMPLES=OFF",
            "-DKILN_BUILD_BENCH=OFF", "-DKILN_INSTALL=OFF",
        ] + shlex.split(os.environ.get("KILN_CMAKE_ARGS", ""))
        jobs = os.environ.get("KILN_BUILD_JOBS", str(os.cpu_count() or 1))
        self.announce("kiln: configuring with CMake", level=2)
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", str(build), "-j", jobs, "--target", "kiln_python",
                        "kiln_python_files"], check=True)
        package = build / "python" / "kiln"
        target = Path(self.get_ext_fullpath(ext.name)).parent
        target.mkdir(parents=True, exist_ok=True)
        for f in package.iterdir():
            if f.name.startswith(("_kiln", "libkiln.so")):
                shutil.copy2(f, target / f.name)


# setuptools' folders under build-python/, apart from a CMake build in build/.
setup(ext_modules=[Extension("kiln._kiln", sources=[])], cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": "build-python"}})
