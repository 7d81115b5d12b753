// A separable 17-tap convolution in the style of cuda-samples' convolutionSeparable: the
// filter lives in constant memory (`c_Kernel`) and the host writes it with
// cudaMemcpyToSymbol before the row and column passes. Written for ptxemu's tests
// (tools/tests/conv_cli.rs); regenerate the PTX and the reference with make.sh.
#define RADIUS 8

__constant__ float c_Kernel[2 * RADIUS + 1];

extern "C" __global__ void conv_rows(float *dst, const float *src, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= w || y >= h)
        return;
    float sum = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k) {
        int xx = min(max(x + k, 0), w - 1);
        sum += src[y * w + xx] * c_Kernel[RADIUS - k];
    }
    dst[y * w + x] = sum;
}

extern "C" __global__ void conv_cols(float *dst, const float *src, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= w || y >= h)
        return;
    float sum = 0.0f;
    for (int k = -RADIUS; k <= RADIUS; ++k) {
        int yy = min(max(y + k, 0), h - 1);
        sum += src[yy * w + x] * c_Kernel[RADIUS - k];
    }
    dst[y * w + x] = sum;
}
