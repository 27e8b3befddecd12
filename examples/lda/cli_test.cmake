# Run by ctest (sk_lda_cli_gen): sk-lda's gen command end to end, and its answers to bad usage.
function(expect_exit code)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL code)
    message(FATAL_ERROR "expected exit ${code}, got ${rc}: ${ARGN}\nstdout: ${out}\nstderr: ${err}")
  endif()
  set(last_out "${out}" PARENT_SCOPE)
  set(last_err "${err}" PARENT_SCOPE)
endfunction()

# expect_message(code regex command...): exit `code` with stderr matching `regex`.
function(expect_message code regex)
  expect_exit(${code} ${ARGN})
  if(NOT last_err MATCHES "${regex}")
    message(FATAL_ERROR "expected stderr matching '${regex}': ${ARGN}\nstderr: ${last_err}")
  endif()
  set(last_out "${last_out}" PARENT_SCOPE)
  set(last_err "${last_err}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
expect_exit(0 ${SK_LDA} --help)
expect_exit(0 ${SK_LDA} gen --help)
expect_exit(2 ${SK_LDA})
expect_exit(2 ${SK_LDA} frobnicate)
expect_message(2 "--out DIR is required" ${SK_LDA} gen --docs 10)
expect_message(2 "--docs: 'abc' is not a whole number" ${SK_LDA} gen --out ${WORK} --docs abc)
expect_exit(2 ${SK_LDA} gen --out ${WORK} --alpha -1)
# gen creates its --out folder with its parents, and refuses one that cannot be made before any work (exit 2).
file(WRITE ${WORK}/gen-file "x")
expect_message(2 "sk-lda gen: --out: .*gen-file: exists and is not a folder" ${SK_LDA} gen --out ${WORK}/gen-file/dir
               --docs 5)
expect_exit(0 ${SK_LDA} gen --out ${WORK} --name t --docs 50 --words 200 --topics 4 --mean-length 30 --seed 7)
foreach(f docword.t.txt vocab.t.txt topics.t.planted.txt)
  if(NOT EXISTS ${WORK}/${f})
    message(FATAL_ERROR "gen did not write ${f}")
  endif()
endforeach()
file(STRINGS ${WORK}/docword.t.txt header LIMIT_COUNT 2)
if(NOT header STREQUAL "50;200")
  message(FATAL_ERROR "unexpected docword header: ${header}")
endif()
# Files already there (this corpus, or anyone's) are refused without --overwrite, naming the first; a NAME
# that is not a plain file name part is refused.
expect_message(2 "sk-lda gen: --out: .*/docword.t.txt exists \\(--overwrite replaces it"
               ${SK_LDA} gen --out ${WORK} --name t --docs 50 --words 200 --topics 4 --mean-length 30 --seed 7)
expect_message(2 "sk-lda gen: --name '../t': give 1 to 200 letters" ${SK_LDA} gen --out ${WORK} --name ../t --docs 5)
expect_message(2 "sk-lda gen: --name '.t': give 1 to 200 letters" ${SK_LDA} gen --out ${WORK} --name .t --docs 5)
# The same options give the same bytes.
file(SHA256 ${WORK}/docword.t.txt first)
expect_exit(0 ${SK_LDA} gen --out ${WORK} --name t --docs 50 --words 200 --topics 4 --mean-length 30 --seed 7
            --overwrite)
file(SHA256 ${WORK}/docword.t.txt second)
if(NOT first STREQUAL second)
  message(FATAL_ERROR "gen is not deterministic")
endif()

# gen --binary: a binary corpus beside the same vocabulary, the same bytes for any --threads.
set(gen_b gen --out ${WORK} --name b --docs 50 --words 200 --topics 4 --mean-length 30 --seed 7 --binary)
expect_exit(0 ${SK_LDA} ${gen_b} --threads 1)
file(SHA256 ${WORK}/docword.b.bin first)
expect_exit(0 ${SK_LDA} ${gen_b} --threads 3 --overwrite)
file(SHA256 ${WORK}/docword.b.bin second)
if(NOT first STREQUAL second OR EXISTS ${WORK}/docword.b.txt OR NOT last_out MATCHES "wrote .*/docword.b.bin")
  message(FATAL_ERROR "gen --binary: not the same bytes for 1 and 3 threads, or not a binary corpus: ${last_out}")
endif()
file(SHA256 ${WORK}/vocab.b.txt a)
file(SHA256 ${WORK}/vocab.t.txt b)
if(NOT a STREQUAL b)
  message(FATAL_ERROR "gen --binary wrote another vocabulary than gen")
endif()
# train, eval and infer read it through --docword, recognised by its first bytes; eval reproduces train's
# held-out figure from it; --text refuses it and a vocabulary of another size is refused (exit 2).
set(corpus_b --docword ${WORK}/docword.b.bin --vocab ${WORK}/vocab.b.txt)
expect_exit(0 ${SK_LDA} train ${corpus_b} -k 4 --seed 5 -n 4 --out ${WORK}/binary_run)
string(REGEX MATCH "held-out LL/token ([-0-9.]+)" _ "${last_out}")
set(binary_heldout ${CMAKE_MATCH_1})
expect_exit(0 ${SK_LDA} eval --model ${WORK}/binary_run/model.skl ${corpus_b})
string(REGEX MATCH "held-out LL/token ([-0-9.]+)" _ "${last_out}")
if(binary_heldout STREQUAL "" OR NOT CMAKE_MATCH_1 STREQUAL binary_heldout)
  message(FATAL_ERROR "eval on the binary corpus gave '${CMAKE_MATCH_1}', train printed '${binary_heldout}'")
endif()
expect_exit(0 ${SK_LDA} infer --model ${WORK}/binary_run/model.skl ${corpus_b} --out ${WORK}/binary_theta.txt)
expect_message(2 "docword.b.bin: is an sk-lda binary corpus, not plain text" ${SK_LDA} train --text
               ${WORK}/docword.b.bin -k 4 -n 1)
file(READ ${WORK}/vocab.b.txt vocab_b_text)
file(WRITE ${WORK}/vocab.b.long.txt "${vocab_b_text}extra\n")
expect_message(2 "more than the 200 words of V in the header of .*docword.b.bin" ${SK_LDA} train --docword
               ${WORK}/docword.b.bin --vocab ${WORK}/vocab.b.long.txt -k 4 -n 1)

# train --out writes the results; a run resumed half-way equals an uninterrupted one, byte for byte.
# ESCA is named: --sampler auto (the default) runs AGA-LDA on a GPU at this K, whose topics depend on
# thread timing.
set(corpus --docword ${WORK}/docword.t.txt --vocab ${WORK}/vocab.t.txt -k 4 --seed 5)
set(esca --sampler esca)
expect_exit(0 ${SK_LDA} train ${corpus} ${esca} -n 6 --out ${WORK}/half --save-z)
expect_exit(0 ${SK_LDA} train ${corpus} ${esca} -n 12 --resume ${WORK}/half --out ${WORK}/resumed --save-z)
expect_exit(0 ${SK_LDA} train ${corpus} ${esca} -n 12 --out ${WORK}/whole --save-z)
# Issue 31, case 10: the joint LL per token of the sweeps is printed as it is, not as a "perplexity" (its
# exponential is not what gensim or scikit-learn call one); the held-out perplexity stays.
if(last_out MATCHES "joint LL/token [-0-9.]+ \\(perplexity" OR NOT last_out MATCHES "held-out LL/token [-0-9.]+ \\(perplexity")
  message(FATAL_ERROR "train's lines call the joint LL a perplexity, or lost the held-out one:\n${last_out}")
endif()
string(REGEX MATCH "held-out LL/token ([-0-9.]+)" _ "${last_out}")
set(train_heldout ${CMAKE_MATCH_1})
# metrics.csv continues the first part's rows, and its clock goes on from the first part's time.
file(STRINGS ${WORK}/resumed/metrics.csv rows)
set(previous -1)
foreach(row IN LISTS rows)
  if(row MATCHES "^([0-9]+),([0-9.]+),")
    if(CMAKE_MATCH_2 LESS previous)
      message(FATAL_ERROR "metrics.csv's seconds went back at sweep ${CMAKE_MATCH_1}: ${rows}")
    endif()
    set(previous ${CMAKE_MATCH_2})
  endif()
endforeach()
file(STRINGS ${WORK}/half/metrics.csv half_rows)
list(GET half_rows -1 half_last)
list(FIND rows "${half_last}" at)
if(at LESS 1)
  message(FATAL_ERROR "the resumed metrics.csv does not continue the first part's rows: ${rows}")
endif()
foreach(f z.bin model.skl topics.txt theta.txt)
  file(SHA256 ${WORK}/resumed/${f} a)
  file(SHA256 ${WORK}/whole/${f} b)
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "resumed run differs from the uninterrupted one in ${f}")
  endif()
