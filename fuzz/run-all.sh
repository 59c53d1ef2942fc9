#!/usr/bin/env bash
# Runs fuzz targets one after another, each a single libFuzzer process (no -jobs or
# -workers: one core), logging to $LOG_DIR.
#   fuzz/run-all.sh                      # every target, RUNS executions each (*_shaders: SHADER_RUNS)
#   fuzz/run-all.sh anim txtr            # only these
#   MAX_TIME=600 RUNS=10000000 fuzz/run-all.sh   # stop each after 10 minutes
# Seed first with fuzz/seed.sh. A target that crashes stops there; its input lands in
# fuzz/artifacts/<target>/ (move it to fuzz/regressions/<target>/ once fixed).
set -uo pipefail
fuzz_dir="$(cd "$(dirname "$0")" && pwd)"
LOG_DIR="${LOG_DIR:-$fuzz_dir/logs}"
RUNS="${RUNS:-3000000}"
# The *_shaders targets run the WGSL generators and naga on every new shader key: a few
# hundred executions a second against thousands for the parser targets, so they get fewer.
SHADER_RUNS="${SHADER_RUNS:-300000}"
MAX_TIME="${MAX_TIME:-0}"   # seconds per target, 0 = no limit
mkdir -p "$LOG_DIR"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(pak pak_ranged txtr anim ancs_char mrea mlvl strg mp3_cskr mp3_cinf mp3_anim sand mp3_material cmdl mp3_mrea cmdl_shaders mp3_material_shaders mp3_mrea_shaders)
cd "$fuzz_dir"
for t in "${targets[@]}"; do
  runs="$RUNS"
  case "$t" in *_shaders) runs="$SHADER_RUNS" ;; esac
  mkdir -p "corpus/$t" "artifacts/$t"
  echo "== $t: $runs runs, started $(date -u +%FT%TZ)" | tee -a "$LOG_DIR/summary.log"
  cargo +nightly fuzz run -s none "$t" "corpus/$t" -- \
    -runs="$runs" -max_total_time="$MAX_TIME" -max_len=65536 -timeout=10 \
    -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 \
    -artifact_prefix="artifacts/$t/" >"$LOG_DIR/$t.log" 2>&1
  rc=$?
  echo "== $t: exit $rc, ended $(date -u +%FT%TZ); $(grep -E 'stat::number_of_executed_units|stat::average_exec_per_sec' "$LOG_DIR/$t.log" | tr '\n' ' ')" |
    tee -a "$LOG_DIR/summary.log"
done
