#!/usr/bin/env bash
# Replays the kernel fixtures of tests/fixtures on a real GPU and records what it produced,
# and records the driver's bytes for the tensor maps of tools/gpu/tmap_cases.txt.
#
#   bash tools/gpu/replay-fixtures.sh PTXEMU OUTDIR [ARCH]      (run from the repository root)
#
# PTXEMU is a built `ptxemu` binary (it only writes each launch: `run ... --emit-launch`);
# ARCH (default sm_90) is the GPU's; fixtures whose PTX targets something it cannot run
# (sm_100a, ...) and fixtures that expect a fault or refusal are skipped, and listed.
# The host (tools/gpu/launch_host.cu) is built once with nvcc, or taken from $LAUNCH_HOST.
# $JOBS launches run at once (default 12); each is stopped after 20 s, and launches not
# started $BUDGET s (default 170) after the script began are recorded as not run, so the
# whole script ends within about 4 minutes. Nothing here stops at a failing fixture.
#
# The record is made under $WORK (default /tmp/ptxemu-replay):
#   <fixture>/<variant>/{status,launch.txt,stderr,stdout,out/argN.bin,tmapN.bin,tmapN.addr}
#   tmap_cases/<n>.{txt,bin,addr,status}
# and OUTDIR receives five files: replay.tar.gz (all of $WORK), summary.tsv (fixture,
# variant, arg, sha256 of the GPU's dump, equal to expected yes/no, status), skipped.tsv,
# env.txt and replay.log.
set -u
if [ $# -lt 2 ]; then
    echo "usage: $0 PTXEMU OUTDIR [ARCH=sm_90]" >&2
    exit 2
fi
PTXEMU=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
OUTDIR=$2
ARCH=${3:-sm_90}
WORK=${WORK:-/tmp/ptxemu-replay}
JOBS=${JOBS:-12}
ROOT=$(pwd)
[ -f tools/gpu/launch_host.cu ] || { echo "$0: run it from the repository root" >&2; exit 2; }
[ -x "$PTXEMU" ] || { echo "$0: $PTXEMU is not an executable" >&2; exit 2; }
mkdir -p "$OUTDIR" && OUTDIR=$(cd "$OUTDIR" && pwd)
rm -rf "$WORK" && mkdir -p "$WORK"
LOG=$OUTDIR/replay.log
: >"$LOG"
say() { echo "replay: $*" | tee -a "$LOG" >&2; }
T0=$(date +%s)

# --- the environment -------------------------------------------------------------------
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
{
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "arch: $ARCH"
    echo "host: $(uname -a)"
    echo "ptxemu: $("$PTXEMU" --version 2>&1)"
    echo "git: $(git rev-parse HEAD 2>/dev/null || echo unknown)"
    echo "--- nvidia-smi"
    nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv 2>&1
    echo "--- nvcc ($NVCC)"
    "$NVCC" --version 2>&1
} >"$OUTDIR/env.txt"
cp "$OUTDIR/env.txt" "$WORK/env.txt"
say "environment recorded in $OUTDIR/env.txt"

# --- the host ------------------------------------------------------------------------
HOST=${LAUNCH_HOST:-}
if [ -z "$HOST" ]; then
    HOST=$WORK/launch_host
    if ! "$NVCC" -O2 -std=c++17 -o "$HOST" tools/gpu/launch_host.cu -lcuda >"$WORK/build.log" 2>&1; then
        cat "$WORK/build.log" >>"$LOG"
        say "FAILED to build launch_host (log above); nothing replayed"
        tar -C "$WORK" -czf "$OUTDIR/replay.tar.gz" . 2>/dev/null
        exit 1
    fi
fi
say "host: $HOST (built in $(($(date +%s) - T0)) s)"

# --- which fixtures ------------------------------------------------------------------
LIST=tools/gpu/fixtures.tsv
if command -v python3 >/dev/null && python3 tools/gpu/list_fixtures.py "$ROOT" >"$WORK/fixtures.tsv" 2>>"$LOG"; then
    LIST=$WORK/fixtures.tsv
    cmp -s "$LIST" tools/gpu/fixtures.tsv || say "note: tools/gpu/fixtures.tsv is stale; using a fresh list"
else
    cp "$LIST" "$WORK/fixtures.tsv"
fi

# Whether PTX for target $1 runs on $ARCH: sm_NNa needs NN exactly, sm_NNf the same major.
runnable() {
    local t=${1#sm_} a=${ARCH#sm_}
    a=${a%[af]}
    case $t in
        *a) [ "${t%a}" = "$a" ] ;;
        *f) [ $((${t%f} / 10)) = $((a / 10)) ] && [ "${t%f}" -le "$a" ] ;;
        [0-9]*) [ "$t" -le "$a" ] 2>/dev/null ;;
        *) false ;;
    esac
}

