"""Kernels after Triton's tutorials (vector add, fused softmax, matmul, low-memory dropout,
layer norm, fused attention, grouped GEMM, persistent matmul, block-scaled matmul), written
afresh for these tests. test_triton_tutorials.py launches them with ``kernel[grid](...)``."""

from triton_support import triton, tl

if triton is not None:

    @triton.jit
    def vector_add(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
        pid = tl.program_id(axis=0)
        idx = pid * BLOCK + tl.arange(0, BLOCK)
        live = idx < n
        a = tl.load(a_ptr + idx, mask=live)
        b = tl.load(b_ptr + idx, mask=live)
        tl.store(c_ptr + idx, a + b, mask=live)

    @triton.jit
    def softmax_rows(out_ptr, in_ptr, in_stride, out_stride, n_rows, n_cols,
                     BLOCK: tl.constexpr, STAGES: tl.constexpr):
        first = tl.program_id(0)
        step = tl.num_programs(0)
        for r in tl.range(first, n_rows, step, num_stages=STAGES):
            cols = tl.arange(0, BLOCK)
            live = cols < n_cols
            row = tl.load(in_ptr + r * in_stride + cols, mask=live, other=-float("inf"))
            shifted = row - tl.max(row, axis=0)
            e = tl.exp(shifted)
            tl.store(out_ptr + r * out_stride + cols, e / tl.sum(e, axis=0), mask=live)

    @triton.jit
    def _grouped_tile(pid, M, N, BM: tl.constexpr, BN: tl.constexpr, GROUP: tl.constexpr):
        tiles_m = tl.cdiv(M, BM)
        tiles_n = tl.cdiv(N, BN)
        per_group = GROUP * tiles_n
        g = pid // per_group
        first_m = g * GROUP
        rows = min(tiles_m - first_m, GROUP)
        return first_m + (pid % per_group) % rows, (pid % per_group) // rows

    @triton.jit
    def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP: tl.constexpr):
        tm, tn = _grouped_tile(tl.program_id(0), M, N, BM, BN, GROUP)
        rm = (tm * BM + tl.arange(0, BM)) % M
        rn = (tn * BN + tl.arange(0, BN)) % N
        rk = tl.arange(0, BK)
        a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
        b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            left = K - k * BK
            x = tl.load(a, mask=rk[None, :] < left, other=0.0)
            y = tl.load(b, mask=rk[:, None] < left, other=0.0)
            acc = tl.dot(x, y, acc)
            a += BK * sak
            b += BK * sbk
        cm = tm * BM + tl.arange(0, BM)
        cn = tn * BN + tl.arange(0, BN)
        c = c_ptr + cm[:, None] * scm + cn[None, :] * scn
        tl.store(c, acc.to(tl.float16), mask=(cm[:, None] < M) & (cn[None, :] < N))

    @triton.jit
    def seeded_dropout(x_ptr, out_ptr, n, p, seed, BLOCK: tl.constexpr):
        idx = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        live = idx < n
        x = tl.load(x_ptr + idx, mask=live)
        keep = tl.rand(seed, idx) > p
        tl.store(out_ptr + idx, tl.where(keep, x / (1 - p), 0.0), mask=live)

    @triton.jit
    def layer_norm(x_ptr, y_ptr, w_ptr, b_ptr, mean_ptr, rstd_ptr, stride, N, eps,
                   BLOCK: tl.constexpr):
        r = tl.program_id(0)
        x_row = x_ptr + r * stride
        y_row = y_ptr + r * stride
        total = tl.zeros([BLOCK], dtype=tl.float32)
        for s in range(0, N, BLOCK):
            c = s + tl.arange(0, BLOCK)
            total += tl.load(x_row + c, mask=c < N, other=0.0).to(tl.float32)
        mean = tl.sum(total, axis=0) / N
        sq = tl.zeros([BLOCK], dtype=tl.float32)
        for s in range(0, N, BLOCK):
            c = s + tl.arange(0, BLOCK)
            d = tl.where(c < N, tl.load(x_row + c, mask=c < N, other=0.0).to(tl.float32) - mean,
                         0.0)
            sq += d * d
        rstd = 1 / tl.sqrt(tl.sum(sq, axis=0) / N + eps)
        tl.store(mean_ptr + r, mean)
        tl.store(rstd_ptr + r, rstd)
        for s in range(0, N, BLOCK):
            c = s + tl.arange(0, BLOCK)
            live = c < N
            w = tl.load(w_ptr + c, mask=live)
            b = tl.load(b_ptr + c, mask=live)
            x = tl.load(x_row + c, mask=live, other=0.0).to(tl.float32)
            tl.store(y_row + c, (x - mean) * rstd * w + b, mask=live)

    @triton.jit
    def attention(q_ptr, k_ptr, v_ptr, o_ptr, sm_scale, L,
                  D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
        # one (batch*head) slice per program column, BM query rows per program
        start = tl.program_id(0) * BM
        head = tl.program_id(1)
        base = head * L * D
        rows = start + tl.arange(0, BM)
        d = tl.arange(0, D)
        q = tl.load(q_ptr + base + rows[:, None] * D + d[None, :], mask=rows[:, None] < L)
        m_i = tl.full([BM], float("-inf"), tl.float32)
        l_i = tl.zeros([BM], tl.float32)
        acc = tl.zeros([BM, D], tl.float32)
        qk_scale = sm_scale * 1.44269504
        for s in range(0, L, BN):
            cols = s + tl.arange(0, BN)
            k = tl.load(k_ptr + base + cols[None, :] * D + d[:, None], mask=cols[None, :] < L)
            v = tl.load(v_ptr + base + cols[:, None] * D + d[None, :], mask=cols[:, None] < L)
            qk = tl.dot(q, k) * qk_scale
            qk = tl.where(cols[None, :] < L, qk, float("-inf"))
            m_new = tl.maximum(m_i, tl.max(qk, 1))
            p = tl.math.exp2(qk - m_new[:, None])
            alpha = tl.math.exp2(m_i - m_new)
            l_i = l_i * alpha + tl.sum(p, 1)
            acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v)
            m_i = m_new
        out = acc / l_i[:, None]
        tl.store(o_ptr + base + rows[:, None] * D + d[None, :], out.to(tl.float16),
                 mask=rows[:, None] < L)

    @triton.jit
    def grouped_gemm(a_addrs, b_addrs, c_addrs, sizes, lds, n_groups, NUM_PROGS: tl.constexpr,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        tile = tl.program_id(0)
        done = 0
        for g in range(n_groups):
            M = tl.load(sizes + g * 3)
            N = tl.load(sizes + g * 3 + 1)
            K = tl.load(sizes + g * 3 + 2)
            tiles_n = tl.cdiv(N, BN)
            count = tl.cdiv(M, BM) * tiles_n
            while tile >= done and tile < done + count:
                lda = tl.load(lds + g * 3)
                ldb = tl.load(lds + g * 3 + 1)
                ldc = tl.load(lds + g * 3 + 2)
                a_ptr = tl.load(a_addrs + g).to(tl.pointer_type(tl.float16))
                b_ptr = tl.load(b_addrs + g).to(tl.pointer_type(tl.float16))
                c_ptr = tl.load(c_addrs + g).to(tl.pointer_type(tl.float16))
                local = tile - done
                tm = local // tiles_n
                tn = local % tiles_n
                rm = tm * BM + tl.arange(0, BM)
                rn = tn * BN + tl.arange(0, BN)
                rk = tl.arange(0, BK)
                acc = tl.zeros((BM, BN), dtype=tl.float32)
                for k in range(0, tl.cdiv(K, BK)):
                    x = tl.load(a_ptr + rm[:, None] * lda + (k * BK + rk)[None, :],
                                mask=(rm[:, None] < M) & ((k * BK + rk)[None, :] < K), other=0.0)
                    y = tl.load(b_ptr + (k * BK + rk)[:, None] * ldb + rn[None, :],
                                mask=((k * BK + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
                    acc += tl.dot(x, y)
                tl.store(c_ptr + rm[:, None] * ldc + rn[None, :], acc.to(tl.float16),
                         mask=(rm[:, None] < M) & (rn[None, :] < N))
                tile += NUM_PROGS
            done += count

    @triton.jit
    def persistent_matmul(a_ptr, b_ptr, c_ptr, M, N, K, NUM_PROGS: tl.constexpr,
                          BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        tiles_n = tl.cdiv(N, BN)
        tiles = tl.cdiv(M, BM) * tiles_n
        for t in tl.range(tl.program_id(0), tiles, NUM_PROGS, flatten=True):
            tm = t // tiles_n
            tn = t % tiles_n
            rm = tm * BM + tl.arange(0, BM)
            rn = tn * BN + tl.arange(0, BN)
            acc = tl.zeros((BM, BN), dtype=tl.float32)
            for k in range(0, tl.cdiv(K, BK)):
                rk = k * BK + tl.arange(0, BK)
                x = tl.load(a_ptr + rm[:, None] * K + rk[None, :],
                            mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
                y = tl.load(b_ptr + rk[:, None] * N + rn[None, :],
                            mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
                acc = tl.dot(x, y, acc)
            tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16),
                     mask=(rm[:, None] < M) & (rn[None, :] < N))

    @triton.jit
    def descriptor_matmul(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr,
                          BK: tl.constexpr):
        om = tl.program_id(0) * BM
        on = tl.program_id(1) * BN
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            acc = tl.dot(a_desc.load([om, k * BK]), b_desc.load([k * BK, on]), acc)
        c_desc.store([om, on], acc.to(tl.float16))

    @triton.jit
    def scaled_matmul(a_ptr, b_ptr, sa_ptr, sb_ptr, c_ptr, M, N, K,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
        # mxfp8 (e4m3) operands, one e8m0 scale per 32 elements of K
        rm = tl.program_id(0) * BM + tl.arange(0, BM)
        rn = tl.program_id(1) * BN + tl.arange(0, BN)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            rk = k * BK + tl.arange(0, BK)
            rs = k * (BK // 32) + tl.arange(0, BK // 32)
            a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])
            b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])
            sa = tl.load(sa_ptr + rm[:, None] * (K // 32) + rs[None, :])
            sb = tl.load(sb_ptr + rn[:, None] * (K // 32) + rs[None, :])
            acc = tl.dot_scaled(a, sa, "e4m3", b, sb, "e4m3", acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc)

    @triton.jit
    def matmul_f16_acc(a_ptr, b_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr,
                       BK: tl.constexpr):
        rm = tl.arange(0, BM)
        rn = tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float16)
        for k in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :])
            b = tl.load(b_ptr + (k + rk)[:, None] * BN + rn[None, :])
            acc = tl.dot(a, b, acc, out_dtype=tl.float16)
        tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)
