# CMake helpers both examples use (included by examples/CMakeLists.txt): the optional CUDA part of an
# example, and the registration of its test programs.

include(CheckLanguage)
check_language(CUDA)

# sk_example_gpu_part(OPTION DIR WHAT): option OPTION (ON by default) builds the example's CUDA part in
# DIR (a subfolder that adds its sources to the example's core library) when nvcc is found; without nvcc
# or with the option OFF the folder is skipped and the example runs on the CPU only.
macro(sk_example_gpu_part option dir what)
  option(${option} "Build ${what}'s CUDA part (${dir}) when nvcc is found" ON)
  if(${option} AND CMAKE_CUDA_COMPILER)
    add_subdirectory(${dir})
  endif()
endmacro()

# sk_example_has_gpu(CORE VAR): VAR is TRUE when the core library CORE was built with its CUDA part (the
# part defines <PREFIX>_HAVE_GPU=1 for its users).
function(sk_example_has_gpu core var)
  get_target_property(_defs ${core} INTERFACE_COMPILE_DEFINITIONS)
  set(${var} FALSE PARENT_SCOPE)
  foreach(_d IN LISTS _defs)
    if(_d MATCHES "^SK_[A-Z]+_HAVE_GPU=1$")
      set(${var} TRUE PARENT_SCOPE)
    endif()
  endforeach()
endfunction()

# sk_example_test(NAME CORE [GPU] [HOST] [TIMEOUT s] [DEFINITIONS d...]): the C11 program NAME.c of the
# current folder, linked to CORE, registered as the test NAME (label cpu; with GPU: label gpu, exit 77
# counted as skipped). HOST also registers NAME_host, the program with --host (its checks that need no
# GPU), as a cpu test.
function(sk_example_test name core)
  cmake_parse_arguments(T "GPU;HOST" "TIMEOUT" "DEFINITIONS" ${ARGN})
  add_executable(${name} ${name}.c)
  target_link_libraries(${name} PRIVATE ${core})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  set_target_properties(${name} PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  target_compile_definitions(${name} PRIVATE _POSIX_C_SOURCE=200809L ${T_DEFINITIONS})
  samplekit_strict_warnings(${name})
  add_test(NAME ${name} COMMAND ${name})
  if(T_GPU)
    set_tests_properties(${name} PROPERTIES LABELS gpu SKIP_RETURN_CODE 77)
  else()
    set_tests_properties(${name} PROPERTIES LABELS cpu)
  endif()
  if(T_TIMEOUT)
    set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT})
  endif()
  if(T_HOST)
    add_test(NAME ${name}_host COMMAND ${name} --host)
    set_tests_properties(${name}_host PROPERTIES LABELS cpu)
  endif()
endfunction()

# sk_example_fuzz_compiler(VAR [CLANG]): VAR is a clang that can link -fsanitize=fuzzer,address,undefined
# (the C compiler when it is Clang, else CLANG when given, else the newest clang on the PATH), or empty,
# with a status line saying why, when it cannot (Debian: libFuzzer's runtime is libclang-rt-N-dev). The
# examples' fuzz/ folders build their libFuzzer targets with it; each compiler is probed once.
function(sk_example_fuzz_compiler var)
  set(${var} "" PARENT_SCOPE)
  if(CMAKE_C_COMPILER_ID STREQUAL "Clang")
    set(_cc ${CMAKE_C_COMPILER})
  elseif(ARGC GREATER 1 AND ARGV1)
    set(_cc ${ARGV1})
  else()
    find_program(SK_EXAMPLE_FUZZ_CLANG NAMES clang clang-19 clang-18 clang-17 clang-16 clang-15 clang-14)
    if(NOT SK_EXAMPLE_FUZZ_CLANG)
      message(STATUS "libFuzzer targets skipped: no clang found")
      return()
    endif()
    set(_cc ${SK_EXAMPLE_FUZZ_CLANG})
  endif()
  string(MAKE_C_IDENTIFIER "SK_EXAMPLE_FUZZ_OK_${_cc}" _key)
  get_property(_probed GLOBAL PROPERTY ${_key} SET)
  if(NOT _probed)
    set(_probe ${PROJECT_BINARY_DIR}/sk_example_fuzz_probe)
    file(WRITE ${_probe}.c
      "#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\n"
      "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n")
    execute_process(COMMAND ${_cc} -fsanitize=fuzzer,address,undefined ${_probe}.c -o ${_probe}
                    RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_VARIABLE _err)
    if(_rc EQUAL 0)
      set(_ok TRUE)
    else()
      set(_ok FALSE)
      message(STATUS "libFuzzer targets skipped: ${_cc} cannot link -fsanitize=fuzzer "
                     "(Debian: install libclang-rt-N-dev for clang-N): ${_err}")
    endif()
    set_property(GLOBAL PROPERTY ${_key} ${_ok})
  endif()
  get_property(_ok GLOBAL PROPERTY ${_key})
  if(_ok)
    set(${var} ${_cc} PARENT_SCOPE)
  endif()
endfunction()

# sk_example_fuzz_target(TARGET CC OUTPUT file SOURCES s... [INCLUDES dir...] [LIBS l...] [DEPENDS f...]
# [SEEDS dir]): the target TARGET builds the libFuzzer program OUTPUT (in the current binary folder) with
# CC -fsanitize=fuzzer,address,undefined straight from SOURCES (no instrumented copy of the examples'
# libraries needed); with tests on, the ctest test TARGET_seeds (label cpu) runs every input in SEEDS once.
function(sk_example_fuzz_target name cc)
  cmake_parse_arguments(F "" "OUTPUT;SEEDS" "SOURCES;INCLUDES;LIBS;DEPENDS" ${ARGN})
  set(_out ${CMAKE_CURRENT_BINARY_DIR}/${F_OUTPUT})
  set(_inc)
  foreach(_dir IN LISTS F_INCLUDES)
    if(NOT _dir STREQUAL "/usr/include") # a system folder given with -I changes the header search order
      list(APPEND _inc -I${_dir})
    endif()
  endforeach()
  add_custom_command(OUTPUT ${_out}
    COMMAND ${cc} -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -Wall -Wextra -Werror -pedantic
            -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined ${_inc} ${F_SOURCES} ${F_LIBS}
            -o ${_out}
    DEPENDS ${F_SOURCES} ${F_DEPENDS}
    COMMENT "Building libFuzzer target ${F_OUTPUT}"
    VERBATIM)
  add_custom_target(${name} ALL DEPENDS ${_out})
  if(SAMPLEKIT_BUILD_TESTS AND F_SEEDS)
    add_test(NAME ${name}_seeds COMMAND ${_out} -runs=0 ${F_SEEDS})
    set_tests_properties(${name}_seeds PROPERTIES LABELS cpu)
  endif()
endfunction()