endforeach()
file(STRINGS ${WORK}/whole/metrics.csv metrics)
list(GET metrics 0 metrics_header)
if(NOT metrics_header STREQUAL
   "iteration,seconds,tokens_per_s,joint_ll_per_token,heldout_ll,sample_s,tables_s,a_rebuild_s,b_rebuild_s,metrics_s,device_bytes_peak,alpha_sum,beta")
  message(FATAL_ERROR "unexpected metrics.csv header: ${metrics_header}")
endif()
expect_exit(2 ${SK_LDA} train ${corpus} -n 12 --resume ${WORK}/no-such-run)
expect_message(2 "no-such-file.txt" ${SK_LDA} train --docword ${WORK}/no-such-file.txt -k 4)
# --device gpu trains ESCA on GPU 0 where there is one, and is a run-time error that says why where
# there is none (no GPU, or a build without the CUDA part); auto then falls back to the CPU and says so
# once. What --device gpu answers tells which kind of machine this is (CI has no GPU), and auto must
# agree with it. GPU ESCA gives the CPU ESCA's topics bit for bit, so a GPU run's outputs equal the CPU
# run's byte for byte (and "whole" above, with the default --device auto, ran on the GPU where there is one).
expect_exit(0 ${SK_LDA} train ${corpus} ${esca} -n 12 --out ${WORK}/whole_cpu --save-z --device cpu)
execute_process(COMMAND ${SK_LDA} train ${corpus} ${esca} -n 12 --out ${WORK}/gpu --save-z --device gpu
                RESULT_VARIABLE gpu_rc OUTPUT_VARIABLE gpu_out ERROR_VARIABLE gpu_err)
