#!/usr/bin/env bash
# ctest's entry to sklda's tests (../CMakeLists.txt sets SKLDA_LIBRARY, PYTHONPATH, SK_LDA_BIN, SK_DATA).
#   usage: run_pytest.sh cpu|gpu
# cpu: every test not marked gpu. Without a python3 that has numpy and pytest this FAILS, saying what to
#      install: unlike the .npy checks (tests/lda/numpy_python.sh, which skip), these tests are the only
#      ones of the package, so a missing interpreter must not pass unseen.
# gpu: the tests marked gpu; exits 77 (ctest: skipped) when libsk_lda sees no GPU.
# The interpreter is the first of python3 on the PATH and the system's /usr/bin/python3 that has both (apt's
# python3-numpy and python3-pytest install into the system's when a pyenv or venv python3 comes first).
set -uo pipefail
mode=${1:-}
case "$mode" in
  cpu) select="not gpu" ;;
  gpu) select="gpu" ;;
  *) echo "usage: $0 cpu|gpu" >&2; exit 2 ;;
esac
here=$(cd "$(dirname "$0")" && pwd)
SK_FIND_PYTHON_ONLY=1 . "$here/../../../../tests/lda/numpy_python.sh"
python=$(sk_find_python "numpy, pytest")
if [ -z "$python" ]; then
  echo "FAIL: no python3 with numpy and pytest, so sklda's tests cannot run" \
       "(apt-get install python3-numpy python3-pytest python3-scipy)" >&2
  exit 1
fi
"$python" -c 'import scipy' >/dev/null 2>&1 ||
  echo "note: $python has no scipy: the tests of scipy.sparse input are skipped (apt-get install python3-scipy)"
if [ "$mode" = gpu ]; then
  "$python" -c 'import sys, sklda; sys.exit(0 if sklda.gpu_available() else 3)'
  rc=$?
  if [ $rc -eq 3 ]; then
    echo "SKIP: libsk_lda sees no GPU (sklda.gpu_available() is False)"
    exit 77
  fi
  [ $rc -eq 0 ] || { echo "FAIL: sklda does not load (above)" >&2; exit 1; }
fi
cd "$here/.." || exit 1
exec "$python" -m pytest -q -rs -m "$select" tests
