# SPDX-License-Identifier: BSD-3-Clause
# ruff: noqa: E501
"""Version-1 model files (the layout before ``state``) still load and read the same.

The two documents below are what ``model_to_dict`` wrote at ``format_version``
1 (state keys at the top level), pasted as fixed content; the expected scores
are those of the estimators that wrote them.
"""

import json
import warnings

import numpy as np
import pytest

from dpsvm.io import FORMAT_VERSION, load_model, model_to_dict, save_model
from dpsvm.models import DPKernelSVC, DPLinearSVC

# fmt: off
LINEAR_V1 = {'format': 'dpsvm-model',
 'format_version': 1,
 'dpsvm_version': '0.0',
 'estimator': 'DPLinearSVC',
 'params': {'classes': [-1, 1],
            'data_norm': 1.0,
            'delta': 0.0,
            'epsilon': 1.0,
            'fit_intercept': True,
            'huber_h': 0.5,
            'intercept_scaling': 0.5,
            'loss': 'huber',
            'max_iter': 200,
            'mechanism': 'objective',
            'regularization': 'auto',
            'tol': 1e-10},
 'label_type': 'int',
 'classes': [-1, 1],
 'coef': [[0.360233018118035, 0.46195140440886906]],
 'intercept': [-0.10617189765416969],
 'data_norm': 1.0,
 'n_features_in': 2,
 'privacy_event': {'type': 'pure',
                   'mechanism': 'objective-perturbation',
                   'epsilon': 1.0,
                   'delta': 0.0,
                   'sensitivity': 2.0,
                   'sensitivity_norm': 'gradient-l2',
                   'neighbouring': 'replace-one',
                   'reference': 'Chaudhuri, Monteleoni & Sarwate, JMLR 12 (2011), '
                                'Algorithm 2 / Theorem 9 (corrects Sarwate, '
                                'Chaudhuri & Monteleoni, arXiv:0912.0071, Alg. 1); '
                                'certified solver residual charged as in Iyengar '
                                'et al., IEEE S&P 2019, Thm 1 (pure-DP analogue)',
                   'details': {'loss': 'HuberLoss(h=0.5)',
                               'regularization': 0.4876041623266472,
                               'data_norm': 1.0,
                               'fit_intercept': True,
                               'n_samples': 40,
                               'n_features': 3,
                               'solver_tol': 1e-10,
                               'epsilon_prime': 0.89,
                               'extra_regularization': 0.0,
                               'noise_norm_scale': 2.247191011235955,
                               'variant': 'jmlr2011',
                               'smoothness_c': 1.0,
                               'epsilon_objective': 0.99,
                               'epsilon_residual': 0.01,
                               'certified_residual': 1e-10,
                               'residual_sensitivity': 4.1016877100819233e-10,
                               'residual_noise_scale': 4.1016877100819235e-08},
                   'children': []}}
LINEAR_SCORES = [-0.11141651435868224, -0.013118517426890894, -0.11481404817566447]

