"""The performance goals, computed from one run's paired ratios: the
current ones (small calls, 16-bit dtypes against XNNPACK, threads, Python)
and the earlier in-cache and 1 Ki ones.

All C++ comparisons use ratios to the same memcpy measured in the same block,
so two variants compare as ratio_a / ratio_b. lrelu is measured through its
one-call entry point (lrelu_leaky_relu: planning included) unless a row says
"planned".
"""
from results import SIMD_COPY, size_label

ONE_CALL = 'lrelu_leaky_relu (one call)'
PLANNED = 'lrelu_execute (planned)'
OUT_OF_CACHE = 16 << 20
BANDWIDTH_TARGET = {'f32': 0.95, 'f16': 0.9, 'bf16': 0.9, 'f64': 0.95}


# Why a current goal is missed where it is, on the AMD EPYC (AVX2 + F16C)
# machine: the limits measured by bench/kernel_limits and bench/small_call
# (the section "Instruction-level limits" below).
WHY_AVX2 = {
    'small': 'the one-shot call checks x and y in one pass and reads the '
             'MXCSR: ~250 instructions around the 1 Ki kernel\'s ~630, '
             'against lrelu_execute\'s ~125 (bench/small_call under '
             'callgrind), on a kernel that runs at memcpy\'s speed; the '
             'cell moves by about 0.1 from run to run and with the '
             'process\'s memory layout',
    'f16': 'the kernel runs XNNPACK\'s own schedule, at its speed (limits '
           'below: 1.63 vs 1.64 the copy at 16 Ki, 1.28 vs 1.29 at 256 Ki)',
    'f16_small': 'the kernel runs XNNPACK\'s schedule, at its speed (limits '
                 'below); the call adds its checks and the MXCSR: the '
                 'environment read, the invalid flag read before and after '
                 'the round trip, and, where the caller left the flag '
                 'raised (the harness\'s correctness pass does), a write to '
                 'clear it for the round trip and a comparison with a NaN '
                 '(COMISS) to raise it again (a second write until '
                 '2026-12-07: the flag-raised call 0.965-0.968x its time in '
                 'an interleaved A/B, ~3.5 ns). '
                 '`lrelu_small_call --n 1024`: lrelu_execute 88 ns, the one '
                 'call 92 ns, with the flag raised 96 and 100 ns, against '
                 'XNNPACK\'s 80-90 ns in the harness (before 2026-12-05 a '
                 'raised flag sent every call to the exact kernel: 1.5-1.7x '
                 'XNNPACK\'s time at every size on this CPU)',
    'f16_2T': 'the order of the harness: the first two-thread lrelu variant '
              'of each round reads 1.2-1.5x the next ones (with the '
              'variants\' order swapped, lrelu_execute reads 0.60-0.75 of '
              'memcpy and the one call 0.49-0.55, against XNNPACK\'s '
              '0.61-0.77): its pool\'s worker has slept longest, and this '
              'VM wakes an idle vCPU late. `lrelu_small_call --n 4194304 '
              '--threads 2`: the one call 362-366 us, lrelu_execute 311-313 '
              'us, XNNPACK 317-385 us in the harness',
    'bf16': 'no bfloat16 instructions below AVX-512 BF16: the exact '
            'rounding takes ~16 vector operations per 16 elements against '
            '8 in XNNPACK\'s float16 schedule (limits below: 1.95-2.43x '
            'the copy in cache against 1.29-1.64x)',
    'threads': 'the second thread\'s wake-up and join cost more than it '
               'saves at this size (the split threshold is per dtype, '
               'cpu/tiling.h)',
    'threads_4Mi': 'memory, not the split: float32 x and y at 4 Mi (32 '
                   'MiB) fill this VM\'s L3, and one thread\'s streamed '
                   'output already moves what two do (2026-12-05, the '
                   'block alone, `lrelu_bench_peers --sizes 4Mi --dtypes '
                   'f32 --peers lrelu,copy`: the one call 0.58 of memcpy '
                   'on one thread, 0.62 on two, the 2-thread memcpy 0.62; '
                   '`lrelu_small_call --n 4194304`: 0.67 and 0.63); in '
                   'place, where the 16 MiB stay in the L3, two threads '
                   'take half the time (0.59 and 0.28)',
    'bandwidth': 'memory-bound: the kernel streams its output with the same '
                 'non-temporal stores as the copy it is compared with; these '
                 '64 Mi cells move by 5-10% between quiet runs on this '
                 'shared VM',
    'py_bf16': 'the harness times bfloat16 on torch tensors (the PyTorch '
               'peer\'s own; NumPy has no bfloat16 of its own), and each '
               'lrelu call reads ~12 attributes through '
               'torch\'s Python API (dtype, device, lazy negation, shape, '
               'strides and data pointer of x and y, 50-150 ns each) and '
               'bumps y\'s version counter as torch\'s in-place ops do '
               '(y.copy_(y), 0.36 us): ~1.8 us before the 1 Ki kernel, '
               'against torch\'s whole 1.9 us call',
    'python': 'the Python call itself (argument parsing, the ufunc or '
              'DLPack checks) costs more than the 4 KiB of work',
}


