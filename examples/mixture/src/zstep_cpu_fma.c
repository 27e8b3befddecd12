/* The CPU z-step's inner loop compiled with -mfma (zstep_cpu_chunk.h): the same source as
   zstep_cpu_plain.c, which it includes under another name. */
#define sk_mix_detail_draw_chunk sk_mix_detail_draw_chunk_fma
#include "zstep_cpu_plain.c"
