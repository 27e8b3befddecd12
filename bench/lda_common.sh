# Sourced by the sk-lda bench scripts (lda_quality.sh, lda_gpu.sh) after they set build, data and logs.
# Checks that sk-lda is built (sk = its path) and makes the logs folder.
sk=$build/examples/lda/sk-lda
[ -x "$sk" ] || { echo "$(basename "$0"): $sk not found (build first)" >&2; exit 2; }
mkdir -p "$logs"

# lda_vocab CORPUS: writes the vocabulary's first W lines (W from the docword header) into the logs folder
# and prints that file's path. The shared vocab.kos.txt has one word past W, which sk-lda refuses.
lda_vocab() {
  local W
  W=$(gzip -dc "$data/$1/docword.$1.txt.gz" | sed -n 2p)
  head -n "$W" "$data/$1/vocab.$1.txt" >"$logs/vocab.$1.txt"
  echo "$logs/vocab.$1.txt"
}
