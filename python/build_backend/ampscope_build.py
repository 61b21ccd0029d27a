"""A minimal PEP 517 build backend for the pure-Python `ampscope` package.

Why not setuptools: pip builds in an isolated environment and would download
setuptools and wheel into it, which fails on machines without network (clusters,
this project's build hosts). The package is a handful of .py files, so the wheel is
written here with zipfile: the files, METADATA, WHEEL and RECORD (PEP 427).
"""
import base64
import hashlib
import os
import re
import tarfile
import zipfile

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)
_PACKAGE = "ampscope"


def _version():
    # One definition: ampscope/_version.py (a test checks it against CMake's project version).
    with open(os.path.join(_ROOT, _PACKAGE, "_version.py"), encoding="utf-8") as handle:
        match = re.search(r'__version__\s*=\s*"([^"]+)"', handle.read())
    if not match:
        raise RuntimeError("ampscope/_version.py: no __version__")
    return match.group(1)


def _package_files():
    for folder, _dirs, files in os.walk(os.path.join(_ROOT, _PACKAGE)):
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                yield path, os.path.relpath(path, _ROOT).replace(os.sep, "/")


def _metadata(version):
    return ("Metadata-Version: 2.1\n"
            f"Name: {_PACKAGE}\n"
            f"Version: {version}\n"
            "Summary: Records a PyTorch training run into an AmpScope run directory\n"
            "Requires-Python: >=3.8\n")


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}\n"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    version = _version()
    info = f"{_PACKAGE}-{version}.dist-info"
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    with open(os.path.join(metadata_directory, info, "METADATA"), "w", encoding="utf-8") as handle:
        handle.write(_metadata(version))
    return info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    info = f"{_PACKAGE}-{version}.dist-info"
    wheel_name = f"{_PACKAGE}-{version}-py3-none-any.whl"
    entries = [(arcname, open(path, "rb").read()) for path, arcname in _package_files()]
    entries.append((f"{info}/METADATA", _metadata(version).encode()))
    entries.append((f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: ampscope_build\n"
                                     b"Root-Is-Purelib: true\nTag: py3-none-any\n"))
    record = "".join(_record_line(name, data) for name, data in entries) + f"{info}/RECORD,,\n"
    entries.append((f"{info}/RECORD", record.encode()))
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w",
                         zipfile.ZIP_DEFLATED) as wheel:
        for name, data in entries:
            wheel.writestr(name, data)
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    version = _version()
    base = f"{_PACKAGE}-{version}"
    name = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz") as archive:
        for relative in ("pyproject.toml", "build_backend/ampscope_build.py"):
            archive.add(os.path.join(_ROOT, relative), arcname=f"{base}/{relative}")
        for path, arcname in _package_files():
            archive.add(path, arcname=f"{base}/{arcname}")
    return name
