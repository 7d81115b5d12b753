//! The CUDA program of a harness: kernel, host loop, histogram, litmus7 log and JSON.

use std::fmt::Write as _;

use super::role::RoleAsm;
use super::{litmus7_expr, litmus7_term, HarnessOptions};
use crate::ast::{Expr, Quantifier, Term};
use crate::report::kind;

/// Where the value of a shown term comes from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum TermSource {
    /// An observed-register slot of the instance.
    Slot(usize),
    /// A location's final value.
    Location(usize),
    /// A constant.
    Const(i64),
}

/// One role: its CTA group, its warp in the CTA, its code, and its observed-register slots.
pub(crate) struct Role {
    pub group: usize,
    pub warp: usize,
    pub asm: RoleAsm,
    pub slots: Vec<usize>,
}

/// Everything the program needs.
pub(crate) struct Spec<'a> {
    pub name: &'a str,
    pub header: String,
    pub quantifier: Quantifier,
    pub condition: &'a Expr,
    pub terms: &'a [Term],
    pub term_source: Vec<TermSource>,
    pub locations: &'a [String],
    pub init: &'a [i64],
    pub groups: usize,
    pub warps: usize,
    pub roles: Vec<Role>,
    pub slots: usize,
    pub options: &'a HarnessOptions,
}

