"""Readers of sk-lda's text outputs that need no library: theta.txt.

The binary outputs need no reader of their own: numpy.load() reads theta.npy (D x K float32, a row per
input document) and phi.npy (K x V float32, from `sk-lda export`); read_model() reads model.skl.
"""

import re
from collections import namedtuple

import numpy as np

from ._errors import SkldaInputError

__all__ = ["ThetaText", "read_theta_txt"]

ThetaText = namedtuple("ThetaText", ["doc_ids", "theta", "alpha"])
ThetaText.__doc__ = """theta.txt as read by read_theta_txt().

Attributes:
    doc_ids: int64 array of the listed documents' ids (0-based index in the input corpus; a UCI docID - 1).
    theta: float64 array, one row per listed document, K columns (rows sum to 1 up to the file's 6 digits).
    alpha: the document-topic prior of the file's header (NaN when the header has none).
"""

_HEADER_K = re.compile(r"\bK=(\d+)")
_HEADER_ALPHA = re.compile(r"\balpha=([^\s;]+)")


def read_theta_txt(path, num_topics=None):
    """Reads theta.txt, the sparse document-topic proportions `sk-lda train --out` and `sk-lda infer` write.

    Each line is "doc_id k:theta_dk ..." for the topics with n_dk > 0; the topics not listed share what is
    left (each alpha / (n_d + K alpha) for a symmetric alpha), filled in here; a line with its id alone is
    an empty document (1/K everywhere). Documents the file does not list (held out, or with no tokens in
    a UCI file) are absent: theta.npy has every input document's row.

    Args:
        path: the file.
        num_topics: K, when the file's header does not state it.
    Returns:
        ThetaText(doc_ids, theta, alpha).
    Raises:
        SkldaInputError: a malformed line (the message names the file and line), or no K known.
        OSError: the file cannot be opened.
    """
    alpha = float("nan")
    ids, rows = [], []
    k_count = num_topics
    with open(path, "r", encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if line.startswith("#"):
                m = _HEADER_K.search(line)
                if m and k_count is None:
                    k_count = int(m.group(1))
                m = _HEADER_ALPHA.search(line)
                if m:
                    alpha = float(m.group(1))
                continue
            fields = line.split()
            if not fields:
                continue
            try:
                ids.append(int(fields[0]))
                rows.append([(int(k), float(p)) for k, p in (x.split(":") for x in fields[1:])])
            except ValueError:
                raise SkldaInputError("%s:%d: expected 'doc_id k:theta ...', got %r" % (path, lineno, line.rstrip()))
    if k_count is None:
        raise SkldaInputError("%s: no 'K=' in the header: pass num_topics" % path)
    theta = np.empty((len(rows), k_count), dtype=np.float64)
    for i, row in enumerate(rows):
        listed = np.zeros(k_count, dtype=bool)
        total = 0.0
        for k, p in row:
            if not 0 <= k < k_count:
                raise SkldaInputError("%s: document %d lists topic %d, outside [0, %d)" % (path, ids[i], k, k_count))
            theta[i, k] = p
            listed[k] = True
            total += p
        rest = k_count - int(listed.sum())
        if rest:
            theta[i, ~listed] = (1.0 / k_count) if not row else max(0.0, 1.0 - total) / rest
    return ThetaText(np.asarray(ids, dtype=np.int64), theta, alpha)