# Where the run's CPU has AVX-512 (Highway's AVX3 kernels), the reasons
# that differ (bench/report/limits-avx512.md).
WHY_AVX512 = {
    'small': 'the kernel alone takes the budget: at 1 Ki its 64 '
             'vectors take 28-29 ns, 1.15-1.21x a 64-byte copy loop of the '
             'same bytes (two vector operations per 64 bytes against none; '
             'limits below) and about glibc memcpy\'s 26-28 ns, so the '
             'planned call\'s 10% leaves under 3 ns for the call itself; '
             'on 16 elements lrelu_execute costs 13 ns and the one call '
             '22 ns (options, checks of x and y, the MXCSR check; '
             '`lrelu_small_call --n 16`)',
    'bf16': 'vector ALU: the exact rounding takes 13 vector operations '
            'per 32 elements (16 before 2026-12-02) on the two 512-bit '
            'ports, so the kernel runs at its L1 rate (0.073 ns/element '
            'at 4 Ki, 16 Ki and 256 Ki alike; 1.41-1.46x a 64-byte copy '
            'loop of the same bytes from L2, limits below) while the copy '
            'is bound by L2 (0.050); 1.3x needs 12 operations or fewer, '
            'and the AVX-512 BF16 conversion does not give that: '
            'vcvtne2ps2bf16 alone issues once per ~2.1 cycles here, and '
            'its schedule, even without the subnormal fix-up exactness '
            'needs, runs at 0.084 ns/element',
    'bandwidth': 'the VM\'s memory bandwidth moves between blocks and '
                 'runs (the 2-thread non-temporal copy read 27-54 GB/s '
                 'over these sessions). In four interleaved runs of the '
                 '64 Mi cells alone on 2026-12-05 (`lrelu_bench_peers '
                 '--sizes 64Mi --threads 2 --peers lrelu,copy`) float16 '
                 'read 0.90-0.95 of the non-temporal copy, bfloat16 '
                 '0.88-0.96 and float32 0.98-1.02. `lrelu_stream_limits` '
                 '(bench/kernel_limits) runs a hand-written AVX-512 loop '
                 'of the float16 work (widen, multiply, max, narrow, '
                 'non-temporal stores, x prefetched 2 or 4 KiB ahead) and '
                 'lrelu\'s kernel on the same two pinned threads, next to '
                 'the harness\'s non-temporal copy: in three runs the copy '
                 'read 37-48 GB/s, lrelu 0.90-1.38 of its bandwidth and '
                 'the best loop 0.93-1.39, lrelu within 3 % of that loop '
                 'in each run (0.70-1.04 without the prefetch; 64-byte '
                 'stores no quicker than 32-byte halves). The kernel runs '
                 'at the best loop\'s rate and the full run\'s cells move '
                 'with the machine',
    'small_peer': 'the one call\'s own checks (its options, x and y, the '
                  'MXCSR): lrelu_execute, the same kernel without them, '
                  'loses no cell (1.40 of memcpy here against Eigen\'s '
                  '1.47); on 16 elements the one call takes 21-23 ns and '
                  'lrelu_execute 13-14 ns (35-40 and 23-24 ns in a slower '
                  'hour of the same day; `lrelu_small_call --n 16`, '
                  '2026-12-05), where Eigen\'s expression checks nothing',
    'f64_split': 'lrelu keeps calls that move under 512 KiB on one '
                 'thread (cpu/tiling.h kTaskBytes; 16 Ki float64 elements '
                 'in and out move 256 KiB), where waking a sleeping worker '
                 'can cost more than the second half of the call; the '
                 'OpenMP loop\'s threads spin between its back-to-back '
                 'regions. With the threshold halved in an experiment '
                 '(2026-12-05), back-to-back two-task calls took 0.85-0.91 '
                 'of memcpy\'s time against 1.06-1.10 on one thread, a '
                 'gain only while lrelu\'s workers still spin from the '
                 'call before; the threshold stays until isolated calls '
                 'are measured too',
    'py_4Mi': 'the cell moves between runs: timed directly on '
              '2026-12-05 (medians of 41 calls, three runs; lrelu.leaky_'
              'relu(x, 0.01, out=y, threads=1) against torch\'s '
              'leaky_relu(t, 0.01, out=u) on one thread) lrelu took '
              '0.76-0.81 of np.copyto\'s time and torch 1.01-1.10',
    'f16': 'the kernel runs XNNPACK\'s float16 schedule at 16 lanes, at '
           'that schedule\'s speed (limits below: 1.44 vs 1.41 the copy at '
           '16 Ki, 1.43 vs 1.43 at 256 Ki)',
    'f16_2T': 'the cell moves between runs (three full runs: 0.86, '
              '0.94, 1.17 of XNNPACK\'s time, then 0.82 once the output '
              'streamed from the L2\'s size per task, cpu/stream_bytes.h); '
              'in interleaved runs of the block the stream took lrelu from '
              '0.55-0.64 to 0.40-0.58 of memcpy against XNNPACK\'s '
              '0.55-0.60',
    'bf16_2T': 'the cell moves between runs (three full runs: 0.91, 0.93, '
               '1.12 of XNNPACK\'s time and 1.22, 1.15, 1.47 of the copy\'s '
               'while the 8 MiB output was below the streaming threshold, '
               'then 0.89 and 0.87 once it streamed from the L2\'s size per '
               'task, cpu/stream_bytes.h)',
    'f16_small': 'at 1 Ki both kernels are bound by the F16C conversions '
                 '(6.3x the copy in L1, limits below) and lrelu\'s one call '
                 'adds its checks; until the round trip stopped clearing '
                 'and re-raising an invalid flag the caller left raised (as '
                 'the harness\'s correctness pass does), three full runs '
                 'gave 0.98-1.15 of XNNPACK\'s time, since 0.58-0.67 in '
                 'runs of this block',
}