fn c_string(s: &str) -> String {
    let mut out = String::from("\"");
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The condition as a C++ expression over `v[]`, the values of the shown terms.
fn c_condition(e: &Expr, terms: &[Term]) -> String {
    let term = |t: &Term| match t {
        Term::Const(c) => format!("{c}LL"),
        t => match terms.iter().position(|x| x == t) {
            Some(k) => format!("v[{k}]"),
            None => "0LL".into(),
        },
    };
    match e {
        Expr::True => "true".into(),
        Expr::Not(a) => format!("!({})", c_condition(a, terms)),
        Expr::And(a, b) => format!("({} && {})", c_condition(a, terms), c_condition(b, terms)),
        Expr::Or(a, b) => format!("({} || {})", c_condition(a, terms), c_condition(b, terms)),
        Expr::Cmp(a, op, b) => format!("({} {} {})", term(a), op.symbol(), term(b)),
    }
}

/// The whole program.
pub(crate) fn program(s: &Spec<'_>) -> String {
    let o = s.options;
    let mut src = s.header.clone();
    src.push_str(PRELUDE);
    let nterms = s.terms.len().max(1);
    let names: Vec<String> = s.terms.iter().map(|t| c_string(&litmus7_term(t))).collect();
    let keys: Vec<String> = s.terms.iter().map(|t| c_string(&t.to_string())).collect();
    let (kinds, idx): (Vec<String>, Vec<String>) = s
        .term_source
        .iter()
        .map(|ts| match ts {
            TermSource::Slot(k) => ("0".to_string(), format!("{k}LL")),
            TermSource::Location(k) => ("1".to_string(), format!("{k}LL")),
            TermSource::Const(c) => ("2".to_string(), format!("{c}LL")),
        })
        .unzip();
    let quant = match s.quantifier {
        Quantifier::Exists => 0,
        Quantifier::NotExists => 1,
        Quantifier::Forall => 2,
    };
    let _ = writeln!(src, "static const char *TEST_NAME = {};", c_string(s.name));
    let _ = writeln!(
        src,
        "static const char *TEST_KIND = {};",
        c_string(kind(s.quantifier))
    );
    let _ = writeln!(
        src,
        "static const char *CONDITION = {};",
        c_string(&{
            let e = litmus7_expr(s.condition);
            if e.starts_with('(') {
                format!("{} {e}", s.quantifier.name())
            } else {
                format!("{} ({e})", s.quantifier.name())
            }
        })
    );
    let _ = writeln!(src, "static const int QUANTIFIER = {quant};");
    let _ = writeln!(src, "#define NROLES {}", s.roles.len());
    let _ = writeln!(src, "#define NGROUPS {}", s.groups);
    let _ = writeln!(src, "#define WARPS {}", s.warps);
    let _ = writeln!(src, "#define NLOCS {}", s.locations.len().max(1));
    let _ = writeln!(src, "#define NSLOTS {}", s.slots.max(1));
    let _ = writeln!(src, "#define NTERMS {}", s.terms.len());
    let _ = writeln!(src, "#define NTERMS_ALLOC {nterms}");
    let list = |v: &[String], empty: &str| {
        if v.is_empty() {
            empty.to_string()
        } else {
            v.join(", ")
        }
    };
    let init: Vec<String> = s.init.iter().map(|v| format!("{v}LL")).collect();
    let tables: [(&str, &[String], &str); 5] = [
        ("const long long LOC_INIT[NLOCS]", &init, "0"),
        ("const char *TERM_NAMES[NTERMS_ALLOC]", &names, "\"\""),
        ("const char *TERM_KEYS[NTERMS_ALLOC]", &keys, "\"\""),
        ("const int TERM_KIND[NTERMS_ALLOC]", &kinds, "0"),
        ("const long long TERM_INDEX[NTERMS_ALLOC]", &idx, "0"),
    ];
    for (decl, values, empty) in tables {
        let _ = writeln!(src, "static {decl} = {{{}}};", list(values, empty));
    }
    let _ = writeln!(
        src,
        "static bool condition_holds(const long long *v) {{ (void)v; return {}; }}",
        c_condition(s.condition, s.terms)
    );
    let _ = writeln!(
        src,
        "static const unsigned DEF_INSTANCES = {}, DEF_ITERATIONS = {}, DEF_STRESS = {}, DEF_STRESS_ROUNDS = {}, DEF_STRIDE = {}, DEF_SPIN = {};",
        o.instances, o.iterations, o.stress, o.stress_rounds, o.stride, o.spin
    );
    let _ = writeln!(
        src,
        "static const unsigned long long DEF_SEED = {}ULL;",
        o.seed
    );
    src.push_str(KERNEL_HEAD);
    // role_of(group, warp)
    let _ = writeln!(
        src,
        "__device__ static int role_of(unsigned group, unsigned warp) {{"
    );
    for (k, r) in s.roles.iter().enumerate() {
        let _ = writeln!(
            src,
            "    if (group == {} && warp == {}) return {k};",
            r.group, r.warp
        );
    }
    src.push_str("    return -1;\n}\n\n");
    src.push_str(KERNEL_BODY);
    for (k, r) in s.roles.iter().enumerate() {
        let _ = writeln!(src, "    case {k}: {{");
        if r.asm.outputs > 0 {
            let _ = writeln!(
                src,
                "        unsigned long long out[{}] = {{0}};",
                r.asm.outputs
            );
        }
        let _ = writeln!(src, "        unsigned abandoned = 0;");
        let _ = writeln!(src, "        {}", r.asm.statement);
        let _ = writeln!(
            src,
            "        if (abandoned) atomicOr(&p.abandoned[inst], 1u);"
        );
        for (j, slot) in r.slots.iter().enumerate() {
            let _ = writeln!(src, "        obs[{slot}] = out[{j}];");
        }
        let _ = writeln!(src, "        break;\n    }}");
    }
    src.push_str("    }\n}\n");
    src.push_str(HOST);
    src
}

const PRELUDE: &str = r#"
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <string>
#include <vector>

"#;

const KERNEL_HEAD: &str = r#"
struct Params {
    unsigned long long *mem;
    unsigned long long *obs;
    unsigned *sync;
    unsigned *abandoned;
    unsigned long long *scratch;
    unsigned n, stride, spin, stress_rounds, scratch_mask;
    unsigned perm_a[NGROUPS], perm_b[NGROUPS];
    unsigned loc_a, loc_b;
};

// Slot of instance `inst`'s locations: an affine permutation (odd multiplier, so a bijection
// modulo the power of two n).
__host__ __device__ static inline size_t loc_word(const Params &p, unsigned inst, unsigned loc) {
    unsigned slot = (p.loc_a * inst + p.loc_b) & (p.n - 1);
    return ((size_t)loc * p.n + slot) * p.stride;
}

"#;

const KERNEL_BODY: &str = r#"__global__ void litmus_kernel(Params p) {
    unsigned test_blocks = NGROUPS * (p.n / 32);
    if (blockIdx.x >= test_blocks) {
        // A stressing CTA: pseudo-random loads and stores to a scratch buffer.
        volatile unsigned long long *s = p.scratch;
        unsigned x = blockIdx.x * 7919u + threadIdx.x * 104729u + p.loc_b;
        for (unsigned k = 0; k < p.stress_rounds; k++) {
            x = x * 1664525u + 1013904223u;
            unsigned w = (x >> 8) & p.scratch_mask;
            s[w] = s[w] + 1;
        }
        return;
    }
    unsigned group = blockIdx.x % NGROUPS, m = blockIdx.x / NGROUPS;
    unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int role = role_of(group, warp);
    if (role < 0) return;
    unsigned inst = (p.perm_a[group] * (m * 32 + lane) + p.perm_b[group]) & (p.n - 1);
    // Bounded pre-test synchronisation of the instance's threads.
    atomicAdd(&p.sync[inst], 1u);
    for (unsigned k = 0; k < p.spin && *(volatile unsigned *)&p.sync[inst] < NROLES; k++) {
    }
    unsigned long long addr[NLOCS];
    for (unsigned l = 0; l < NLOCS; l++) addr[l] = (unsigned long long)(p.mem + loc_word(p, inst, l));
    unsigned long long *obs = p.obs + (size_t)inst * NSLOTS;
    (void)addr;
    (void)obs;
    switch (role) {
"#;

const HOST: &str = r#"
#define CHECK(call)                                                                       \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s: %s failed: %s\n", TEST_NAME, #call, cudaGetErrorString(e_)); \
            exit(2);                                                                      \
        }                                                                                 \
    } while (0)

