#!/bin/sh
# Regenerates cxxfilt.tsv: every mangled kernel name the repository's PTX fixtures declare,
# with GNU c++filt's demangling of it (the independent reference emu/tests/kernel_names.rs
# checks ptxemu's demangler against). Needs c++filt (binutils). Run from the repository root.
set -eu
out=emu/tests/kernel_names/cxxfilt.tsv
grep -rhoE '\.entry[[:space:]]+_Z[A-Za-z0-9_]+' tests/fixtures emu/tests tools/tests python/tests \
    | sed -E 's/\.entry[[:space:]]+//' | LC_ALL=C sort -u > /tmp/kernel_names.$$
{
    printf '# mangled\tc++filt (%s)\n' "$(c++filt --version | head -1)"
    while read -r m; do
        printf '%s\t%s\n' "$m" "$(c++filt "$m")"
    done < /tmp/kernel_names.$$
} > "$out"
rm -f /tmp/kernel_names.$$
