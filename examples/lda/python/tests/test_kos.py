"""The README's quick start, run as written on the KOS corpus (skipped where the shared corpora are not)."""

import os
import re

import numpy as np

from conftest import PACKAGE_DIR


def test_readme_quick_start_runs_on_kos(kos_dir, tmp_path, monkeypatch, capsys):
    with open(os.path.join(PACKAGE_DIR, "README.md"), encoding="utf-8") as f:
        code = re.search(r"## Quick start.*?```python\n(.*?)```", f.read(), re.S).group(1)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "kos").symlink_to(kos_dir)
    ns = {}
    exec(compile(code, "README.md", "exec"), ns)
    out = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in out[:20]] == [str(k) for k in range(20)], out
    assert all(len(line.split()) == 9 for line in out[:20])
    assert out[20].startswith("(3430, 20) ")
    lda = ns["lda"]
    assert (tmp_path / "kos.skl").is_file()
    h = lda.joint_ll_history_
    assert h[-1, 0] == 200 and h[-1, 1] > h[0, 1] + 2.0, h
    # one CPU run (seed 1) ended at -8.11 with a mean NPMI of 0.18; AGA on a GPU converges as fast or faster
    assert -8.35 < lda.joint_ll_ < -7.9, lda.joint_ll_
    assert float(out[20].split()[-1]) > 0.08
    np.testing.assert_allclose(lda.theta_.sum(axis=1), 1.0, atol=1e-5)