def _met_here(measured):
    """The reason shown for a goal both runs on this CPU met: none known."""
    return (f'met in both runs of 2026-12-02 ({measured}): a miss here has '
            'not been analysed on this CPU')


# Where the run's CPU is an AMD one with AVX-512 (Zen 5 here; Highway's
# AVX3 kernels), the reasons that differ from the AVX2 machine's
# (bench/report/limits-amd-avx512.md). It sets every key WHY_AVX512 sets:
# the Xeon's reasons do not hold here.
WHY_AMD_AVX512 = {
    'small': _met_here('the one call 1.04 and 1.14 of memcpy at 1 Ki, '
                       'lrelu_execute 0.98 and 1.04'),
    'bf16': 'vector ALU: the exact rounding takes 13 vector operations '
            'per 32 elements, which Zen 5 issues about four a cycle '
            '(~3.4 cycles per 32 elements at ~3.9 GHz, 0.028-0.030 '
            'ns/element in L1 and L2 alike; limits below). The kernel '
            'alone is 1.39-1.40x a 64-byte copy loop at 16 Ki, the '
            'AVX-512 BF16 schedule (not exact: it flushes subnormal '
            'products) 1.33x, and 12- and 11-operation variants (VBMI2 '
            'vpshrdd, vpermt2w; beyond Highway 1.0.3\'s AVX3 target) '
            '1.35-1.36x: none reaches 1.3x. At 256 Ki on two threads the '
            'copy runs each half from its own core\'s 1 MiB L2 (0.42-0.50 '
            'of memcpy against 1.29-1.38 on one thread), while the kernel '
            'stays at its ALU rate on each',
    'bandwidth': 'memory-bound: the kernel streams its output with the '
                 'same non-temporal stores as the copy it is compared '
                 'with; the 64 Mi cells move by 5-10% between runs on '
                 'this shared VM (two runs of 2026-12-02: float32 0.97 '
                 'and 0.99 of the copy, float16 0.94 and 1.02, bfloat16 '
                 '0.90 and 0.91, float64 0.95 and 0.89)',
    'f16': 'the kernel runs XNNPACK\'s float16 schedule at 16 lanes, at '
           'that schedule\'s speed (limits below: 3.09 vs 3.05 the copy '
           'in L1, 1.51 vs 1.53 at 16 Ki); at 4 Mi on one thread the '
           'output streamed (8 MiB) until 2026-12-02 and read 1.11 of '
           'XNNPACK\'s time, since it stays in the L3 (half the L3 per '
           'task, cpu/stream_bytes.h): 0.87',
    'f16_2T': _met_here('0.80-0.96 of XNNPACK\'s time at 4 Mi'),
    'bf16_2T': _met_here('1.13-1.26 of the two-thread copy at 4 Mi'),
    'f16_small': _met_here('0.80-0.92 of XNNPACK\'s time at 1 Ki'),
}