if(gpu_rc EQUAL 0)
  set(have_gpu TRUE)
  if(NOT gpu_out MATCHES "ESCA \\(GPU 0: ")
    message(FATAL_ERROR "--device gpu did not say it trains ESCA on GPU 0: ${gpu_out}")
  endif()
  set(compared whole gpu)
elseif(gpu_rc EQUAL 1 AND gpu_err MATCHES
       "--device gpu: (no CUDA GPU found|GPU 0 cannot be used|this sk-lda was built without its CUDA part)")
  set(have_gpu FALSE)
  set(compared whole)
  # Issue 31: said plainly, not in CUDA's words about driver versions, which read like a broken driver.
  if(gpu_err MATCHES "driver version is insufficient")
    message(FATAL_ERROR "--device gpu without a GPU quotes CUDA's driver message: ${gpu_err}")
  endif()
else()
  message(FATAL_ERROR "--device gpu neither trained nor said why it cannot (exit ${gpu_rc})\n"
                      "stdout: ${gpu_out}\nstderr: ${gpu_err}")
endif()
foreach(run IN LISTS compared)
  foreach(f z.bin model.skl topics.txt theta.txt)
    file(SHA256 ${WORK}/${run}/${f} a)
    file(SHA256 ${WORK}/whole_cpu/${f} b)
    if(NOT a STREQUAL b)
      message(FATAL_ERROR "the run in ${run} (have_gpu ${have_gpu}) differs from the CPU run in ${f}")
    endif()
  endforeach()
endforeach()
# CGS runs on the CPU only: --device gpu --sampler cgs fails on every machine, saying so; the options
# contradict, so it is the user's input (exit 2, issue 31's one rule), not the machine.
expect_message(2 "--device gpu: --sampler cgs runs on the CPU only" ${SK_LDA} train ${corpus} -n 1 --sampler cgs
               --device gpu)
