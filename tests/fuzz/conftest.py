# SPDX-License-Identifier: BSD-3-Clause
"""Hypothesis profile of the fuzz suite.

``dpsvm-fuzz`` is derandomised (the examples are a fixed function of each test,
so CI runs are reproducible and a failure replays exactly), has no deadline
(fits on 2 shared cores have a variable duration) and stores nothing in an
example database. Each test picks a small ``max_examples`` itself so that the
whole suite stays under a minute; the profile is applied per test, through
``settings(settings.get_profile("dpsvm-fuzz"), max_examples=...)``, and is *not*
loaded globally, so the other hypothesis tests of the project keep their own
settings. For a longer local run, raise the counts with the environment variable
``DPSVM_FUZZ_SCALE`` (e.g. ``DPSVM_FUZZ_SCALE=20``); the examples then remain
derandomised.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "dpsvm-fuzz",
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.filter_too_much,
    ],
)