# Where the run's CPU is a Zen 1 EPYC (AVX2 + F16C, 128-bit vector units,
# 8 MiB of L3 per core complex), the reasons that differ from the Zen 3
# machine's (bench/report/limits-amd-zen1.md).
WHY_AMD_ZEN1 = {
    'small': 'the kernel alone takes the budget: Zen 1 stores 16 bytes a '
             'cycle, so at 1 Ki the kernel takes ~125 ns, 1.17x a 32-byte '
             'copy loop from L1 (limits below), against glibc memcpy\'s '
             '~113 ns, which leaves the planned call\'s 10% no room; on 16 '
             'elements lrelu_execute costs 36 ns and the one call 59 ns '
             '(`lrelu_small_call --n 16`), a quarter of whose samples are '
             'the MXCSR read that contract v1\'s environment check needs '
             '(perf)',
    'bf16': 'vector ALU: the exact rounding without bfloat16 instructions '
            'takes 16 vector operations per 16 elements, 32 half-width '
            'ones on Zen 1, ~11 cycles at ~2.45 GHz (0.28 ns an element in '
            'L1 and L2 alike), while XNNPACK\'s float16 schedule is bound '
            'by the F16C conversions at ~9.7 cycles: the kernel is '
            '1.13-1.14x that schedule and ~4.1x a 32-byte copy loop in '
            'cache (limits below); matching the schedule needs 14 '
            'operations or fewer and 1.3x the copy about a third of them, '
            'and exact rounding leaves one to save at most',
    'f16': 'the kernel runs at the F16C conversions\' speed (limits below: '
           'the exact kernel 3.13-3.19x the copy at 16 Ki and 256 Ki, '
           'XNNPACK\'s schedule 3.61-3.63x)',
    'bf16_2T': 'the cell moves between runs: 0.74, 0.79 and 1.02 of '
               'XNNPACK\'s time in three runs of 2026-12-05 (the last '
               'noisy, `~`); memory bounds both kernels there (limits '
               'below: 1.19x the copy at 4 Mi on one thread, XNNPACK\'s '
               'schedule 1.19x too)',
    'bandwidth': 'memory-bound, on a VM whose bandwidth moves between '
                 'blocks: the kernel streams its output with the same '
                 'non-temporal stores as the copy it is compared with, and '
                 'three runs of 2026-12-05 read float32 0.90, 0.94 and 0.94 '
                 'of the best copy, float16 0.95, 0.96 and 0.90, bfloat16 '
                 '0.88, 0.92 and 0.70 (noisy, `~`), float64 0.98, 0.90 and '
                 '0.98, with no change to these kernels between the last '
                 'two; that a gap remains is not shown to be a limit of '
                 'the CPU',
}

# The reasons of the machine being reported (use_machine).
WHY = dict(WHY_AVX2)


def use_machine(suffix):
    """Selects the reasons for a run on the kind of machine that
    make_report.machine_suffix names ('' the AVX2 AMD EPYC)."""
    WHY.clear()
    WHY.update(WHY_AVX2)
    WHY.update({'-avx512': WHY_AVX512, '-amd-avx512': WHY_AMD_AVX512,
                '-amd-zen1': WHY_AMD_ZEN1}.get(suffix, {}))
    if suffix:
        WHY.pop('threads_4Mi')  # measured on the Zen 3 EPYC only


def _cpp(records, dtype, n):
    return [r for r in records if r['lang'] == 'cpp' and r['dtype'] == dtype
            and r['n'] == n and r.get('supported')]


def _lrelu(rows, threads, inplace, api=ONE_CALL):
    name = api + (', in-place' if inplace else '')
    for r in rows:
        if r['impl'] == 'lrelu' and r['variant'] == name and \
                r['threads'] == threads:
            return r
    return None