# A resume that cannot start (a CGS run resumed on the GPU) leaves its folder as it was.
expect_exit(0 ${SK_LDA} train ${corpus} -n 2 --sampler cgs --out ${WORK}/cgs --save-z)
file(SHA256 ${WORK}/cgs/z.bin cgs_z)
expect_message(2 "CPU only" ${SK_LDA} train ${corpus} -n 20 --resume ${WORK}/cgs --device gpu)
file(SHA256 ${WORK}/cgs/z.bin cgs_z_after)
if(NOT EXISTS ${WORK}/cgs/model.skl OR NOT cgs_z STREQUAL cgs_z_after)
  message(FATAL_ERROR "a resume that failed to start changed the run's outputs")
endif()
expect_exit(0 ${SK_LDA} train ${corpus} -n 1 --sampler cgs --device auto --test-fraction 0)
if(NOT last_err MATCHES "--device auto: --sampler cgs runs on the CPU only.*training on the CPU")
  message(FATAL_ERROR "--device auto --sampler cgs did not say it trains on the CPU: ${last_err}")
endif()
expect_exit(0 ${SK_LDA} train ${corpus} -n 1 --device auto --test-fraction 0)
string(REGEX MATCHALL "--device auto" notes "${last_err}")
list(LENGTH notes notes)
if(have_gpu AND NOT notes EQUAL 0)
  message(FATAL_ERROR "--device auto with a GPU fell back to the CPU: ${last_err}")
elseif(NOT have_gpu AND (NOT notes EQUAL 1 OR NOT last_err MATCHES "training on the CPU"))
  message(FATAL_ERROR "--device auto did not say once that it trains on the CPU: ${last_err}")
endif()
# No NaN reaches the user: with nothing held out, train says the held-out score was not computed.
if(last_out MATCHES "nan" OR NOT last_out MATCHES "held-out LL not computed")
  message(FATAL_ERROR "train --test-fraction 0 printed: ${last_out}")
endif()
# --sampler auto (the default) is ESCA on the CPU; on a GPU AGA-LDA up to K = 128 and ESCA above; a run
# resumed with --sampler auto goes on with the sampler it started with.
set(plain --docword ${WORK}/docword.t.txt --vocab ${WORK}/vocab.t.txt --seed 5 --test-fraction 0)
expect_exit(0 ${SK_LDA} train ${plain} -k 4 -n 2 --device cpu --out ${WORK}/auto_cpu)
if(NOT last_out MATCHES "ESCA \\(CPU")
  message(FATAL_ERROR "--sampler auto on the CPU did not train ESCA: ${last_out}")
endif()
expect_exit(0 ${SK_LDA} train ${plain} -n 3 --sampler auto --device cpu --resume ${WORK}/auto_cpu)
expect_message(2 "--minibatch, --panels and --whole-word-panels apply to --sampler aga" ${SK_LDA} train ${plain} -k 4
               -n 1 --sampler esca --panels 8)
if(have_gpu)
  expect_exit(0 ${SK_LDA} train ${plain} -k 128 -n 2 --device gpu)
  if(NOT last_out MATCHES "AGA-LDA \\(GPU 0: ")
    message(FATAL_ERROR "--sampler auto at K = 128 on a GPU did not train AGA-LDA: ${last_out}")
  endif()
  expect_exit(0 ${SK_LDA} train ${plain} -k 129 -n 2 --device gpu)
  if(NOT last_out MATCHES "ESCA \\(GPU 0: ")
    message(FATAL_ERROR "--sampler auto at K = 129 on a GPU did not train ESCA: ${last_out}")
  endif()
endif()

# An --out folder that holds a run is refused, naming it, unless --resume or --overwrite; --overwrite
# removes the old run's files (a stale z.bin among them).
expect_message(2 "--out ${WORK}/whole already holds a run" ${SK_LDA} train ${corpus} -n 2 --out ${WORK}/whole)
file(COPY ${WORK}/whole/ DESTINATION ${WORK}/again)
expect_exit(0 ${SK_LDA} train ${corpus} -n 2 --out ${WORK}/again --overwrite)
if(EXISTS ${WORK}/again/z.bin)
  message(FATAL_ERROR "--overwrite left the earlier run's z.bin")
