// launch_host: replays on a GPU, through the CUDA driver API, one launch that
// `ptxemu run ... --emit-launch DIR` wrote (DIR/launch.txt; format in
// tools/src/cmd_run/emit_launch.rs). It JIT-loads DIR/module.ptx, fills the buffers from
// DIR/argN.bin, encodes each tensor map with cuTensorMapEncodeTiled / cuTensorMapEncodeIm2col
// (writing the driver's 128 bytes to DIR/tmapN.bin and the global address it was given to
// DIR/tmapN.addr), launches, waits, and writes every buffer back to DIR/out/argN.bin.
//
//   launch_host [--timeout S] [--encode-only] [--no-cooperative] DIR
//
// --encode-only stops after the tensor maps. Without a cluster, the launch is first tried as
// a cooperative one (grid-wide sync needs it) and, if the driver refuses that, made plainly.
// Exit status: 0 done, 1 a CUDA call failed (named, with its CUresult), 2 a bad plan or
// unreadable/unwritable file, 3 the kernel ran past the timeout (default 15 s).
//
// Build: nvcc -O2 -o launch_host tools/gpu/launch_host.cu -lcuda

#include <cuda.h>

#include <chrono>
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace {

std::string g_dir;

[[noreturn]] void die(int code, const std::string& msg) {
    fprintf(stderr, "launch_host: %s: %s\n", g_dir.c_str(), msg.c_str());
    fflush(stdout);
    _exit(code);
}

void check(CUresult r, const char* what) {
    if (r == CUDA_SUCCESS) return;
    const char* name = nullptr;
    const char* text = nullptr;
    cuGetErrorName(r, &name);
    cuGetErrorString(r, &text);
    die(1, std::string(what) + " failed: " + (name ? name : "?") + " (" + std::to_string(int(r)) +
               "): " + (text ? text : "?"));
}

void on_alarm(int) {
    const char m[] = "launch_host: watchdog: no result in time (stuck in the driver or JIT)\n";
    ssize_t ignored = write(2, m, sizeof m - 1);
    (void)ignored;
    _exit(3);
}

struct Tmap {
    bool im2col = false;
    unsigned dtype = 0, rank = 0, interleave = 0, swizzle = 0, l2 = 0, oob = 0;
    cuuint64_t dims[5] = {}, strides[5] = {};
    cuuint32_t box[5] = {}, estrides[5] = {};
    int lower[3] = {}, upper[3] = {};
    unsigned channels = 0, pixels = 0;
    size_t buf = 0;
    uint64_t offset = 0;
    CUtensorMap map;  // cuda.h aligns it as the driver requires
};

struct Param {
    enum Kind { Scalar, Buffer, TensorMap } kind = Scalar;
    std::vector<unsigned char> bytes;  // scalar bytes
    size_t size = 0;                   // buffer bytes
    std::string file;                  // buffer init file
    Tmap* tmap = nullptr;
};

struct Plan {
    std::string module, kernel;
    unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, cluster[3] = {0, 0, 0};
    unsigned shared = 0;
    std::vector<Param> params;
    // Buffers by parameter index: a buffer parameter's, or a tensor map's own (`data`).
    std::vector<size_t> buf_size;
    std::vector<std::string> buf_file;
};

std::vector<unsigned char> read_file(const std::string& path, size_t want) {
    std::ifstream f(path, std::ios::binary);
    if (!f) die(2, "cannot read " + path);
    std::vector<unsigned char> v((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (v.size() != want)
        die(2, path + " has " + std::to_string(v.size()) + " bytes, the plan says " + std::to_string(want));
    return v;
}

void write_file(const std::string& path, const void* p, size_t n) {
    FILE* f = fopen(path.c_str(), "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) die(2, "cannot write " + path);
}

template <class T>
void read_n(std::istringstream& s, T* out, unsigned n, const std::string& line) {
    for (unsigned k = 0; k < n; k++)
        if (!(s >> out[k])) die(2, "launch.txt: short tensor-map record: " + line);
}

Tmap* parse_tmap(std::istringstream& s, const std::string& line) {
    Tmap* t = new Tmap();
    std::string mode;
    s >> mode >> t->dtype >> t->rank;
    if (mode != "tiled" && mode != "im2col") die(2, "launch.txt: tensor-map mode `" + mode + "`");
    t->im2col = mode == "im2col";
    if (t->rank < 1 || t->rank > 5 || (t->im2col && t->rank < 3)) die(2, "launch.txt: rank in: " + line);
    read_n(s, t->dims, t->rank, line);
    read_n(s, t->strides, t->rank - 1, line);
    if (!t->im2col) read_n(s, t->box, t->rank, line);
    read_n(s, t->estrides, t->rank, line);
    if (!(s >> t->interleave >> t->swizzle >> t->l2 >> t->oob)) die(2, "launch.txt: short record: " + line);
    if (t->im2col) {
        read_n(s, t->lower, t->rank - 2, line);
        read_n(s, t->upper, t->rank - 2, line);
        if (!(s >> t->channels >> t->pixels)) die(2, "launch.txt: short record: " + line);
    }
    if (!(s >> t->buf >> t->offset)) die(2, "launch.txt: short record: " + line);
    return t;
}

Plan parse_plan(const std::string& path) {
    std::ifstream f(path);
    if (!f) die(2, "cannot read " + path);
    Plan p;
    std::string line, key;
    bool header = false, ended = false;
    size_t nparams = 0;
    while (std::getline(f, line)) {
        std::istringstream s(line);
        if (!(s >> key)) continue;
        if (key == "ptxemu-launch") {
            int v = 0;
            s >> v;
            if (v != 1) die(2, "launch.txt: version " + std::to_string(v) + " (this host reads 1)");
            header = true;
        } else if (key == "module") {
            s >> p.module;
        } else if (key == "kernel") {
            s >> p.kernel;
        } else if (key == "grid" || key == "block" || key == "cluster") {
            unsigned* d = key == "grid" ? p.grid : key == "block" ? p.block : p.cluster;
            if (!(s >> d[0] >> d[1] >> d[2])) die(2, "launch.txt: " + line);
        } else if (key == "shared") {
            s >> p.shared;
        } else if (key == "params") {
            s >> nparams;
            p.params.resize(nparams);
            p.buf_size.assign(nparams, 0);
            p.buf_file.assign(nparams, "");
        } else if (key == "data" || key == "param") {
            size_t i = nparams;
            s >> i;
            if (i >= nparams) die(2, "launch.txt: parameter index out of range: " + line);
            if (key == "data") {
                s >> p.buf_size[i] >> p.buf_file[i];
                continue;
            }
            std::string kind;
            s >> kind;
            Param& q = p.params[i];
            if (kind == "scalar") {
                size_t n = 0;
                std::string hex;
                s >> n >> hex;
                if (hex.size() != 2 * n) die(2, "launch.txt: scalar bytes: " + line);
                q.kind = Param::Scalar;
                for (size_t k = 0; k < n; k++) q.bytes.push_back((unsigned char)strtoul(hex.substr(2 * k, 2).c_str(), nullptr, 16));
            } else if (kind == "buffer") {
                q.kind = Param::Buffer;
                if (!(s >> q.size >> q.file)) die(2, "launch.txt: " + line);
                p.buf_size[i] = q.size;
                p.buf_file[i] = q.file;
            } else if (kind == "tmap") {
                q.kind = Param::TensorMap;
                q.tmap = parse_tmap(s, line);
                if (q.tmap->buf >= nparams) die(2, "launch.txt: tensor-map buffer index: " + line);
            } else {
                die(2, "launch.txt: unknown parameter kind `" + kind + "`");
            }
        } else if (key == "end") {
            ended = true;
        } else {
            die(2, "launch.txt: unknown record `" + key + "`");
        }
    }
    if (!header || !ended) die(2, "launch.txt: missing the `ptxemu-launch 1` header or the `end` line");
    if (p.module.empty() || p.kernel.empty()) die(2, "launch.txt: no module or kernel");
    return p;
}

void encode(Tmap& t, CUdeviceptr base, size_t i) {
    void* addr = reinterpret_cast<void*>(base + t.offset);
    auto dt = CUtensorMapDataType(t.dtype);
    auto il = CUtensorMapInterleave(t.interleave);
    auto sw = CUtensorMapSwizzle(t.swizzle);
    auto l2 = CUtensorMapL2promotion(t.l2);
    auto oob = CUtensorMapFloatOOBfill(t.oob);
    std::string what = "tensor map " + std::to_string(i) + ": ";
    memset(&t.map, 0, sizeof t.map);
    if (t.im2col) {
        check(cuTensorMapEncodeIm2col(&t.map, dt, t.rank, addr, t.dims, t.strides, t.lower, t.upper, t.channels,
                                      t.pixels, t.estrides, il, sw, l2, oob),
              (what + "cuTensorMapEncodeIm2col").c_str());
    } else {
        check(cuTensorMapEncodeTiled(&t.map, dt, t.rank, addr, t.dims, t.strides, t.box, t.estrides, il, sw, l2, oob),
              (what + "cuTensorMapEncodeTiled").c_str());
    }
    write_file(g_dir + "/tmap" + std::to_string(i) + ".bin", &t.map, sizeof t.map);
    char text[64];
    snprintf(text, sizeof text, "0x%llx\n", (unsigned long long)(base + t.offset));
    write_file(g_dir + "/tmap" + std::to_string(i) + ".addr", text, strlen(text));
}

CUresult launch(const Plan& p, CUfunction fn, CUstream st, void** args, bool cooperative) {
    CUlaunchAttribute attrs[2];
    unsigned n = 0;
    if (p.cluster[0] != 0) {
        attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attrs[n].value.clusterDim.x = p.cluster[0];
        attrs[n].value.clusterDim.y = p.cluster[1];
        attrs[n].value.clusterDim.z = p.cluster[2];
        n++;
    }
    if (cooperative) {
        attrs[n].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
        attrs[n].value.cooperative = 1;
        n++;
    }
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = p.grid[0];
    cfg.gridDimY = p.grid[1];
    cfg.gridDimZ = p.grid[2];
    cfg.blockDimX = p.block[0];
    cfg.blockDimY = p.block[1];
    cfg.blockDimZ = p.block[2];
    cfg.sharedMemBytes = p.shared;
    cfg.hStream = st;
    cfg.attrs = n ? attrs : nullptr;
    cfg.numAttrs = n;
    return cuLaunchKernelEx(&cfg, fn, args, nullptr);
}

CUresult jit(CUmodule* m, const std::string& ptx, char* log, size_t log_size) {
    static char info[4096];
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_INFO_LOG_BUFFER,
                           CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void* vals[] = {log, reinterpret_cast<void*>(uintptr_t(log_size)), info,
                    reinterpret_cast<void*>(uintptr_t(sizeof info))};
    log[0] = 0;
    return cuModuleLoadDataEx(m, ptx.c_str(), 4, opts, vals);
}

// Loads the module. A driver older than the PTX's `.version` refuses it
// (CUDA_ERROR_UNSUPPORTED_PTX_VERSION); then the `.version` line is lowered step by step
// (9.x, 8.x, 7.8) until the driver accepts the header, and stderr says so (a module that
// really needs the newer ISA then fails to JIT, with its log).
CUmodule load_module(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) die(2, "cannot read " + path);
    std::string ptx((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    static char log[16384];
    CUmodule m;
    CUresult r = jit(&m, ptx, log, sizeof log);
    size_t at = ptx.find(".version ");
    if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION && at != std::string::npos) {
        size_t end = ptx.find_first_of("\r\n", at);
        std::string given = ptx.substr(at + 9, end - at - 9);
        const char* tries[] = {"9.5", "9.4", "9.3", "9.2", "9.1", "9.0", "8.8", "8.7", "8.6",
                               "8.5", "8.4", "8.3", "8.2", "8.1", "8.0", "7.8"};
        for (const char* v : tries) {
            if (atof(v) >= atof(given.c_str())) continue;
            std::string lowered = ptx.substr(0, at + 9) + v + ptx.substr(end);
            r = jit(&m, lowered, log, sizeof log);
            if (r != CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
                fprintf(stderr, "launch_host: the driver refuses PTX ISA %s: .version lowered to %s\n",
                        given.c_str(), v);
                break;
            }
        }
    }
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "launch_host: JIT log:\n%s\n", log);
        check(r, "cuModuleLoadDataEx (JIT of module.ptx)");
    }
    return m;
}

}  // namespace

int main(int argc, char** argv) {
    double timeout = 15;
    bool encode_only = false, cooperative = true;
    for (int k = 1; k < argc; k++) {
        std::string a = argv[k];
        if (a == "--encode-only") encode_only = true;
        else if (a == "--no-cooperative") cooperative = false;
        else if (a == "--timeout" && k + 1 < argc) timeout = atof(argv[++k]);
        else if (!a.empty() && a[0] != '-' && g_dir.empty()) g_dir = a;
        else die(2, "usage: launch_host [--timeout S] [--encode-only] [--no-cooperative] DIR");
    }
    if (g_dir.empty()) die(2, "usage: launch_host [--timeout S] [--encode-only] [--no-cooperative] DIR");
    signal(SIGALRM, on_alarm);
    alarm(unsigned(timeout) + 30);  // backstop for a driver or JIT that never returns
    Plan p = parse_plan(g_dir + "/launch.txt");

    check(cuInit(0), "cuInit");
    CUdevice dev;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    CUcontext ctx;
    check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");

    size_t n = p.params.size();
    std::vector<CUdeviceptr> bufs(n, 0);
    for (size_t i = 0; i < n; i++) {
        if (p.buf_file[i].empty()) continue;
        size_t size = p.buf_size[i];
        check(cuMemAlloc(&bufs[i], size ? size : 1), "cuMemAlloc");
        std::vector<unsigned char> init = read_file(g_dir + "/" + p.buf_file[i], size);
        if (size) check(cuMemcpyHtoD(bufs[i], init.data(), size), "cuMemcpyHtoD");
    }
    std::vector<void*> args(n, nullptr);
    for (size_t i = 0; i < n; i++) {
        Param& q = p.params[i];
        switch (q.kind) {
            case Param::Scalar: args[i] = q.bytes.data(); break;
            case Param::Buffer: args[i] = &bufs[i]; break;
            case Param::TensorMap:
                if (!bufs[q.tmap->buf]) die(2, "tensor map " + std::to_string(i) + ": its buffer is not a buffer");
                encode(*q.tmap, bufs[q.tmap->buf], i);
                args[i] = &q.tmap->map;
                break;
        }
    }
    if (encode_only) {
        fprintf(stderr, "launch_host: encoded the tensor maps\n");
        return 0;
    }

    CUmodule mod = load_module(g_dir + "/" + p.module);
    CUfunction fn;
    check(cuModuleGetFunction(&fn, mod, p.kernel.c_str()), ("cuModuleGetFunction `" + p.kernel + "`").c_str());
    if (p.shared > 0)
        check(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(p.shared)),
              "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    if (uint64_t(p.cluster[0]) * p.cluster[1] * p.cluster[2] > 8)
        check(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
              "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)");
    CUstream st;
    check(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING), "cuStreamCreate");

    const char* how = "plain";
    CUresult r = CUDA_ERROR_UNKNOWN;
    if (cooperative && p.cluster[0] == 0) {
        r = launch(p, fn, st, args.data(), true);
        if (r == CUDA_SUCCESS) how = "cooperative";
    }
    if (r != CUDA_SUCCESS) check(launch(p, fn, st, args.data(), false), "cuLaunchKernelEx");
    auto t0 = std::chrono::steady_clock::now();
    for (;;) {
        r = cuStreamQuery(st);
        if (r != CUDA_ERROR_NOT_READY) break;
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (s > timeout) die(3, "timeout: the kernel ran past " + std::to_string(timeout) + " s");
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    check(r, "the kernel (cuStreamQuery)");
    check(cuCtxSynchronize(), "cuCtxSynchronize");
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    fflush(stdout);  // the kernel's printf output

    std::string out = g_dir + "/out";
    if (mkdir(out.c_str(), 0755) != 0 && errno != EEXIST) die(2, "cannot make " + out);
    for (size_t i = 0; i < n; i++) {
        if (p.buf_file[i].empty()) continue;
        std::vector<unsigned char> host(p.buf_size[i]);
        if (!host.empty()) check(cuMemcpyDtoH(host.data(), bufs[i], host.size()), "cuMemcpyDtoH");
        write_file(out + "/arg" + std::to_string(i) + ".bin", host.data(), host.size());
    }
    fprintf(stderr, "launch_host: ok (%s launch, %.3f ms)\n", how, ms);
    return 0;
}
