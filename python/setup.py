"""Builds the package with libstaccato.so inside it.

The library is built from the repository this folder belongs to (scripts/build-library runs
SwiftPM), unless STACCATO_PREBUILT_LIBRARY names one already built, and is packed into
staccato/lib with the drum kit and the font Staccato ships with (staccato/share/staccato), where
the library looks for them. It carries the Swift runtime inside it: the wheel runs on Linux
x86-64 machines with no Swift toolchain, needing only the C and C++ runtimes and the system's
libsndfile, libspeexdsp, libjack and libasound.
"""
import os
import re
import shutil
import subprocess
from pathlib import Path

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # wheel is a build requirement; without it there is no wheel to tag
    bdist_wheel = None

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# What the library finds beside it (InstrumentLoader.shippedFile): the kit that plays channel 10
# for a font without one, and the fallback font when the system has none.
SHIPPED = ["samples/drums", "soundfonts/FluidR3_GM_piano_xylo.sf2", "soundfonts/FluidR3_GM_piano_xylo.sf2.LICENSE"]


def staccato_version() -> str:
    text = (ROOT / "Sources/Library/Engine/Version.swift").read_text()
    return re.search(r'public let staccatoVersion = "([^"]+)"', text).group(1)


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        library = os.environ.get("STACCATO_PREBUILT_LIBRARY")
        if library and not os.path.isabs(library):
            library = str(ROOT / library)  # as named from the repository's root
        if not library:
            output = subprocess.run([str(ROOT / "scripts/build-library")], check=True, stdout=subprocess.PIPE, text=True).stdout
            library = output.strip().splitlines()[-1]
        package = Path(self.build_lib) / "staccato"
        (package / "lib").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(library, package / "lib" / Path(library).name)
        for item in SHIPPED:
            source, target = ROOT / item, package / "share" / "staccato" / item
            target.parent.mkdir(parents=True, exist_ok=True)
            if source.is_dir():
                shutil.copytree(source, target, dirs_exist_ok=True)
            else:
                shutil.copyfile(source, target)


class PlatformDistribution(Distribution):
    """Holds a native library: the wheel is for one platform."""

    def has_ext_modules(self):
        return True


commands = {"build_py": BuildWithLibrary}
if bdist_wheel is not None:
    class PlatformWheel(bdist_wheel):
        """Any Python 3 on this platform: the library is called through ctypes, not built against Python."""

        def get_tag(self):
            _, _, platform = super().get_tag()
            return "py3", "none", platform

    commands["bdist_wheel"] = PlatformWheel

setup(version=staccato_version(), cmdclass=commands, distclass=PlatformDistribution)
