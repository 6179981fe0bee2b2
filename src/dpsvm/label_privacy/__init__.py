# SPDX-License-Identifier: BSD-3-Clause
"""Label differential privacy: randomise the labels once, train any classifier.

Under label DP (relation ``"replace-one-label"``) neighbouring data sets have
the same features and differ in one label: **only the labels are protected**,
the features are public. :class:`LabelPrivateClassifier` randomises each label
once, by k-ary randomized response or by RR with a prior (Ghazi, Golowich,
Kumar, Manurangsi & Zhang, NeurIPS 2021), and trains any scikit-learn
classifier on the public features and the noisy labels (post-processing). The
margin-based label-DP learner of Bassily, Mohri & Suresh stays in
:mod:`dpsvm.margins`. See docs/label_privacy.md.
"""

from ._classifier import LabelPrivateClassifier, default_estimator
from ._mechanisms import (
    randomized_response,
    rr_keep_probability,
    rr_top_k_distribution,
    rr_with_prior,
    rr_with_prior_top_k,
)

__all__ = [
    "LabelPrivateClassifier",
    "default_estimator",
    "randomized_response",
    "rr_keep_probability",
    "rr_top_k_distribution",
    "rr_with_prior",
    "rr_with_prior_top_k",
]
