# Sourced by the tests that run Python: sk_find_python MODULES prints the first python3 that imports MODULES
# (e.g. "numpy" or "numpy, pytest"): the one on the PATH, else the system's (apt's python3-* packages
# install there when a pyenv or venv python3 comes first); nothing, and status 1, when none does.
# Sourced without SK_FIND_PYTHON_ONLY (the tests that load sk-lda's .npy files: phi_npy.sh, theta_npy.sh),
# it also sets python to the first python3 with numpy, or exits 77 (ctest: skipped) when there is none.
sk_find_python() {
  local p
  for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c "import $1" >/dev/null 2>&1; then
      echo "$p"
      return 0
    fi
  done
  return 1
}
if [ -z "${SK_FIND_PYTHON_ONLY:-}" ]; then
  python=$(sk_find_python numpy) || {
    echo "SKIP: no python3 with numpy (apt-get install python3-numpy)"
    exit 77
  }
fi