: >"$OUTDIR/skipped.tsv"
: >"$WORK/jobs.txt"
n=0
while IFS= read -r line; do
    IFS=$'\t' read -r -a f <<<"$line"
    if [ "${f[0]}" = skip ]; then
        printf '%s\t%s\t%s\n' "${f[1]}" "${f[2]}" "${f[3]}" >>"$OUTDIR/skipped.tsv"
    elif ! runnable "${f[3]}"; then
        printf '%s\t%s\t%s\n' "${f[1]}" "${f[2]}" "PTX target ${f[3]} does not run on $ARCH" >>"$OUTDIR/skipped.tsv"
    else
        echo "$line" >>"$WORK/jobs.txt"
        n=$((n + 1))
    fi
done <"$LIST"
say "$n launches to replay, $(wc -l <"$OUTDIR/skipped.tsv") skipped (skipped.tsv)"

# --- one launch: emit, replay, compare -------------------------------------------------
# Reads one fixtures.tsv `run` line; writes $WORK/<fixture>/<variant>/ and its summary rows.
one() {
    local line=$1 f
    IFS=$'\t' read -r -a f <<<"$line"
    local fx=${f[1]} var=${f[2]} ptx=${f[4]} dumps=${f[5]}
    local d=$WORK/$fx/$var st rc
    mkdir -p "$d"
    if [ "$(date +%s)" -ge "$END" ]; then
        st="not-run: the time budget (BUDGET) was spent"
    elif ! "$PTXEMU" run "$ptx" "${f[@]:6}" --emit-launch "$d/plan" >"$d/emit.log" 2>&1; then
        st="emit-refused"
    else
        (cd "$d" && timeout -k 5 20 "$HOST" --timeout 15 plan >stdout 2>stderr)
        rc=$?
        case $rc in
            0) st=ok ;;
            1) st="cuda-error: $(grep -m1 -o 'failed: [A-Z_0-9]*' "$d/stderr" | cut -c9-)" ;;
            2) st="host-refused" ;;
            3 | 124 | 137) st="timeout" ;;
            *) st="host-exit-$rc" ;;
        esac
        grep -q 'lowered to' "$d/stderr" && st="$st (ptx .version lowered)"
        cp "$d/plan/launch.txt" "$d/" 2>/dev/null
        cp "$d/plan"/tmap*.bin "$d/plan"/tmap*.addr "$d/" 2>/dev/null
    fi
    echo "$st" >"$d/status"
    # Keep only the dumped outputs (inputs and module copies are in the repository).
    mkdir -p "$d/out"
    local rows="" spec arg exp got sum eq
    if [ "$dumps" != "-" ]; then
        IFS=',' read -r -a specs <<<"$dumps"
        for spec in "${specs[@]}"; do
            arg=${spec%%=*}
            exp=${spec#*=}
            got=$d/plan/out/arg$arg.bin
            sum=-
            eq=no
            if [ -f "$got" ]; then
                cp "$got" "$d/out/"
                sum=$(sha256sum "$got" | cut -d' ' -f1)
                [ -f "$ROOT/$exp" ] && [ "$(sha256sum <"$ROOT/$exp" | cut -d' ' -f1)" = "$sum" ] && eq=yes
            fi
            rows+=$(printf '%s\t%s\t%s\t%s\t%s\t%s' "$fx" "$var" "$arg" "$sum" "$eq" "$st")$'\n'
        done
    else
        rows=$(printf '%s\t%s\t-\t-\t-\t%s' "$fx" "$var" "$st")$'\n'
    fi
    printf '%s' "$rows" >"$d/summary.tsv"
    rm -rf "$d/plan"
}
export -f one
END=$((T0 + ${BUDGET:-170}))
export WORK ROOT HOST PTXEMU END

