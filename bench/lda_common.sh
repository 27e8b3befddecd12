# Sourced by the sk-lda bench scripts (lda_quality.sh, lda_gpu.sh, lda_aga.sh, lda_stream.sh) after they set
# build, data and logs.
# Checks that sk-lda is built (sk = its path) and makes the logs folder; lda_vocab and gen_corpus below.
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

# gen_corpus NAME DOCS V: a corpus from sk-lda gen in $logs/NAME (binary when this sk-lda writes it).
gen_corpus() {
  local dir=$logs/$1
  if [ ! -f "$dir/done" ]; then
    local t0=$SECONDS
    mkdir -p "$dir"
    local fmt=()
    "$sk" gen --help 2>&1 | grep -q -- "--binary" && fmt=(--binary)
    # an earlier gen cut short (no done file) left files that gen refuses without --overwrite
    "$sk" gen --help 2>&1 | grep -q -- "--overwrite" && fmt+=(--overwrite)
    "$sk" gen --out "$dir" --name "$1" --docs "$2" --words "$3" --mean-length 333 --topics 100 --seed 1 "${fmt[@]}" \
      >"$logs/gen-$1.log" 2>&1 || { echo "gen $1 failed: $(tail -1 "$logs/gen-$1.log")" >&2; return 1; }
    touch "$dir/done"
    echo "gen $1: $((SECONDS - t0)) s, $(du -sh "$dir" | cut -f1) on disk" >&2
  fi
  local doc
  doc=$(ls "$dir"/docword."$1".* | head -1)
  echo "$doc --vocab $dir/vocab.$1.txt"
}
