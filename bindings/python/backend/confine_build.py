# SPDX-License-Identifier: MIT
"""A PEP 517 build backend for this package alone, standard library only: the wheel holds
the confine/ package as it is (pure Python, no compiled code), the sdist the files below.

pip runs it from backend-path (pyproject.toml) with no build requirement, so that
`pip install ./bindings/python` works without a package index."""
from __future__ import annotations

import base64
import hashlib
import io
import os
import tarfile
import zipfile
from typing import Any, Optional

try:
    import tomllib
except ImportError:  # Python < 3.11: the two fields read from pyproject.toml
    tomllib = None  # type: ignore[assignment]

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "confine"
SDIST_FILES = ["pyproject.toml", "README.md", "backend/confine_build.py"]


def _project() -> dict[str, Any]:
    with open(os.path.join(HERE, "pyproject.toml"), "rb") as f:
        data = f.read()
    if tomllib is not None:
        return dict(tomllib.loads(data.decode())["project"])
    out: dict[str, Any] = {}
    for line in data.decode().splitlines():
        k, _, v = line.partition("=")
        if k.strip() in ("name", "version", "description", "requires-python"):
            out.setdefault(k.strip(), v.strip().strip('"'))
    return out


def _names() -> tuple[str, str]:
    p = _project()
    return str(p["name"]), str(p["version"])


def _metadata() -> bytes:
    p = _project()
    lines = ["Metadata-Version: 2.1", "Name: %s" % p["name"], "Version: %s" % p["version"],
             "Summary: %s" % p.get("description", ""), "License: MIT",
             "Requires-Python: %s" % p.get("requires-python", ">=3.9"),
             "Description-Content-Type: text/markdown", ""]
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        return ("\n".join(lines) + "\n" + f.read()).encode()


def _package_files() -> list[str]:
    out = []
    for d, dirs, files in os.walk(os.path.join(HERE, PACKAGE)):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        for f in sorted(files):
            if f.endswith((".py", ".pyi")) or f == "py.typed":
                out.append(os.path.relpath(os.path.join(d, f), HERE))
    return out


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "%s,sha256=%s,%d" % (name, digest, len(data))


def _dist_info(name: str, version: str) -> dict[str, bytes]:
    di = "%s-%s.dist-info" % (name, version)
    wheel = "Wheel-Version: 1.0\nGenerator: confine_build\nRoot-Is-Purelib: true\n" \
            "Tag: py3-none-any\n"
    return {di + "/METADATA": _metadata(), di + "/WHEEL": wheel.encode(),
            di + "/top_level.txt": (PACKAGE + "\n").encode()}


def get_requires_for_build_wheel(config_settings: Optional[dict[str, Any]] = None) -> list[str]:
    return []


def get_requires_for_build_sdist(config_settings: Optional[dict[str, Any]] = None) -> list[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str,
                                     config_settings: Optional[dict[str, Any]] = None) -> str:
    name, version = _names()
    for path, data in _dist_info(name, version).items():
        full = os.path.join(metadata_directory, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb") as f:
            f.write(data)
    return "%s-%s.dist-info" % (name, version)


def build_wheel(wheel_directory: str, config_settings: Optional[dict[str, Any]] = None,
                metadata_directory: Optional[str] = None) -> str:
    name, version = _names()
    wheel_name = "%s-%s-py3-none-any.whl" % (name, version)
    entries: dict[str, bytes] = {}
    for rel in _package_files():
        with open(os.path.join(HERE, rel), "rb") as f:
            entries[rel.replace(os.sep, "/")] = f.read()
    entries.update(_dist_info(name, version))
    record = "%s-%s.dist-info/RECORD" % (name, version)
    lines = [_record_line(n, d) for n, d in entries.items()] + [record + ",,"]
    entries[record] = ("\n".join(lines) + "\n").encode()
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w",
                         zipfile.ZIP_DEFLATED) as z:
        for n, d in entries.items():
            info = zipfile.ZipInfo(n, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, d)
    return wheel_name


def build_sdist(sdist_directory: str, config_settings: Optional[dict[str, Any]] = None) -> str:
    name, version = _names()
    base = "%s-%s" % (name, version)
    out = os.path.join(sdist_directory, base + ".tar.gz")
    with tarfile.open(out, "w:gz") as t:
        for rel in SDIST_FILES + _package_files():
            t.add(os.path.join(HERE, rel), arcname=base + "/" + rel, recursive=False)
        pkg = io.BytesIO(_metadata())
        info = tarfile.TarInfo(base + "/PKG-INFO")
        info.size = len(pkg.getvalue())
        t.addfile(info, pkg)
    return base + ".tar.gz"
