# Run by ctest (sk_mixture_cli): sk-mixture's gen and fit end to end, and its answers to bad usage and
# bad files. -DSK_MIXTURE=the tool -DWORK=a scratch folder.

# check(CODE REGEX COMMAND...): the command exits CODE and its stdout and stderr together match REGEX
# ("" for any).
function(check code regex)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "${code}" OR NOT "${out}${err}" MATCHES "${regex}")
    message(FATAL_ERROR "wanted exit ${code} and output matching '${regex}' from: ${ARGN}\n"
                        "got exit ${rc}\nstdout: ${out}\nstderr: ${err}")
  endif()
  set(output "${out}${err}" PARENT_SCOPE)
endfunction()

function(count_lines file want)
  file(STRINGS ${file} lines)
  list(LENGTH lines n)
  if(NOT n EQUAL want)
    message(FATAL_ERROR "${file}: ${n} lines, wanted ${want}")
  endif()
endfunction()

set(M ${SK_MIXTURE})
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

# Usage.
check(0 "usage: sk-mixture COMMAND" ${M} --help)
check(0 "--npy FILE" ${M} fit --help)
check(0 "--overlap" ${M} gen --help)
check(2 "usage" ${M})
check(2 "unknown command 'frobnicate'" ${M} frobnicate)
check(2 "give one of --npy FILE, --csv FILE" ${M} fit -k 3)
check(2 "-k K is required" ${M} fit --csv ${WORK}/x.csv)
check(2 "-k: '0' is not a whole number in \\[1, 1024\\]" ${M} fit --csv ${WORK}/x.csv -k 0)
check(2 "-k: '1025'" ${M} fit --csv ${WORK}/x.csv -k 1025)
check(2 "--device: 'tpu' is not auto, cpu or gpu" ${M} fit --demo --device tpu)
check(2 "--demo makes its own data" ${M} fit --demo --csv ${WORK}/x.csv)
check(2 "--alpha: '-1'" ${M} fit --demo --alpha -1)
check(2 "--seed: ' -1' is not a whole number" ${M} fit --demo --seed " -1") # strtoull would wrap it
check(0 "fit: note: --sweeps was given 2 times; the last, 2, is used" ${M} fit --demo -n 5 --sweeps 2 --device cpu)
check(2 "--out DIR is required" ${M} gen -N 10)
check(2 "-d: '300'" ${M} gen --out ${WORK}/g -d 300)
check(2 "fewer than K" ${M} gen --out ${WORK}/g -N 5 -k 6)

# gen writes the data and the truth, the same bytes for the same options.
check(0 "wrote .*data.npy: 3000 points x 3 dimensions from 4 planted well-separated" ${M} gen --out ${WORK}/g -N 3000 -d 3 -k 4 --seed 9)
check(0 "data.csv" ${M} gen --out ${WORK}/gc -N 3000 -d 3 -k 4 --seed 9 --csv)
count_lines(${WORK}/g/truth_assign.txt 3000)
count_lines(${WORK}/gc/data.csv 3000)
count_lines(${WORK}/g/truth_components.csv 5)
file(SHA256 ${WORK}/g/data.npy first)
check(2 "gen: --out: .*g/data.npy exists \\(--overwrite replaces it\\)"
      ${M} gen --out ${WORK}/g -N 3000 -d 3 -k 4 --seed 9)
check(0 "" ${M} gen --out ${WORK}/g -N 3000 -d 3 -k 4 --seed 9 --threads 1 --overwrite)
file(SHA256 ${WORK}/g/data.npy second)
if(NOT first STREQUAL second)
  message(FATAL_ERROR "gen is not deterministic (or depends on the thread count)")
endif()

# fit on both formats writes the three files; the adjusted Rand index is not printed (no truth), but
# the fitted components' sizes must be the planted ones' (well separated: every point recovered).
check(0 "read .*data.npy: 3000 points x 3 dimensions.*4 of 4 components hold points"
      ${M} fit --npy ${WORK}/g/data.npy -k 4 -n 30 --device cpu --out ${WORK}/fit_npy)
count_lines(${WORK}/fit_npy/assign.txt 3000)
count_lines(${WORK}/fit_npy/components.csv 9)
count_lines(${WORK}/fit_npy/trace.csv 31)
file(STRINGS ${WORK}/fit_npy/components.csv header LIMIT_COUNT 1)
if(NOT header STREQUAL "estimate,component,weight,mean_1,mean_2,mean_3,var_1,var_2,var_3")
  message(FATAL_ERROR "components.csv header: ${header}")
endif()
file(STRINGS ${WORK}/fit_npy/trace.csv header LIMIT_COUNT 1)
if(NOT header STREQUAL "sweep,seconds,log_likelihood,log_joint,size_0,size_1,size_2,size_3")
  message(FATAL_ERROR "trace.csv header: ${header}")
endif()
check(0 "4 of 4 components hold points" ${M} fit --csv ${WORK}/gc/data.csv -k 4 -n 30 --device cpu --out ${WORK}/fit_csv)
count_lines(${WORK}/fit_csv/assign.txt 3000)
# -v says how the z-step runs (on the CPU here; on a GPU the kernel table and the chosen row).
check(0 "z-step: the CPU reference" ${M} fit --csv ${WORK}/gc/data.csv -k 4 -n 2 --device cpu -v)