static unsigned long long splitmix(unsigned long long &s) {
    unsigned long long z = (s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void usage(const char *argv0) {
    fprintf(stderr,
            "usage: %s [-n INSTANCES] [-i ITERATIONS] [-s SEED] [-stress CTAS] [-stress-rounds N]\n"
            "          [-stride WORDS] [-spin N] [-json PATH]\n",
            argv0);
    exit(2);
}

int main(int argc, char **argv) {
    unsigned n = DEF_INSTANCES, iterations = DEF_ITERATIONS, stress = DEF_STRESS;
    unsigned stress_rounds = DEF_STRESS_ROUNDS, stride = DEF_STRIDE, spin = DEF_SPIN;
    unsigned long long seed = DEF_SEED;
    std::string json_path = std::string(TEST_NAME) + ".json";
    for (int a = 1; a < argc; a++) {
        std::string f = argv[a];
        if (a + 1 >= argc) usage(argv[0]);
        const char *v = argv[++a];
        if (f == "-n") n = (unsigned)strtoul(v, 0, 0);
        else if (f == "-i") iterations = (unsigned)strtoul(v, 0, 0);
        else if (f == "-s") seed = strtoull(v, 0, 0);
        else if (f == "-stress") stress = (unsigned)strtoul(v, 0, 0);
        else if (f == "-stress-rounds") stress_rounds = (unsigned)strtoul(v, 0, 0);
        else if (f == "-stride") stride = (unsigned)strtoul(v, 0, 0);
        else if (f == "-spin") spin = (unsigned)strtoul(v, 0, 0);
        else if (f == "-json") json_path = v;
        else usage(argv[0]);
    }
    if (n < 32 || (n & (n - 1)) != 0 || stride == 0 || iterations == 0) {
        fprintf(stderr, "%s: -n must be a power of two >= 32; -stride and -i positive\n", TEST_NAME);
        return 2;
    }
    cudaDeviceProp prop;
    int dev = 0, driver = 0, runtime = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaGetDeviceProperties(&prop, dev));
    CHECK(cudaDriverGetVersion(&driver));
    CHECK(cudaRuntimeGetVersion(&runtime));

    size_t mem_words = (size_t)NLOCS * n * stride;
    const unsigned scratch_words = 1u << 20;
    Params p;
    memset(&p, 0, sizeof p);
    CHECK(cudaMalloc(&p.mem, mem_words * 8));
    CHECK(cudaMalloc(&p.obs, (size_t)n * NSLOTS * 8));
    CHECK(cudaMalloc(&p.sync, (size_t)n * 4));
    CHECK(cudaMalloc(&p.abandoned, (size_t)n * 4));
    CHECK(cudaMalloc(&p.scratch, (size_t)scratch_words * 8));
    CHECK(cudaMemset(p.scratch, 0, (size_t)scratch_words * 8));
    p.n = n;
    p.stride = stride;
    p.spin = spin;
    p.stress_rounds = stress_rounds;
    p.scratch_mask = scratch_words - 1;
    std::vector<unsigned long long> mem(mem_words), obs((size_t)n * NSLOTS);
    std::vector<unsigned> gave_up(n);
    unsigned long long abandoned = 0;
    std::map<std::vector<long long>, unsigned long long> histogram;
    unsigned long long rng = seed;
    unsigned test_blocks = NGROUPS * (n / 32);
    auto t0 = std::chrono::steady_clock::now();
    for (unsigned it = 0; it < iterations; it++) {
        for (int g = 0; g < NGROUPS; g++) {
            p.perm_a[g] = (unsigned)splitmix(rng) | 1u;
            p.perm_b[g] = (unsigned)splitmix(rng);
        }
        p.loc_a = (unsigned)splitmix(rng) | 1u;
        p.loc_b = (unsigned)splitmix(rng);
        std::fill(mem.begin(), mem.end(), 0ULL);
        for (unsigned i = 0; i < n; i++)
            for (unsigned l = 0; l < NLOCS; l++) mem[loc_word(p, i, l)] = (unsigned long long)LOC_INIT[l];
        CHECK(cudaMemcpy(p.mem, mem.data(), mem_words * 8, cudaMemcpyHostToDevice));
        CHECK(cudaMemset(p.obs, 0, (size_t)n * NSLOTS * 8));
        CHECK(cudaMemset(p.sync, 0, (size_t)n * 4));
        CHECK(cudaMemset(p.abandoned, 0, (size_t)n * 4));
        litmus_kernel<<<test_blocks + stress, WARPS * 32>>>(p);
        CHECK(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaMemcpy(mem.data(), p.mem, mem_words * 8, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(obs.data(), p.obs, (size_t)n * NSLOTS * 8, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(gave_up.data(), p.abandoned, (size_t)n * 4, cudaMemcpyDeviceToHost));
        std::vector<long long> v(NTERMS);
        for (unsigned i = 0; i < n; i++) {
            if (gave_up[i]) {
                abandoned++;
                continue;
            }
            for (int k = 0; k < NTERMS; k++) {
                switch (TERM_KIND[k]) {
                case 0: v[k] = (long long)obs[(size_t)i * NSLOTS + TERM_INDEX[k]]; break;
                case 1: v[k] = (long long)mem[loc_word(p, i, (unsigned)TERM_INDEX[k])]; break;
                default: v[k] = TERM_INDEX[k];
                }
            }
            histogram[v]++;
        }
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    unsigned long long positive = 0, negative = 0;
    for (auto &e : histogram) {
        if (condition_holds(e.first.data())) positive += e.second;
        else negative += e.second;
    }
    bool ok = QUANTIFIER == 0 ? positive > 0 : QUANTIFIER == 1 ? positive == 0 : negative == 0;
    printf("Device %s (sm_%d%d), driver %d, runtime %d\n", prop.name, prop.major, prop.minor, driver, runtime);
    printf("Test %s %s\n", TEST_NAME, TEST_KIND);
    printf("Histogram (%zu states)\n", histogram.size());
    for (auto &e : histogram) {
        printf("%-6llu%c>", e.second, condition_holds(e.first.data()) ? '*' : ':');
        for (int k = 0; k < NTERMS; k++) printf("%s=%lld;%s", TERM_NAMES[k], e.first[k], k + 1 < NTERMS ? " " : "");
        printf("\n");
    }
    printf("%s\n\nWitnesses\n", ok ? "Ok" : "No");
    printf("Positive: %llu, Negative: %llu\n", positive, negative);
    printf("Condition %s is %svalidated\n", CONDITION, ok ? "" : "NOT ");
    printf("Observation %s %s %llu %llu\n", TEST_NAME,
           positive == 0 ? "Never" : negative == 0 ? "Always" : "Sometimes", positive, negative);
    printf("Time %s %.2f\n", TEST_NAME, seconds);
    // Instances whose loops exceeded the budget count as executions that never complete.
    printf("Abandoned %s %llu\n\n", TEST_NAME, abandoned);

    time_t now = time(0);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    FILE *f = fopen(json_path.c_str(), "w");
    if (!f) {
        fprintf(stderr, "%s: cannot write %s\n", TEST_NAME, json_path.c_str());
        return 2;
    }
    fprintf(f, "{\"test\": ");
    json_string(f, TEST_NAME);
    fprintf(f, ", \"gpu\": ");
    json_string(f, prop.name);
    fprintf(f, ", \"sm\": \"sm_%d%d\", \"driver\": %d, \"runtime\": %d, \"date\": \"%s\",\n", prop.major,
            prop.minor, driver, runtime, date);
    fprintf(f, " \"instances\": %u, \"iterations\": %u, \"stress\": %u, \"stress_rounds\": %u, \"stride\": %u, "
               "\"spin\": %u, \"seed\": %llu, \"time_s\": %.3f, \"abandoned\": %llu,\n",
            n, iterations, stress, stress_rounds, stride, spin, seed, seconds, abandoned);
    fprintf(f, " \"positive\": %llu, \"negative\": %llu, \"states\": [", positive, negative);
    bool first = true;
    for (auto &e : histogram) {
        fprintf(f, "%s\n  {\"count\": %llu, \"satisfies\": %s, \"values\": {", first ? "" : ",", e.second,
                condition_holds(e.first.data()) ? "true" : "false");
        for (int k = 0; k < NTERMS; k++) {
            json_string(f, TERM_KEYS[k]);
            fprintf(f, ": %lld%s", e.first[k], k + 1 < NTERMS ? ", " : "");
        }
        fprintf(f, "}}");
        first = false;
    }
    fprintf(f, "\n]}\n");
    fclose(f);
    return 0;
}
"#;
