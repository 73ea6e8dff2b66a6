"""GB/s against size: one panel per dtype and thread count, one line per
implementation (its best out-of-place variant), the copies dashed."""
import matplotlib

matplotlib.use('Agg')  # no display on the benchmark machine
import matplotlib.pyplot as plt  # noqa: E402

from results import DTYPES, NT_COPY, SIMD_COPY, size_label  # noqa: E402

COPIES = (('memcpy', 'memcpy'), (SIMD_COPY, 'SIMD copy'),
          (NT_COPY, 'NT-store copy'))


def _series(records, dtype, threads):
    lines = {}
    for r in records:
        if (r['dtype'] != dtype or r['threads'] != threads or
                not r.get('supported') or r['inplace']):
            continue
        if r['impl'] == 'copy':
            label = next(lab for part, lab in COPIES if part in r['variant'])
        elif r['lang'] == 'py' and r['is_copy']:
            continue
        else:
            label = r['impl'] + (' [py]' if r['lang'] == 'py' else '')
            if r['impl'] == 'lrelu' and r['lang'] == 'cpp':
                label = 'lrelu (one call)' if 'one call' in r['variant'] \
                    else 'lrelu (planned)'
        best = lines.setdefault(label, {})
        best[r['n']] = max(best.get(r['n'], 0), r['gbps'])
    return lines


# Fixed styles, so a line looks the same in every panel.
STYLES = {
    'memcpy': dict(color='0.55', linestyle='--'),
    'SIMD copy': dict(color='0.3', linestyle='--'),
    'NT-store copy': dict(color='black', linestyle='--'),
    'lrelu (one call)': dict(color='tab:red', linewidth=2.5, marker='o'),
    'lrelu (planned)': dict(color='darkred', linewidth=1.5, marker='o',
                            linestyle=':'),
    'lrelu [py]': dict(color='salmon', linewidth=2, marker='o'),
}
PEER_COLORS = ['tab:blue', 'tab:orange', 'tab:green', 'tab:purple',
               'tab:brown', 'tab:pink', 'tab:olive', 'tab:cyan']


def _style(label, others):
    if label in STYLES:
        return STYLES[label]
    if label not in others:
        others[label] = PEER_COLORS[len(others) % len(PEER_COLORS)]
    return dict(color=others[label], linewidth=1.2, marker='.')


def plot(records, path):
    dtypes = [d for d in DTYPES if any(r['dtype'] == d for r in records)]
    fig, axes = plt.subplots(2, len(dtypes), figsize=(4.2 * len(dtypes), 8.6),
                             squeeze=False, sharey=True)
    others, handles = {}, {}
    for col, dtype in enumerate(dtypes):
        for row, threads in enumerate((1, 2)):
            ax = axes[row][col]
            for label, pts in sorted(_series(records, dtype, threads).items()):
                ns = sorted(pts)
                (line,) = ax.plot(ns, [pts[n] for n in ns], label=label,
                                  **_style(label, others))
                handles.setdefault(label, line)
            ax.set_xscale('log', base=2)
            ax.set_yscale('log')
            ax.set_ylim(bottom=0.1)
            plural = 's' if threads > 1 else ''
            ax.set_title(f'{dtype}, {threads} thread{plural}')
            ax.grid(True, which='both', alpha=0.3)
            ns = sorted({r['n'] for r in records if r['dtype'] == dtype})
            ax.set_xticks(ns)
            ax.set_xticklabels([size_label(n) for n in ns], rotation=45)
            if col == 0:
                ax.set_ylabel('GB/s (read + write)')
            if row == 1:
                ax.set_xlabel('elements')
    fig.legend(list(handles.values()), list(handles), loc='lower center',
               ncol=min(6, len(handles)), fontsize=8)
    fig.suptitle('LeakyReLU throughput against size, best out-of-place '
                 'variant per implementation (higher is better)')
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(path, dpi=90)
    plt.close(fig)