endif()
# A run killed before its first checkpoint leaves its metrics.csv at most (the log's header line), and its
# lock file (run.lock, with the id of a process that is gone): nothing to resume, no model. --resume says
# so; the command that started it starts it again, says so, and writes what a fresh run writes; the lock
# file goes at the end.
file(STRINGS ${WORK}/whole/metrics.csv metrics_header LIMIT_COUNT 1)
foreach(left "metrics.csv;run.lock" "run.lock")
  string(MAKE_C_IDENTIFIER "early_${left}" early)
  file(MAKE_DIRECTORY ${WORK}/${early})
  file(WRITE ${WORK}/${early}/run.lock "999999999\n")
  if(left MATCHES "metrics.csv")
    file(WRITE ${WORK}/${early}/metrics.csv "${metrics_header}\n")
  endif()
  expect_message(2 "--resume ${WORK}/${early}: the run there stopped before its first checkpoint, so there is nothing to resume"
                 ${SK_LDA} train ${corpus} ${esca} -n 12 --resume ${WORK}/${early})
  file(WRITE ${WORK}/${early}/run.lock "999999999\n") # the refused resume removed the lock file it took
  expect_exit(0 ${SK_LDA} train ${corpus} ${esca} -n 12 --out ${WORK}/${early} --save-z)
  if(NOT last_out MATCHES "${WORK}/${early}: the run there stopped before its first checkpoint[^\n]*starting it again"
     OR EXISTS ${WORK}/${early}/run.lock)
    message(FATAL_ERROR "the run killed before its first checkpoint (${left}) was not started again, said so and "
                        "unlocked: ${last_out}")
  endif()
  foreach(f z.bin model.skl topics.txt theta.txt)
    file(SHA256 ${WORK}/${early}/${f} a)
    file(SHA256 ${WORK}/whole/${f} b)
    if(NOT a STREQUAL b)
      message(FATAL_ERROR "the run started again in ${early} differs from a fresh run in ${f}")
    endif()
  endforeach()
endforeach()
# A folder with a model but no checkpoint is still a run (its model would be lost): refused. A killed
# run's lock file neither blocks a resume nor is taken for a run by --overwrite.
file(COPY ${WORK}/whole/ DESTINATION ${WORK}/model_only)
file(REMOVE ${WORK}/model_only/checkpoint.skc)
expect_message(2 "--out ${WORK}/model_only already holds a run" ${SK_LDA} train ${corpus} -n 2 --out ${WORK}/model_only)
file(COPY ${WORK}/half/ DESTINATION ${WORK}/stale_lock)
file(WRITE ${WORK}/stale_lock/run.lock "999999999\n")
expect_exit(0 ${SK_LDA} train ${corpus} ${esca} -n 8 --resume ${WORK}/stale_lock)
file(WRITE ${WORK}/stale_lock/run.lock "999999999\n")
expect_exit(0 ${SK_LDA} train ${corpus} -n 2 --out ${WORK}/stale_lock --overwrite)
if(EXISTS ${WORK}/stale_lock/run.lock)
  message(FATAL_ERROR "a run that ended left its lock file")
endif()

# --out parents are created; every output is checked writable before the first sweep.
expect_exit(0 ${SK_LDA} train ${corpus} -n 1 --out ${WORK}/deep/er/run)
file(WRITE ${WORK}/blocked/model.skl/inside "x")
expect_exit(2 ${SK_LDA} train ${corpus} -n 1 --out ${WORK}/blocked --overwrite)
if(NOT last_err MATCHES "blocked/model.skl: exists and is not a regular file" OR last_out MATCHES "iteration")
  message(FATAL_ERROR "an unwritable model.skl was not found before the first sweep: ${last_err}")
endif()
file(WRITE ${WORK}/a-file "x")
expect_exit(2 ${SK_LDA} train ${corpus} -n 1 --out ${WORK}/a-file/run)
# A resume checks what it is given against the checkpoint.
expect_message(2 "--seed 6 \\(the run has 5\\)"
               ${SK_LDA} train ${corpus} -n 12 --seed 6 --resume ${WORK}/half --out ${WORK}/other-seed)