seq 1 "$n" | xargs -P "$JOBS" -n 1 bash -c 'one "$(sed -n "${1}p" "$WORK/jobs.txt")"' _ 2>>"$LOG"
say "fixtures replayed in $(($(date +%s) - T0)) s"

# --- tensor-map cases: the driver's bytes ---------------------------------------------
mkdir -p "$WORK/tmap_cases"
# Case $1 (numbered from 1) of tmap_cases.txt: its spec, driver bytes and buffer address.
case_one() {
    local k=$1 c b
    c=$(grep -v '^\s*\(#\|$\)' "$ROOT/tools/gpu/tmap_cases.txt" | sed -n "${k}p")
    b=$WORK/tmap_cases/$k
    echo "$c" >"$b.txt"
    if ! "$PTXEMU" run "$ROOT/tools/gpu/tmap_probe.ptx" --kernel probe --arg "$c" --emit-launch "$b.plan" >"$b.emit.log" 2>&1; then
        echo "emit-refused: $(tail -n1 "$b.emit.log")" >"$b.status"
    elif timeout -k 5 20 "$HOST" --encode-only "$b.plan" >/dev/null 2>"$b.stderr"; then
        cp "$b.plan/tmap0.bin" "$b.bin"
        cp "$b.plan/tmap0.addr" "$b.addr"
        cp "$b.plan/launch.txt" "$b.launch.txt"
        echo ok >"$b.status"
    else
        echo "encode-failed: $(tail -n1 "$b.stderr")" >"$b.status"
        cp "$b.plan/launch.txt" "$b.launch.txt" 2>/dev/null
    fi
    rm -rf "$b.plan"
}
export -f case_one
cases=$(grep -vc '^\s*\(#\|$\)' tools/gpu/tmap_cases.txt)
seq 1 "$cases" | xargs -P "$JOBS" -n 1 bash -c 'case_one "$1"' _ 2>>"$LOG"
say "tensor-map cases: $(grep -l '^ok' "$WORK"/tmap_cases/*.status 2>/dev/null | wc -l) of $(ls "$WORK"/tmap_cases/*.status 2>/dev/null | wc -l) encoded"

# --- summary -------------------------------------------------------------------------
{
    printf 'fixture\tvariant\targ\tsha256\tequal_expected\tstatus\n'
    find "$WORK" -mindepth 3 -name summary.tsv -exec cat {} + | sort
} >"$OUTDIR/summary.tsv"
cp "$OUTDIR/summary.tsv" "$OUTDIR/skipped.tsv" "$WORK/"
cut -f6 "$OUTDIR/summary.tsv" | tail -n +2 | sed 's/:.*//' | sort | uniq -c | tee -a "$LOG" >&2
say "equal to expected: $(awk -F'\t' '$5=="yes"' "$OUTDIR/summary.tsv" | wc -l) of $(awk -F'\t' 'NR>1 && $3!="-"' "$OUTDIR/summary.tsv" | wc -l) dumps"
cp "$LOG" "$WORK/"
tar -C "$WORK" --exclude=launch_host --exclude=fixtures.tsv -czf "$OUTDIR/replay.tar.gz" .
say "done in $(($(date +%s) - T0)) s: $OUTDIR/replay.tar.gz ($(du -k "$OUTDIR/replay.tar.gz" | cut -f1) KiB)"