KERNEL_V1 = {'format': 'dpsvm-model',
 'format_version': 1,
 'dpsvm_version': '0.0',
 'estimator': 'DPKernelSVC',
 'params': {'classes': [-1, 1],
            'delta': 0.0,
            'epsilon': 1.0,
            'feature_map': 'auto',
            'gamma': 0.5,
            'huber_h': 1.0,
            'kernel': 'rbf',
            'loss': 'auto',
            'max_iter': 200,
            'mechanism': 'rubinstein',
            'n_components': 2,
            'norm_handling': 'clip',
            'regularization': 'auto',
            'tol': 1e-10},
 'label_type': 'int',
 'classes': [-1, 1],
 'coef': [[-1.4443755149841309,
           2.882986068725586,
           -2.6543331146240234,
           1.680574893951416]],
 'random_features': {'kernel': 'rbf',
                     'gamma': 0.5,
                     'n_components': 2,
                     'feature_map': 'cos-sin',
                     'norm_handling': 'clip',
                     'scale': 0.7071067811865475,
                     'feature_norm_bound': 1.0,
                     'projection_radius': 1.0,
                     'frequencies': [[0.1257302210933933, -0.1321048632913019],
                                     [0.6404226504432821, 0.10490011715303971]],
                     'phases': None},
 'data_norm': 1.0,
 'n_features_in': 2,
 'privacy_event': {'type': 'pure',
                   'mechanism': 'random-fourier-features[cos-sin]+output-perturbation-laplace',
                   'epsilon': 1.0,
                   'delta': 0.0,
                   'sensitivity': 2.2767477401689358,
                   'sensitivity_norm': 'l1',
                   'neighbouring': 'replace-one',
                   'reference': 'Rubinstein, Bartlett, Huang & Taft, '
                                'arXiv:0911.5708, Algorithm 3 (PRIVATESVM) and '
                                'Corollary 9: λ = 2^2.5·L·C·√d̂/(βn) on the '
                                'cos-sin map (4.1), κ = 1, F = 2d̂; linear step: '
                                'Rubinstein, Bartlett, Huang & Taft, '
                                'arXiv:0911.5708, Algorithm 2 (PRIVATESVM-FINITE), '
                                'Lemma 6 and Theorem 7',
                   'details': {'loss': 'HingeLoss()',
                               'regularization': 0.08802029160469496,
                               'data_norm': 1.0,
                               'fit_intercept': False,
                               'n_samples': 40,
                               'n_features': 4,
                               'solver_tol': 1e-10,
                               'noise_scale_internal': 2.2767477401689358,
                               'certificate_cap': 0.001136101666750966,
                               'kernel': 'rbf',
                               'gamma': 0.5,
                               'n_components': 2,
                               'feature_map': 'cos-sin',
                               'norm_handling': 'clip',
                               'n_random_features': 4,
                               'feature_norm_bound': 1.0,
                               'calibrated_norm_bound': 1.0,
                               'frequencies': 'data-independent, released '
                                              '(frequencies_, phases_)',
                               'laplace_scale_cor9': 2.272203333501932,
                               'n_laplace_draws': 4},
                   'children': []}}
KERNEL_SCORES = [1.0483827973844635, 0.8963555510362093, 0.9577974786981409]
# fmt: on

ENVELOPE = ("format", "format_version", "dpsvm_version", "estimator", "params",
            "privacy_event")  # fmt: skip


def _rows():
    rng = np.random.default_rng(0)
    return rng.normal(size=(40, 2))[:3] / 3


@pytest.mark.parametrize(
    ("doc", "scores", "cls"),
    [(LINEAR_V1, LINEAR_SCORES, DPLinearSVC), (KERNEL_V1, KERNEL_SCORES, DPKernelSVC)],
    ids=["linear", "kernel"],
)
def test_version_1_file_loads_and_scores_the_same(tmp_path, doc, scores, cls):
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(doc))
    model = load_model(path)
    assert type(model) is cls
    np.testing.assert_allclose(model.decision_function(_rows()), scores, rtol=1e-12)
    assert model.privacy_event_.to_dict() == doc["privacy_event"]
    # Re-saved, it is a version-2 file whose state is the version-1 state.
    new = model_to_dict(model)
    assert new["format_version"] == FORMAT_VERSION == 2
    state = {k: v for k, v in doc.items() if k not in ENVELOPE}
    assert new["state"] == state
    # Parameters added since are written with the default the old fit had.
    later = {p: getattr(cls(), p) for p in getattr(cls, "_params_added_later", ())}
    assert new["params"] == {**doc["params"], **later}
    assert new["privacy_event"] == doc["privacy_event"]
    save_model(model, path)
    again = load_model(path)
    assert np.array_equal(
        again.decision_function(_rows()), model.decision_function(_rows())
    )


@pytest.mark.parametrize(
    ("key", "value", "match"),
    [
        ("coef", [[0.1]], r"coef has shape \(1, 1\); expected \(1, 2\)"),
        ("state", {}, "unknown key\\(s\\) 'state'"),
        ("intercept", None, "intercept must be a \\(nested\\) list"),
    ],
)
def test_version_1_checks_still_apply(tmp_path, key, value, match):
    doc = json.loads(json.dumps(LINEAR_V1))
    doc[key] = value
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(ValueError, match=match):
        load_model(path)


def test_version_1_event_must_match_the_parameters(tmp_path):
    doc = json.loads(json.dumps(LINEAR_V1))
    doc["params"]["epsilon"] = 2.0
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(doc))
    with warnings.catch_warnings(), pytest.raises(ValueError, match="does not match"):
        warnings.simplefilter("ignore")
        load_model(path)
