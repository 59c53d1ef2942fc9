#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seed inputs: the conformance fixtures
# ($TEVSCOPE_CONFORMANCE_DIR, default ../shared/conformance beside the repository), the
# demo's resources (assets/demo.pak, extracted with `tevscope extract`), the shared fuzz
# regression inputs beside the fixtures and this repo's saved regressions. The corpus
# directories are git-ignored: fixtures are never committed.
set -euo pipefail
fuzz_dir="$(cd "$(dirname "$0")" && pwd)"
repo="$(dirname "$fuzz_dir")"
conformance="${TEVSCOPE_CONFORMANCE_DIR:-$repo/../shared/conformance}"
corpus="$fuzz_dir/corpus"

# target: file extensions it reads (case-insensitive)
declare -A exts=(
  [pak]="pak"
  [pak_ranged]="pak"
  [cmdl]="cmdl"
  [cmdl_shaders]="cmdl"
  [mp3_material]="cmdl"
  [mp3_material_shaders]="cmdl"
  [txtr]="txtr"
  [anim]="anim cinf cskr"
  [ancs_char]="ancs char"
  [mrea]="mrea"
  [mp3_mrea]="mrea"
  [mp3_mrea_shaders]="mrea"
  [mlvl]="mlvl"
  [strg]="strg"
  [mp3_cskr]="cskr"
  [mp3_cinf]="cinf"
  [mp3_anim]="anim"
  [sand]="sand"
)

copy_matching() { # copy_matching SOURCE_DIR
  local src="$1" target ext
  for target in "${!exts[@]}"; do
    mkdir -p "$corpus/$target"
    for ext in ${exts[$target]}; do
      find "$src" -type f -iname "*.$ext" -print0 |
        while IFS= read -r -d '' f; do
          # Flatten the path into the name so same-named files in subfolders both stay.
          cp "$f" "$corpus/$target/$(echo "${f#"$src"/}" | tr '/' '_')"
        done
    done
  done
}

if [ -d "$conformance" ]; then
  copy_matching "$conformance"
  # Inputs that once broke tevscope (fixed since): good seeds near the edges.
  [ -d "$conformance/../regressions" ] && copy_matching "$conformance/../regressions"
else
  echo "!!!!!!!! conformance fixtures not found at $conformance: seeding without them" >&2
fi

# TEVSCOPE_BIN: a built tevscope to extract with (say from another checkout, so a frozen
# fuzzing copy need not build one); otherwise `cargo run` builds this repository's.
tevscope() {
  if [ -n "${TEVSCOPE_BIN:-}" ]; then
    (cd "$repo" && "$TEVSCOPE_BIN" "$@")
  else
    (cd "$repo" && cargo run -q --bin tevscope -- "$@")
  fi
}

demo="$(mktemp -d)"
trap 'rm -rf "$demo"' EXIT
cp "$repo/assets/"*.pak "$repo/assets/"*.MREA "$demo/"
tevscope extract assets/demo.pak -o "$demo/demo"
tevscope extract assets/demo_mp3.pak -o "$demo/demo_mp3"
# The world fixtures keep their MLVLs and STRGs inside PAKs, the MP3 fixtures their
# version-5 CMDLs and the rest (CMPD-compressed): extract them too.
for p in "$conformance"/worlds/*.pak "$conformance"/mp3/*.pak; do
  [ -f "$p" ] && tevscope extract "$p" -o "$demo/$(basename "$p" .pak)"
done
copy_matching "$demo"

for target in "${!exts[@]}"; do
  if [ -d "$fuzz_dir/regressions/$target" ]; then
    cp "$fuzz_dir/regressions/$target/"* "$corpus/$target/" 2>/dev/null || true
  fi
  echo "$target: $(ls "$corpus/$target" | wc -l) seeds"
done
