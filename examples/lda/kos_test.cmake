# Run by ctest (sk_lda_kos_end_to_end): sk-lda train on the real UCI KOS corpus, K = 100, 50 ESCA sweeps.
# The joint log-likelihood per token must rise, and end inside a band established from repeated seeds:
# over seeds 1 to 6 (commit of this test, 2026-11-21) the final joint LL/token was -8.5098 .. -8.4824
# and the held-out LL/token -7.6281 .. -7.5243; the bands below are those ranges widened to about
# twice their width. A result outside them means the sampler or the metrics changed.
set(joint_low -8.56)
set(joint_high -8.43)
set(heldout_low -7.75)
set(heldout_high -7.40)
if(NOT EXISTS ${DATA}/kos/docword.kos.txt.gz)
  message("SKIP: ${DATA}/kos not found (the shared corpora sit beside the repository)")
  return()
endif()
# The shared vocab.kos.txt has one line more than W = 6906 (the word "temp"): sk-lda refuses it, naming both
# counts, and the run uses its first 6906 lines.
execute_process(COMMAND ${SK_LDA} train --docword ${DATA}/kos/docword.kos.txt.gz --vocab ${DATA}/kos/vocab.kos.txt -n 1
                RESULT_VARIABLE rc ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT rc EQUAL 2 OR NOT err MATCHES "vocab.kos.txt:6907: the vocabulary has 6907 words, more than the 6906 words of W")
  message(FATAL_ERROR "the 6907-word vocab.kos.txt was not refused as it should be (exit ${rc}): ${err}")
endif()
file(STRINGS ${DATA}/kos/vocab.kos.txt words)
list(SUBLIST words 0 6906 words)
list(JOIN words "\n" words)
file(WRITE ${WORK}/vocab.kos.6906.txt "${words}\n")
execute_process(COMMAND ${SK_LDA} train --docword ${DATA}/kos/docword.kos.txt.gz --vocab ${WORK}/vocab.kos.6906.txt
                        -k 100 -n 50 --seed 1 --ll-every 10 --sampler esca
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "sk-lda train failed (${rc}): ${err}")
endif()
string(REGEX MATCH "iteration 1/50:[^\n]*joint LL/token ([-0-9.]+)" _ "${out}")
set(first ${CMAKE_MATCH_1})
string(REGEX MATCH "iteration 50/50:[^\n]*joint LL/token ([-0-9.]+)" _ "${out}")
set(last ${CMAKE_MATCH_1})
string(REGEX MATCH "held-out LL/token ([-0-9.]+)" _ "${out}")
set(heldout ${CMAKE_MATCH_1})
if(first STREQUAL "" OR last STREQUAL "" OR heldout STREQUAL "")
  message(FATAL_ERROR "could not read the log-likelihoods from:\n${out}")
endif()
if(NOT last GREATER first)
  message(FATAL_ERROR "joint LL/token did not rise: ${first} at sweep 1, ${last} at sweep 50")
endif()
if(last LESS joint_low OR last GREATER joint_high)
  message(FATAL_ERROR "joint LL/token ${last} outside [${joint_low}, ${joint_high}]")
endif()
if(heldout LESS heldout_low OR heldout GREATER heldout_high)
  message(FATAL_ERROR "held-out LL/token ${heldout} outside [${heldout_low}, ${heldout_high}]")
endif()
message(STATUS "kos: joint LL/token ${first} -> ${last}, held-out ${heldout}: inside the bands")