expect_message(2 "no checkpoint.skc" ${SK_LDA} train ${corpus} -n 12 --resume ${WORK}/deep)
file(WRITE ${WORK}/other.txt "3\n200\n3\n1 1 1\n2 2 1\n3 3 1\n")
expect_message(2 "the checkpoint is of another corpus"
               ${SK_LDA} train --docword ${WORK}/other.txt --vocab ${WORK}/vocab.t.txt -k 4 -n 12 --resume ${WORK}/half
            --out ${WORK}/other-corpus)

# A vocabulary longer than W is refused by train, infer and eval, naming both counts.
file(READ ${WORK}/vocab.t.txt vocab_text)
file(WRITE ${WORK}/vocab.long.txt "${vocab_text}extra\n")
foreach(cmd "train;${corpus};-n;1" "infer;--model;${WORK}/whole/model.skl;--out;${WORK}/x.txt"
            "eval;--model;${WORK}/whole/model.skl")
  list(GET cmd 0 name)
  expect_exit(2 ${SK_LDA} ${cmd} --docword ${WORK}/docword.t.txt --vocab ${WORK}/vocab.long.txt)
  if(NOT last_err MATCHES "vocab.long.txt:201: the vocabulary has 201 words, more than the 200 words of W")
    message(FATAL_ERROR "${name}: a vocabulary longer than W was not refused: ${last_err}")
  endif()
endforeach()

# eval reproduces the held-out log-likelihood that train printed, from the model file alone.
expect_exit(0 ${SK_LDA} eval --model ${WORK}/whole/model.skl --docword ${WORK}/docword.t.txt --vocab ${WORK}/vocab.t.txt)
string(REGEX MATCH "held-out LL/token ([-0-9.]+)" _ "${last_out}")
if(train_heldout STREQUAL "" OR NOT CMAKE_MATCH_1 STREQUAL train_heldout)
  message(FATAL_ERROR "eval gave '${CMAKE_MATCH_1}', train printed '${train_heldout}'")
endif()
if(NOT last_out MATCHES "held-out LL/token [-0-9.]+ \\(perplexity [0-9.]+\\)")
  message(FATAL_ERROR "eval did not print the perplexity: ${last_out}")
endif()
expect_exit(2 ${SK_LDA} eval --docword ${WORK}/docword.t.txt)
# Nothing to score is an error, not a NaN.
expect_exit(2 ${SK_LDA} eval --model ${WORK}/whole/model.skl --docword ${WORK}/docword.t.txt --vocab ${WORK}/vocab.t.txt
            --test-fraction 0.001)
if(NOT last_err MATCHES "no token to score" OR last_out MATCHES "nan")
  message(FATAL_ERROR "eval with nothing to score: ${last_err}${last_out}")
endif()

# infer: fold in documents with the trained model; a corrupt model is a clear error.
expect_exit(0 ${SK_LDA} infer --model ${WORK}/whole/model.skl --docword ${WORK}/docword.t.txt
            --vocab ${WORK}/vocab.t.txt --out ${WORK}/inferred.txt)
if(NOT last_out MATCHES "infer: 50 documents, [0-9]+ tokens, K = 4, [0-9]+ fold-in sweeps in [0-9.]+ s -> ")
  message(FATAL_ERROR "infer printed no summary: ${last_out}")
endif()
# infer --out is checked writable before any work.
expect_message(2 "--out: .*no/such/dir/theta.txt"
               ${SK_LDA} infer --model ${WORK}/whole/model.skl --docword ${WORK}/docword.t.txt
            --vocab ${WORK}/vocab.t.txt --out ${WORK}/no/such/dir/theta.txt)
file(STRINGS ${WORK}/inferred.txt inferred REGEX "^[0-9]")
list(LENGTH inferred inferred_docs)
if(NOT inferred_docs EQUAL 50)
  message(FATAL_ERROR "infer wrote ${inferred_docs} documents, want 50")
endif()
# (test_output flips every byte of a model file; here the CLI meets a file that is not a model at all.)
file(WRITE ${WORK}/not-a-model.skl "this is not an sk-lda model\n")
expect_message(2 "not-a-model.skl" ${SK_LDA} infer --model ${WORK}/not-a-model.skl --docword ${WORK}/docword.t.txt
            --vocab ${WORK}/vocab.t.txt --out ${WORK}/x.txt)
