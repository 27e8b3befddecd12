"""The ctypes mirror of sk_lda.h: every struct's size and offsets as the C compiler lays them out, every
declared function bound, and the package's version equal to the header's."""

import os
import re
import shutil
import subprocess

import pytest

import sklda
from sklda import _lib

from conftest import PACKAGE_DIR

HEADER = os.path.join(PACKAGE_DIR, "..", "include", "sk_lda.h")
STRUCTS = {"sklda_error": _lib.SkldaErrorStruct, "sklda_read_options": _lib.SkldaReadOptions,
           "sklda_progress": _lib.SkldaProgress, "sklda_options": _lib.SkldaOptions,
           "sklda_infer_options": _lib.SkldaInferOptions}


def header_text():
    with open(HEADER, encoding="utf-8") as f:
        return f.read()


def test_structs_match_the_c_compiler(tmp_path):
    cc = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler to lay out sk_lda.h's structs")
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "sk_lda.h"', "int main(void) {"]
    for cname, cls in STRUCTS.items():
        lines.append('printf("%s size %%zu\\n", sizeof(%s));' % (cname, cname))
        for field, _ in cls._fields_:
            lines.append('printf("%s %s %%zu\\n", offsetof(%s, %s));' % (cname, field, cname, field))
    lines += ["return 0;", "}"]
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines))
    exe = tmp_path / "layout"
    subprocess.run([cc, "-std=c99", "-I", os.path.dirname(HEADER), str(src), "-o", str(exe)], check=True)
    out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split("\n")
    want = {}
    for line in filter(None, out):
        cname, field, value = line.split()
        want[(cname, field)] = int(value)
    for cname, cls in STRUCTS.items():
        assert want[(cname, "size")] == __import__("ctypes").sizeof(cls), cname
        for field, _ in cls._fields_:
            assert want[(cname, field)] == getattr(cls, field).offset, (cname, field)


def test_every_struct_field_is_mirrored():
    """The ctypes structs name the header's fields in the header's order (a new field fails here)."""
    text = header_text()
    for cname, cls in STRUCTS.items():
        body = re.search(r"typedef struct %s \{(.*?)\} %s;" % (cname, cname), text, re.S).group(1)
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        fields = re.findall(r"(\w+)(?:\[\d+\])?;", body)
        assert fields == [f for f, _ in cls._fields_], cname


def test_every_function_is_bound():
    declared = set(re.findall(r"^[\w ]+?\**(sklda_\w+)\(", header_text(), re.M))
    assert declared == set(_lib._SIGNATURES), declared ^ set(_lib._SIGNATURES)
    lib = _lib.lib()
    for name in declared:
        assert getattr(lib, name).argtypes is not None or _lib._SIGNATURES[name][1] == []


def test_version_is_the_headers():
    version = re.search(r'#define SKLDA_VERSION "([^"]+)"', header_text()).group(1)
    assert sklda.__version__ == version
    assert sklda.library_version() == version


def test_library_not_found_names_both_places(monkeypatch, tmp_path):
    monkeypatch.setenv("SKLDA_LIBRARY", str(tmp_path / "nowhere" / "libsk_lda.so"))
    with pytest.raises(OSError) as e:
        _lib._load()
    assert "nowhere" in str(e.value) and "SKLDA_LIBRARY" in str(e.value) and "pip install" in str(e.value)