# The same seed gives the same results, whatever the thread count.
check(0 "" ${M} fit --npy ${WORK}/g/data.npy -k 4 -n 30 --device cpu --threads 1 --out ${WORK}/fit_npy1)
foreach(f assign.txt components.csv)
  file(SHA256 ${WORK}/fit_npy/${f} a)
  file(SHA256 ${WORK}/fit_npy1/${f} b)
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "${f} differs between the default thread count and --threads 1")
  endif()
endforeach()

# Results already in --out are refused unless --overwrite, which removes them before the first sweep;
# an output that is the input file is refused even then (the data would become the trace).
file(SHA256 ${WORK}/fit_npy/components.csv before)
check(2 "fit: --out: .*fit_npy/trace.csv exists \\(--overwrite replaces it\\)" ${M} fit --npy ${WORK}/g/data.npy -k 4
      -n 3 --device cpu --out ${WORK}/fit_npy)
file(SHA256 ${WORK}/fit_npy/components.csv after)
if(NOT before STREQUAL after)
  message(FATAL_ERROR "a refused fit changed the earlier results")
endif()
check(0 "" ${M} fit --npy ${WORK}/g/data.npy -k 4 -n 30 --device cpu --out ${WORK}/fit_npy --overwrite)
file(SHA256 ${WORK}/fit_npy/components.csv after)
if(NOT before STREQUAL after)
  message(FATAL_ERROR "fit --overwrite with the same seed wrote other results")
endif()
file(MAKE_DIRECTORY ${WORK}/self)
file(COPY_FILE ${WORK}/gc/data.csv ${WORK}/self/trace.csv)
check(2 "fit: --out: .*self/trace.csv is the input file" ${M} fit --csv ${WORK}/self/trace.csv -k 4 -n 3 --device cpu
      --out ${WORK}/self --overwrite)
count_lines(${WORK}/self/trace.csv 3000)

# Bad files: exit 2 with the file and the row named.
file(WRITE ${WORK}/ragged.csv "a,b\n1,2\n3\n")
check(2 "ragged.csv: row 2 \\(line 3\\) has 1 cells" ${M} fit --csv ${WORK}/ragged.csv -k 1)
file(WRITE ${WORK}/word.csv "1,2\n3,x\n")
check(2 "word.csv: row 2 \\(line 2\\), column 2: 'x' is not a number" ${M} fit --csv ${WORK}/word.csv -k 1)
file(WRITE ${WORK}/nan.csv "1,2\n3,NaN\n")
check(2 "nan.csv: row 2 .*NaN" ${M} fit --csv ${WORK}/nan.csv -k 1)
file(WRITE ${WORK}/two.csv "1,2\n3,4\n")
check(2 "two.csv: 2 points, fewer than K = 3" ${M} fit --csv ${WORK}/two.csv -k 3)
file(WRITE ${WORK}/text.npy "not numpy")
check(2 "text.npy: not a .npy file" ${M} fit --npy ${WORK}/text.npy -k 1)
check(2 "missing.npy: cannot open" ${M} fit --npy ${WORK}/missing.npy -k 1)

# --device gpu: on a machine without a usable GPU, exit 1 and say why; with one, it fits, and -v names
# the z-step kernel table's row.
execute_process(COMMAND ${M} fit --npy ${WORK}/g/data.npy -k 4 -n 5 --device gpu -v RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT ((rc EQUAL 0 AND out MATCHES "z-step kernel: one-point-regs ") OR (rc EQUAL 1 AND err MATCHES "--device gpu: ")))
  message(FATAL_ERROR "--device gpu -v: exit ${rc}\nstdout: ${out}\nstderr: ${err}")
endif()
# --device auto falls back to the CPU and says so once (without a GPU), or fits on the GPU.
check(0 "" ${M} fit --npy ${WORK}/g/data.npy -k 4 -n 5)
string(REGEX MATCHALL "fitting on the CPU" notes "${output}")
list(LENGTH notes n_notes)
if(n_notes GREATER 1 OR (n_notes EQUAL 0 AND NOT output MATCHES "on GPU 0"))
  message(FATAL_ERROR "--device auto: wanted one fallback note or a GPU fit:\n${output}")
endif()
# An --out that is a file cannot be created.
file(WRITE ${WORK}/afile "x")
check(2 "afile: exists and is not a folder" ${M} fit --npy ${WORK}/g/data.npy -k 4 -n 5 --device cpu --out ${WORK}/afile)
# One exit rule (issue 31): an output path that cannot be written is the user's input, exit 2, for gen as
# for fit, refused before any work; so is an output file that is a folder.
check(2 "gen: --out: .*afile: exists and is not a folder" ${M} gen --out ${WORK}/afile/sub)
file(MAKE_DIRECTORY ${WORK}/outdir/trace.csv)
check(2 "trace.csv: exists and is not a regular file" ${M} fit --npy ${WORK}/g/data.npy -k 4 -n 5 --device cpu
      --out ${WORK}/outdir)
check(0 "Exit status: 0 success; 2 the user's input" ${M} --help)