expect_exit(2 ${SK_LDA} infer --model ${WORK}/no-such-model.skl --docword ${WORK}/docword.t.txt
            --vocab ${WORK}/vocab.t.txt --out ${WORK}/x.txt)
message(STATUS "sk-lda gen, train, resume, infer: all checks passed")

# --gpus, --nccl, --mpi: the combinations refused before anything starts (exit 2), with the option named.
expect_message(2 "--gpus: '0' is not a whole number" ${SK_LDA} train ${corpus} --gpus 0)
expect_message(2 "--gpus runs on GPUs: leave out --device cpu" ${SK_LDA} train ${corpus} --gpus 2 --device cpu)
expect_message(2 "--gpus runs the ESCA sampler only" ${SK_LDA} train ${corpus} --gpus 2 --sampler cgs)
expect_message(2 "--gpus runs the fast GPU sweep only" ${SK_LDA} train ${corpus} --gpus 4 --gpu-sweep exact)
expect_message(2 "--nccl runs on GPUs" ${SK_LDA} train ${corpus} --nccl --device cpu)
expect_message(2 "--mpi takes the ranks from the MPI launcher" ${SK_LDA} train ${corpus} --mpi --gpus 2)
expect_message(2 "--rank-timeout: '-1' is not a number" ${SK_LDA} train ${corpus} --gpus 2 --rank-timeout -1)

# Issue 31: options given for an input they do not apply to are refused (exit 2), not ignored; -n 0 of
# infer and eval (zero fold-in sweeps) is refused; one exit-status rule, printed by --help.
file(WRITE ${WORK}/stop.txt "the\n")
expect_message(2 "--stopwords applies to --text only" ${SK_LDA} train ${corpus} --stopwords ${WORK}/stop.txt
               --out ${WORK}/refused)
expect_message(2 "--min-count applies to --text only" ${SK_LDA} train ${corpus} --min-count 2 --out ${WORK}/refused)
file(WRITE ${WORK}/text.txt "alpha beta gamma\nbeta gamma delta\n")
expect_message(2 "--vocab does not apply to --text" ${SK_LDA} train --text ${WORK}/text.txt
               --vocab ${WORK}/vocab.t.txt -k 2 --out ${WORK}/refused)
expect_message(2 "--overwrite does not apply to --resume" ${SK_LDA} train ${corpus} --resume ${WORK}/refused
               --overwrite)
expect_message(2 "--start-topics applies to a new run" ${SK_LDA} train ${corpus} --resume ${WORK}/refused
               --start-topics 8)
expect_message(2 "--seed: ' -1' is not a whole number" ${SK_LDA} train ${corpus} --seed " -1") # not 2^64 - 1
# An option given twice: the last value counts (a script may override its own default), and a note says so.
expect_message(0 "sk-lda train: note: --topics was given 2 times; the last, 3, is used" ${SK_LDA} train
               --docword ${WORK}/docword.t.txt -k 2 --topics=3 -n 1 --device cpu)
if(NOT last_out MATCHES "K = 3")
  message(FATAL_ERROR "the last of two --topics did not count: ${last_out}")
endif()
expect_message(2 "--start-topics: '-1' is not a whole number" ${SK_LDA} train ${corpus} --start-topics -1
               --out ${WORK}/refused)
expect_exit(0 ${SK_LDA} train ${corpus} --start-topics 2 -n 3 --device cpu)
if(NOT last_out MATCHES "documents started on at most 2 topics")
  message(FATAL_ERROR "--start-topics 2 not reported: ${last_out}")
endif()
if(EXISTS ${WORK}/refused)
  message(FATAL_ERROR "a refused train wrote ${WORK}/refused")
endif()
expect_message(2 "--stopwords applies to --text only" ${SK_LDA} eval --model ${WORK}/no-such-model.skl
               --docword ${WORK}/docword.t.txt --vocab ${WORK}/vocab.t.txt --stopwords ${WORK}/stop.txt)