def _flag(*rows):
    return (('~' if any(r['noisy'] for r in rows) else '') +
            ('!' if any(r.get('loaded') for r in rows) else ''))


def bandwidth_goals(records, dtypes, sizes):
    """Out of cache, 2 threads: lrelu's bandwidth over the best copy's."""
    out = []
    for dtype in dtypes:
        for n in (s for s in sizes if s >= OUT_OF_CACHE):
            rows = _cpp(records, dtype, n)
            copies = [r for r in rows if r['impl'] == 'copy']
            lr = _lrelu(rows, 2, False)
            if not copies or lr is None:
                continue
            best = min(copies, key=lambda r: r['ratio_to_memcpy'])
            value = best['ratio_to_memcpy'] / lr['ratio_to_memcpy']
            target = BANDWIDTH_TARGET[dtype]
            out.append({
                'goal': f'{dtype}, n={size_label(n)}, 2 threads, out of '
                        'place: bandwidth / best copy\'s',
                'measured': f"{value:.2f} ({lr['gbps']:.1f} vs "
                            f"{best['gbps']:.1f} GB/s, {best['variant']} "
                            f"{best['threads']}T){_flag(lr, best)}",
                'target': f'>= {target:.2f}',
                'met': value >= target,
                'extra': dtype == 'f64', 'why': WHY['bandwidth']})
    return out


def cache_goals(records, dtypes, sizes):
    """16 Ki-256 Ki: time within 1.1x of the best SIMD copy loop that may
    use at most as many threads."""
    out = []
    for dtype in dtypes:
        for n in (s for s in sizes if 16 << 10 <= s <= 256 << 10):
            rows = _cpp(records, dtype, n)
            for threads in (1, 2):
                simd = [r for r in rows if r['impl'] == 'copy' and
                        SIMD_COPY in r['variant'] and r['threads'] <= threads]
                if not simd:
                    continue
                best = min(simd, key=lambda r: r['ratio_to_memcpy'])
                for inplace in (False, True):
                    lr = _lrelu(rows, threads, inplace)
                    if lr is None:
                        continue
                    value = lr['ratio_to_memcpy'] / best['ratio_to_memcpy']
                    out.append({
                        'goal': f"{dtype}, n={size_label(n)}, {threads}T, "
                                f"{'in' if inplace else 'out of'} place: "
                                f"time / SIMD copy's ({best['threads']}T)",
                        'measured': f'{value:.2f}{_flag(lr, best)}',
                        'target': '<= 1.10', 'met': value <= 1.10,
                        'extra': dtype == 'f64'})
    return out


def small_goals(records, dtypes):
    """1 Ki: the whole call within 1.1x of a 1-thread memcpy."""
    out = []
    for dtype in dtypes:
        rows = _cpp(records, dtype, 1 << 10)
        for threads in (1, 2):
            for inplace in (False, True):
                lr = _lrelu(rows, threads, inplace)
                if lr is None:
                    continue
                value = lr['ratio_to_memcpy']
                out.append({
                    'goal': f"{dtype}, n=1Ki, threads={threads}, "
                            f"{'in' if inplace else 'out of'} place: call "
                            "time / memcpy's",
                    'measured': f"{value:.2f} ({lr['median_ns']:.0f} ns)"
                                f'{_flag(lr)}',
                    'target': '<= 1.10', 'met': value <= 1.10,
                    'extra': dtype == 'f64'})
    return out


def _comparable(peer, inplace):
    if peer['impl'] in ('lrelu', 'copy') or peer.get('is_copy'):
        return False
    return peer['inplace'] == inplace


def peer_losses(records, api, lang='cpp'):
    """Cells where a peer beats lrelu beyond the spread: lrelu's
    interquartile range of estimates lies wholly above the peer's."""
    losses, compared = [], 0
    keys = {(r['dtype'], r['n'], r['threads']) for r in records
            if r['lang'] == lang and r.get('supported')}
    for dtype, n, threads in sorted(keys):
        rows = [r for r in records if r['lang'] == lang and
                r['dtype'] == dtype and r['n'] == n and
                r['threads'] == threads and r.get('supported')]
        for inplace in (False, True):
            lr = next((r for r in rows if r['impl'] == 'lrelu' and
                       r['inplace'] == inplace and api(r)), None)
            if lr is None:
                continue
            for p in rows:
                if not _comparable(p, inplace):
                    continue
                compared += 1
                if lr['ratio_q1'] > p['ratio_q3']:
                    losses.append((lr, p))
    return losses, compared


