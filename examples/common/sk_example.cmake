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