expect_message(2 "--iters: '0' is not a whole number in \\[1," ${SK_LDA} infer -n 0 --model ${WORK}/no-such-model.skl
               --docword ${WORK}/docword.t.txt --vocab ${WORK}/vocab.t.txt --out ${WORK}/x.txt)
expect_message(2 "--iters: '0' is not a whole number in \\[1," ${SK_LDA} eval -n 0 --model ${WORK}/no-such-model.skl
               --docword ${WORK}/docword.t.txt --vocab ${WORK}/vocab.t.txt)
expect_exit(0 ${SK_LDA} --help)
if(NOT last_out MATCHES "Exit status: 0 success; 2 the user's input")
  message(FATAL_ERROR "--help does not state the exit-status rule: ${last_out}")
endif()
message(STATUS "issue 31's refusals: all checks passed")

# Issue 31: a resume takes the vocabulary from the checkpoint and refuses a different one. Without --vocab
# the resumed run's topics.txt and model.skl have the run's words (the same bytes as a run given --vocab
# throughout); a vocabulary whose line 5 changed is refused (exit 2) naming the file, the line and both
# words; the same vocabulary is accepted.
file(STRINGS ${WORK}/vocab.t.txt vocab_lines)
list(TRANSFORM vocab_lines REPLACE "^w" "term")
list(JOIN vocab_lines "\n" vocab_terms)
file(WRITE ${WORK}/vocab.terms.txt "${vocab_terms}\n")
list(GET vocab_lines 4 word5)
list(REMOVE_AT vocab_lines 4)
list(INSERT vocab_lines 4 "changed")
list(JOIN vocab_lines "\n" vocab_changed)
file(WRITE ${WORK}/vocab.changed.txt "${vocab_changed}\n")
set(words_run --docword ${WORK}/docword.t.txt -k 4 --seed 5 ${esca})
expect_exit(0 ${SK_LDA} train ${words_run} --vocab ${WORK}/vocab.terms.txt -n 4 --out ${WORK}/words_half)
expect_exit(0 ${SK_LDA} train ${words_run} --vocab ${WORK}/vocab.terms.txt -n 8 --out ${WORK}/words_whole)
expect_exit(0 ${SK_LDA} train ${words_run} -n 8 --resume ${WORK}/words_half --out ${WORK}/words_novocab)
file(READ ${WORK}/words_novocab/topics.txt topics_novocab)
if(NOT topics_novocab MATCHES "\tterm[0-9]+\t" OR topics_novocab MATCHES "\tw[0-9]+\t")
  message(FATAL_ERROR "a resume without --vocab lost the run's words: ${topics_novocab}")
endif()
foreach(f model.skl topics.txt)
  file(SHA256 ${WORK}/words_novocab/${f} a)
  file(SHA256 ${WORK}/words_whole/${f} b)
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "a resume without --vocab differs in ${f} from a run given the vocabulary throughout")
  endif()
endforeach()
expect_exit(0 ${SK_LDA} infer --model ${WORK}/words_novocab/model.skl --docword ${WORK}/docword.t.txt
            --vocab ${WORK}/vocab.terms.txt --out ${WORK}/words_theta.txt)
expect_message(2 "--resume ${WORK}/words_half: ${WORK}/vocab.changed.txt:5: 'changed' differs from the run's word '${word5}' \\(the checkpoint's vocabulary\\); give the run's vocabulary or leave --vocab out"
               ${SK_LDA} train ${words_run} --vocab ${WORK}/vocab.changed.txt -n 8 --resume ${WORK}/words_half
               --out ${WORK}/words_changed)
if(EXISTS ${WORK}/words_changed)
  message(FATAL_ERROR "a resume refused for its vocabulary wrote ${WORK}/words_changed")
endif()
expect_exit(0 ${SK_LDA} train ${words_run} --vocab ${WORK}/vocab.terms.txt -n 8 --resume ${WORK}/words_half
            --out ${WORK}/words_same)
file(SHA256 ${WORK}/words_same/model.skl a)
file(SHA256 ${WORK}/words_whole/model.skl b)
if(NOT a STREQUAL b)
  message(FATAL_ERROR "a resume given the run's vocabulary differs in model.skl from the uninterrupted run")
endif()
message(STATUS "issue 31's resume vocabulary: all checks passed")
