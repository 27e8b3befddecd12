#!/usr/bin/env bash
# An Open MPI that runs without installing: Debian's .deb files unpacked with dpkg -x into a folder, and
# the environment that makes the relocated copy find itself. For machines with no apt and no network
# (the lent GPU machines, issue 34): fetch the files on a machine that has apt, carry them, unpack there.
#
#   fetch (where apt works; about 7 MB for Debian 12's Open MPI 4.1.4 and the libraries it needs beyond a
#   base system):
#     bash bench/mpi_from_debs.sh fetch DEB_DIR
#   unpack and print the environment (source the output, then configure sk-lda with
#   -DMPI_C_COMPILER="$SK_MPICC" so that CMake's FindMPI takes this copy):
#     eval "$(bash bench/mpi_from_debs.sh env DEB_DIR PREFIX)"
#     mpirun --allow-run-as-root -n 4 ...   # root needs the flag; OPAL_PREFIX makes the copy relocatable
#
# Checked on the development machine (Debian 12, 2 cores): mpirun -n 2 runs, and sk-lda configures with
# "MPI found" and links against it.
set -euo pipefail

# Open MPI and the shared libraries it loads that a base system may lack (libopenmpi3's and libpmix2's
# dependencies, one level, plus what those load: netlink, numa, rdma, psm).
packages="openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev libpmix2 libevent-core-2.1-7
  libevent-pthreads-2.1-7 libfabric1 libhwloc15 libhwloc-plugins libibverbs1 ibverbs-providers librdmacm1
  libnl-3-200 libnl-route-3-200 libpsm-infinipath1 libpsm2-2 libucx0 libmunge2 libnuma1 libatomic1 libudev1"

usage() {
  echo "usage: bash bench/mpi_from_debs.sh fetch DEB_DIR | env DEB_DIR PREFIX" >&2
  exit 2
}

case "${1:-}" in
  fetch)
    [ $# -eq 2 ] || usage
    mkdir -p "$2"
    # shellcheck disable=SC2086 # the package list splits on purpose
    (cd "$2" && apt-get download $packages)
    ;;
  env)
    [ $# -eq 3 ] || usage
    deb_dir=$2
    mkdir -p "$3"
    prefix=$(cd "$3" && pwd)
    ls "$deb_dir"/*.deb >/dev/null 2>&1 || { echo "mpi_from_debs.sh: no .deb files in $deb_dir" >&2; exit 1; }
    for f in "$deb_dir"/*.deb; do dpkg -x "$f" "$prefix"; done
    usr=$prefix/usr
    lib=$usr/lib/x86_64-linux-gnu
    [ -x "$usr/bin/orterun" ] || { echo "mpi_from_debs.sh: $usr/bin/orterun missing after unpacking" >&2; exit 1; }
    # Links the Debian packages leave to update-alternatives: make them here.
    ln -sf orterun "$usr/bin/mpirun"
    ln -sf mpicc.openmpi "$usr/bin/mpicc"
    psm=$(find "$usr/lib/libpsm1" -name "libpsm_infinipath.so.1.*" 2>/dev/null | head -1)
    [ -n "$psm" ] && ln -sf "$psm" "$lib/libpsm_infinipath.so.1"
    echo "export OPAL_PREFIX='$usr'"
    echo "export PATH='$usr/bin':\"\$PATH\""
    echo "export LD_LIBRARY_PATH='$prefix/lib/x86_64-linux-gnu:$lib:$lib/openmpi/lib':\"\${LD_LIBRARY_PATH:-}\""
    # PMIx looks for its help texts at its build prefix; its warning about a missing compressor is noise.
    echo "export PMIX_MCA_pcompress_base_silence_warning=1"
    echo "export SK_MPICC='$usr/bin/mpicc.openmpi'"
    ;;
  *) usage ;;
esac
