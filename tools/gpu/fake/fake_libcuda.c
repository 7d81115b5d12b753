/* A stand-in for libcuda.so, for checking tools/gpu/launch_host.cu and replay-fixtures.sh
 * on a machine without a GPU: device memory is host memory, a launch does nothing (so each
 * buffer comes back as it went in), and a tensor map's 128 bytes are its parameters packed
 * (not the driver's layout). FAKE_CUDA_FAIL=launch makes launches fail; =hang makes kernels
 * never finish (to exercise the timeout). FAKE_PTX_MAX=9.0 refuses PTX of a later .version.
 *
 * Build: gcc -shared -fPIC -I$CUDA_INCLUDE -o libcuda.so.1 fake_libcuda.c
 *        (and a libcuda.so link to it for the linker) */
#include <cuda.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static const char *fail(void) { const char *f = getenv("FAKE_CUDA_FAIL"); return f ? f : ""; }

CUresult cuInit(unsigned int f) { (void)f; return CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice *d, int o) { (void)o; *d = 0; return CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) { (void)d; *c = (CUcontext)1; return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext c) { (void)c; return CUDA_SUCCESS; }
CUresult cuCtxSynchronize(void) { return CUDA_SUCCESS; }
CUresult cuGetErrorName(CUresult r, const char **s) {
    *s = r == CUDA_ERROR_LAUNCH_FAILED ? "CUDA_ERROR_LAUNCH_FAILED" : "CUDA_ERROR_(fake)";
    return CUDA_SUCCESS;
}
CUresult cuGetErrorString(CUresult r, const char **s) { (void)r; *s = "fake libcuda"; return CUDA_SUCCESS; }
CUresult cuMemAlloc(CUdeviceptr *p, size_t n) {
    void *m = aligned_alloc(256, (n + 255) / 256 * 256);
    if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
    *p = (CUdeviceptr)m;
    return CUDA_SUCCESS;
}
CUresult cuMemcpyHtoD(CUdeviceptr d, const void *s, size_t n) { memcpy((void *)d, s, n); return CUDA_SUCCESS; }
CUresult cuMemcpyDtoH(void *d, CUdeviceptr s, size_t n) { memcpy(d, (void *)s, n); return CUDA_SUCCESS; }
CUresult cuModuleLoadDataEx(CUmodule *m, const void *img, unsigned int n, CUjit_option *o, void **v) {
    (void)n; (void)o; (void)v;
    const char *max = getenv("FAKE_PTX_MAX"), *ver = strstr((const char *)img, ".version ");
    if (max && ver && atof(ver + 9) > atof(max)) return CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
    *m = (CUmodule)1;
    return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) { (void)m; (void)name; *f = (CUfunction)1; return CUDA_SUCCESS; }
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v) { (void)f; (void)a; (void)v; return CUDA_SUCCESS; }
CUresult cuStreamCreate(CUstream *s, unsigned int f) { (void)f; *s = (CUstream)1; return CUDA_SUCCESS; }
CUresult cuStreamQuery(CUstream s) { (void)s; return strcmp(fail(), "hang") ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY; }
CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **p, void **e) {
    (void)c; (void)f; (void)p; (void)e;
    return strcmp(fail(), "launch") ? CUDA_SUCCESS : CUDA_ERROR_LAUNCH_FAILED;
}
static void pack(CUtensorMap *m, unsigned tag, unsigned dt, unsigned rank, void *a, const cuuint64_t *dims) {
    unsigned char *b = (unsigned char *)m;
    memset(b, 0, 128);
    b[0] = (unsigned char)tag; b[1] = (unsigned char)dt; b[2] = (unsigned char)rank;
    memcpy(b + 8, &a, sizeof a);
    for (unsigned k = 0; k < rank && k < 5; k++) memcpy(b + 16 + 8 * k, &dims[k], 8);
}
CUresult cuTensorMapEncodeTiled(CUtensorMap *m, CUtensorMapDataType dt, cuuint32_t rank, void *a, const cuuint64_t *dims,
                                const cuuint64_t *st, const cuuint32_t *box, const cuuint32_t *es, CUtensorMapInterleave il,
                                CUtensorMapSwizzle sw, CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
    (void)st; (void)box; (void)es; (void)il; (void)sw; (void)l2; (void)oob;
    pack(m, 1, dt, rank, a, dims);
    return CUDA_SUCCESS;
}
CUresult cuTensorMapEncodeIm2col(CUtensorMap *m, CUtensorMapDataType dt, cuuint32_t rank, void *a, const cuuint64_t *dims,
                                 const cuuint64_t *st, const int *lo, const int *up, cuuint32_t ch, cuuint32_t px,
                                 const cuuint32_t *es, CUtensorMapInterleave il, CUtensorMapSwizzle sw,
                                 CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
    (void)st; (void)lo; (void)up; (void)ch; (void)px; (void)es; (void)il; (void)sw; (void)l2; (void)oob;
    pack(m, 2, dt, rank, a, dims);
    return CUDA_SUCCESS;
}
