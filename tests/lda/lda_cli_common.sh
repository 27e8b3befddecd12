# Shared by sk-lda's CLI test scripts on the small generated corpus (stream_resume.sh,
# cross_device_resume.sh, ranks_cli.sh, topics_export.sh, output_guards.sh, ...). Source it with sk_lda (the
# binary) and work (a folder) set: it gives fail MESSAGE, now_ms, expect CODE REGEX COMMAND..., a fresh $work
# holding the corpus (600 documents, 800 words, 10 planted topics, seed 5), small_train (sk-lda train on it:
# K = 24, seed 7, ESCA (deterministic: --sampler auto would run AGA-LDA on a GPU at this K), z.bin saved, no
# checkpoints but the last), outputs (the files runs are compared by, byte for byte) and same_files A B (the
# outputs of $work/A and $work/B are equal, or the test fails).
fail() { echo "FAIL: $*" >&2; exit 1; }
now_ms() { date +%s%3N; }
# expect CODE REGEX COMMAND...: COMMAND exits CODE, its stderr matching REGEX (an extended regex; empty: any).
expect() {
  local code=$1 re=$2 rc=0
  shift 2
  "$@" >"$work/out.txt" 2>"$work/err.txt" || rc=$?
  [ "$rc" -eq "$code" ] || fail "exit $rc, not $code: $* (stderr: $(head -c 600 "$work/err.txt"))"
  [ -z "$re" ] || grep -Eq -- "$re" "$work/err.txt" ||
    fail "stderr of '$*' does not match '$re': $(head -c 600 "$work/err.txt")"
}

rm -rf "$work" && mkdir -p "$work/corpus" || fail "cannot make $work"
"$sk_lda" gen --out "$work/corpus" --docs 600 --words 800 --topics 10 --mean-length 80 --seed 5 >/dev/null ||
  fail "gen failed"
small_train=("$sk_lda" train --docword "$work/corpus/docword.synthetic.txt"
             --vocab "$work/corpus/vocab.synthetic.txt" -k 24 --seed 7 --sampler esca --save-z --checkpoint-every 0)
outputs=(model.skl topics.txt theta.txt z.bin)

same_files() {
  for f in "${outputs[@]}"; do
    cmp -s "$work/$1/$f" "$work/$2/$f" || fail "$1/$f differs from $2/$f"
  done
  echo "ok: $1 = $2 (${outputs[*]})"
}
