# Sourced by the tests that load sk-lda's .npy files with NumPy (phi_npy.sh, theta_npy.sh): sets python to
# the first python3 that has numpy (the one on the PATH, else the system's: python3-numpy installs there
# when a pyenv or venv python3 comes first), or exits 77 (ctest: skipped) when there is none.
python=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy' >/dev/null 2>&1; then
    python=$p
    break
  fi
done
if [ -z "$python" ]; then
  echo "SKIP: no python3 with numpy (apt-get install python3-numpy)"
  exit 77
fi
