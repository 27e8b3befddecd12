# Run by ctest as install_consumer (see CMakeLists.txt here): installs samplekit, then configures and
# builds the C, C++ and CUDA consumers, and runs the C++ one. Fails with a message naming the step
# that failed. The C consumer is run by install_consumer_run, which needs a GPU.
function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install_consumer: ${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "install_consumer: ${what}: ok")
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
if(NOT CONFIG)
  set(CONFIG Release)
endif()
step("install" ${CMAKE_COMMAND} --install ${SAMPLEKIT_BINARY_DIR} --prefix ${prefix} --config ${CONFIG})

# The CUDA consumer builds for samplekit's architectures (CUDAARCHS takes a list as it is).
if(CUDA_ARCHITECTURES)
  set(ENV{CUDAARCHS} "${CUDA_ARCHITECTURES}")
endif()
# lda: sk-lda's library (samplekit::sk_lda), only where the install has it (examples built).
set(projects c cxx cuda)
if(EXISTS ${prefix}/include/sk_lda.h)
  list(APPEND projects lda)
endif()
foreach(project ${projects})
  step("configure the ${project} consumer"
       ${CMAKE_COMMAND} -S ${CONSUMER_SOURCE_DIR}/${project} -B ${WORK_DIR}/${project} -DCMAKE_PREFIX_PATH=${prefix})
  # The link is the point: a missing library shows here as an undefined reference.
  step("build the ${project} consumer" ${CMAKE_COMMAND} --build ${WORK_DIR}/${project})
endforeach()

step("run the C++ consumer" ${WORK_DIR}/cxx/cxx_consumer)
if(NOT step_output MATCHES "samplekit [0-9]+\\.[0-9]+\\.[0-9]+: C\\+\\+ consumer: SK_ERROR_NULL_POINTER")
  message(FATAL_ERROR "install_consumer: unexpected output from the C++ consumer: ${step_output}")
endif()
message(STATUS "install_consumer: C++ consumer printed: ${step_output}")
if(EXISTS ${prefix}/include/sk_lda.h)
  step("run the sk_lda consumer" ${WORK_DIR}/lda/lda_consumer)
  message(STATUS "install_consumer: sk_lda consumer printed: ${step_output}")
endif()