def _why_cell(lang, dtype, n, threads):
    """The reason a lost peer cell is lost, where one is known."""
    if lang == 'py' and dtype == 'bf16':
        return WHY['py_bf16']
    if (dtype, n) == ('f16', 1 << 10):
        return WHY['f16_small']
    if lang == 'cpp' and (dtype, n) == ('f32', 1 << 10):
        return WHY.get('small_peer')
    if lang == 'cpp' and (dtype, n, threads) == ('f64', 16 << 10, 2):
        return WHY.get('f64_split')
    if lang == 'py' and (dtype, n) == ('f32', 4 << 20):
        return WHY.get('py_4Mi')
    return None


def _why_peers(losses):
    """Why the lost peer comparisons are lost: each cell's reason (one
    reason for all, or each reason after the cells it covers); none where
    a cell has no known reason."""
    reasons = {}
    for lr, _ in losses:
        why = _why_cell(lr['lang'], lr['dtype'], lr['n'], lr['threads'])
        if why is None:
            return None
        cell = f"{lr['dtype']} n={size_label(lr['n'])} {lr['threads']}T"
        cells = reasons.setdefault(why, [])
        if cell not in cells:
            cells.append(cell)
    if len(reasons) <= 1:
        return next(iter(reasons), None)
    return '; '.join(f"{', '.join(cells)}: {why}"
                     for why, cells in reasons.items())


def peer_goals(records):
    out = []
    apis = [
        ('cpp', 'lrelu one call (planning included)',
         lambda r: r['variant'].startswith(ONE_CALL)),
        ('cpp', 'lrelu planned (lrelu_execute)',
         lambda r: r['variant'].startswith(PLANNED)),
        ('py', 'lrelu Python package',
         lambda r: r['variant'].startswith('lrelu.leaky_relu')),
    ]
    for lang, label, api in apis:
        losses, compared = peer_losses(records, api, lang)
        if not compared:
            continue
        worst = sorted(losses, key=lambda lp: lp[1]['ratio_to_memcpy'] /
                       lp[0]['ratio_to_memcpy'])[:4]
        detail = '; '.join(
            f"{lr['dtype']} n={size_label(lr['n'])} {lr['threads']}T"
            f"{' in-place' if lr['inplace'] else ''}: {p['impl']} "
            f"{p['ratio_to_memcpy']:.2f} vs {lr['ratio_to_memcpy']:.2f}"
            for lr, p in worst)
        out.append({
            'goal': f'{label} vs every {lang} peer cell, same dtype/size/'
                    'threads/placement',
            'measured': f'{len(losses)} of {compared} comparisons lost'
                        + (f' (worst: {detail})' if detail else ''),
            'target': '0 lost beyond the spread',
            'met': not losses, 'extra': False,
            'why': _why_peers(losses)})
    return out


def _row(cpp_or_py, impl, prefix, threads, inplace=False):
    return next((r for r in cpp_or_py if r['impl'] == impl and
                 r['variant'].startswith(prefix) and
                 r['threads'] == threads and r['inplace'] == inplace), None)


def _goal(goal, measured, target, met, why):
    return {'goal': goal, 'measured': measured, 'target': target,
            'met': met, 'extra': False, 'why': None if met else why}


def _why_xnnpack(dtype, n, threads):
    """Why a float16/bfloat16 cell misses XNNPACK's float16 time."""
    if dtype == 'f16' and n == 1 << 10:
        return WHY['f16_small']
    if threads == 2 and n >= 4 << 20 and f'{dtype}_2T' in WHY:
        return WHY[f'{dtype}_2T']
    why = WHY[dtype]
    if n == 1 << 10:
        why += '; at 1 Ki a call also pays ~15 ns of checks'
    return why


