"""Markdown tables from the merged records."""
from results import DTYPES, NT_COPY, SIMD_COPY, size_label

IMPL_ORDER = ['copy', 'lrelu', 'plain loop', 'oneDNN', 'XNNPACK', 'Eigen',
              'numpy', 'PyTorch', 'ONNX Runtime']


def cell(r):
    if r is None:
        return '-'
    if not r.get('supported'):
        return 'n/a'
    flags = ('~' if r['noisy'] else '') + ('!' if r.get('loaded') else '')
    return f"{r['ratio_to_memcpy']:.2f}{flags} ({r['gbps']:.1f})"


def _row_key(r):
    impl = IMPL_ORDER.index(r['impl']) if r['impl'] in IMPL_ORDER else 99
    return (r['lang'] != 'cpp', r['threads'], impl, r['inplace'])


def dtype_table(records, dtype, sizes):
    rows = {}
    for r in records:
        if r['dtype'] != dtype:
            continue
        key = (r['lang'], r['impl'], r['variant'], r['threads'])
        rows.setdefault(key, {})[r['n']] = r
    if not rows:
        return ''
    lines = ['| peer | variant | thr | ' +
             ' | '.join(f'n={size_label(n)}' for n in sizes) + ' |',
             '|---|---|---|' + '---|' * len(sizes)]
    ordered = sorted(rows.items(), key=lambda kv: (
        _row_key(next(iter(kv[1].values()))), list(rows).index(kv[0])))
    for (lang, impl, variant, threads), by_n in ordered:
        name = impl + (' [py]' if lang == 'py' else '')
        if impl == 'lrelu':
            name = f'**{name}**'
        lines.append(f'| {name} | {variant} | {threads} | ' +
                     ' | '.join(cell(by_n.get(n)) for n in sizes) + ' |')
    return '\n'.join(lines)


def key_table(records, dtypes, sizes, picks):
    """One row per dtype x threads: lrelu, the best peer, and the copies."""
    lines = ['| dtype | thr | n | lrelu one call | lrelu planned | '
             'best C++ peer | memcpy | SIMD copy | NT-store copy |',
             '|---|---|---|---|---|---|---|---|---|']

    def pick(dtype, n, threads, test):
        c = [r for r in records if r['lang'] == 'cpp' and
             r['dtype'] == dtype and r['n'] == n and
             r['threads'] == threads and r.get('supported') and test(r)]
        return min(c, key=lambda r: r['ratio_to_memcpy']) if c else None

    for dtype in dtypes:
        for n in [s for s in sizes if s in picks] or sizes:
            for threads in (1, 2):
                lr1 = pick(dtype, n, threads, lambda r: r['variant'] ==
                           'lrelu_leaky_relu (one call)')
                if lr1 is None:
                    continue
                lrp = pick(dtype, n, threads, lambda r: r['variant'] ==
                           'lrelu_execute (planned)')
                peer = pick(dtype, n, threads, lambda r: r['impl'] not in
                            ('copy', 'lrelu') and not r['inplace'])
                mc = pick(dtype, n, threads, lambda r: r['variant'] ==
                          'memcpy')
                simd = pick(dtype, n, threads, lambda r: SIMD_COPY in
                            r['variant'])
                nt = pick(dtype, n, threads, lambda r: NT_COPY in
                          r['variant'])
                peer_txt = (f"{cell(peer)} {peer['impl']}" if peer else '-')
                lines.append(
                    f'| {dtype} | {threads} | {size_label(n)} | {cell(lr1)} |'
                    f' {cell(lrp)} | {peer_txt} | {cell(mc)} | {cell(simd)} |'
                    f' {cell(nt)} |')
    return '\n'.join(lines)


def goals_table(goals):
    """A missed goal that says why (the current rows) gets the reason in its
    last cell."""
    lines = ['| goal | measured | target | met |', '|---|---|---|---|']
    for g in goals:
        met = 'yes' if g['met'] else '**no**'
        if not g['met'] and g.get('why'):
            met += f": {g['why']}"
        extra = ' (f64: not a stated goal)' if g.get('extra') else ''
        lines.append(f"| {g['goal']}{extra} | {g['measured']} | "
                     f"{g['target']} | {met} |")
    return '\n'.join(lines)


def correctness_table(rows):
    lines = ['| peer | variant | dtype | thr | result against lrelu |',
             '|---|---|---|---|---|']
    seen = set()
    for r in sorted(rows, key=lambda r: (DTYPES.index(r['dtype']),
                                         r['lang'] != 'cpp', r['threads'])):
        key = (r['lang'], r['impl'], r['variant'], r['dtype'], r['result'])
        if key in seen:  # 1- and 2-thread rows that agree: list once
            continue
        seen.add(key)
        name = r['impl'] + (' [py]' if r['lang'] == 'py' else '')
        lines.append(f"| {name} | {r['variant']} | {r['dtype']} | "
                     f"{r['threads']} | {r['result']} |")
    return '\n'.join(lines)
