"""Builds infergrid._core with the repository's CMake build (the same libraries as the
`infergrid` command) for pip: CMake configures the repository root into INFERGRID_BUILD_DIR
(default: build-python/ at the root) for this interpreter, builds the module, and hands the
shared object to setuptools. The system's CMake, compiler and pybind11; no network."""
import glob
import os
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build_dir = os.environ.get("INFERGRID_BUILD_DIR", os.path.join(ROOT, "build-python"))
        configure = ["cmake", "-S", ROOT, "-B", build_dir, "-DCMAKE_BUILD_TYPE=Release",
                     "-DINFERGRID_BUILD_KERNELS=OFF", "-DPython3_EXECUTABLE=" + sys.executable]
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        subprocess.run(configure, check=True)
        subprocess.run(["cmake", "--build", build_dir, "--target", "infergrid_python"], check=True)
        built = glob.glob(os.path.join(build_dir, "sim", "app", "python", "infergrid", "_core*.so"))
        if len(built) != 1:
            raise RuntimeError("expected one infergrid/_core*.so in %s, found %s" % (build_dir, built))
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


setup(ext_modules=[Extension("infergrid._core", sources=[])], cmdclass={"build_ext": CMakeBuild})