def issue16_goals(records, sizes):
    """Small calls, float16/bfloat16 in cache against XNNPACK's
    float16, two threads never slower than one, Python against torch."""
    out = []
    rows = _cpp(records, 'f32', 1 << 10)
    for api, target in ((ONE_CALL, 1.25), (PLANNED, 1.10)):
        lr = _lrelu(rows, 1, False, api)
        if lr is not None:
            v = lr['ratio_to_memcpy']
            out.append(_goal(
                f'f32, n=1Ki, 1T: {api} time / memcpy\'s',
                f"{v:.2f} ({lr['median_ns']:.0f} ns){_flag(lr)}",
                f'<= {target:.2f}', v <= target, WHY['small']))
    cells = [s for s in sizes if s in (1 << 10, 16 << 10, 256 << 10,
                                       4 << 20)]
    for n in cells:
        xnn = _cpp(records, 'f16', n)
        for threads in (1, 2):
            peer = _row(xnn, 'XNNPACK', '', threads)
            for dtype in ('f16', 'bf16'):
                lr = _lrelu(_cpp(records, dtype, n), threads, False)
                if lr is None or peer is None:
                    continue
                # Same bytes (2-byte dtypes): each time over the memcpy
                # of those bytes next to it, so that the machine's drift
                # between blocks (and within one) cancels.
                v = lr['ratio_to_memcpy'] / peer['ratio_to_memcpy']
                out.append(_goal(
                    f'{dtype}, n={size_label(n)}, {threads}T: time / '
                    'XNNPACK f16\'s',
                    f"{v:.2f} ({lr['median_ns'] / 1e3:.2f} vs "
                    f"{peer['median_ns'] / 1e3:.2f} us){_flag(lr, peer)}",
                    '<= 1.00', v <= 1.0, _why_xnnpack(dtype, n, threads)))
            if n == 1 << 10:
                continue
            rows = _cpp(records, 'bf16', n)
            simd = [r for r in rows if r['impl'] == 'copy' and
                    SIMD_COPY in r['variant'] and r['threads'] <= threads]
            lr = _lrelu(rows, threads, False)
            if simd and lr is not None:
                best = min(simd, key=lambda r: r['ratio_to_memcpy'])
                v = lr['ratio_to_memcpy'] / best['ratio_to_memcpy']
                out.append(_goal(
                    f'bf16, n={size_label(n)}, {threads}T: time / SIMD '
                    f"copy's ({best['threads']}T)",
                    f'{v:.2f}{_flag(lr, best)}', '<= 1.30', v <= 1.30,
                    WHY['bf16_2T'] if threads == 2 and n >= 4 << 20 and
                    'bf16_2T' in WHY else WHY['bf16']))
    # Two threads never slower than one, every size; the spread is the
    # quotient of the two cells' interquartile ranges.
    for dtype in ('f32', 'f16', 'bf16'):
        for n in sizes:
            rows = _cpp(records, dtype, n)
            one, two = _lrelu(rows, 1, False), _lrelu(rows, 2, False)
            if one is None or two is None:
                continue
            v = two['ratio_to_memcpy'] / one['ratio_to_memcpy']
            lo = two['ratio_q1'] / one['ratio_q3']
            hi = two['ratio_q3'] / one['ratio_q1']
            out.append(_goal(
                f'{dtype}, n={size_label(n)}: 2T time / 1T time',
                f'{v:.2f} [{lo:.2f}-{hi:.2f}]{_flag(one, two)}',
                '<= 1.00 within the spread', lo <= 1.0,
                WHY['threads_4Mi'] if dtype == 'f32' and n == 4 << 20 and
                'threads_4Mi' in WHY else WHY['threads']))
    py = [r for r in records if r['lang'] == 'py' and r['dtype'] == 'f32'
          and r['n'] == 1 << 10 and r.get('supported')]
    lr = _row(py, 'lrelu', 'lrelu.leaky_relu(x, a, out=y)', 1)
    torch = _row(py, 'PyTorch', 'leaky_relu(x, a, out=y)', 1)
    if lr is not None and torch is not None:
        v = lr['median_ns'] / torch['median_ns']
        out.append(_goal(
            'f32, n=1Ki, 1T, Python: lrelu.leaky_relu(x, a, out=y) time / '
            'torch F.leaky_relu(t, a, out=u)\'s',
            f"{v:.2f} ({lr['median_ns'] / 1e3:.2f} vs "
            f"{torch['median_ns'] / 1e3:.2f} us){_flag(lr, torch)}",
            '<= 1.00', v <= 1.0, WHY['python']))
    return out


def all_goals(records, dtypes, sizes):
    """(the current rows with the out-of-cache bandwidth, the earlier ones)."""
    return (issue16_goals(records, sizes) +
            bandwidth_goals(records, dtypes, sizes) + peer_goals(records),
            cache_goals(records, dtypes, sizes) +
            small_goals(records, dtypes))
