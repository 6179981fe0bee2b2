# SPDX-License-Identifier: BSD-3-Clause
"""Public-schema preprocessing: declare what is public, encode by it.

A :class:`PublicSchema` (a JSON file, see ``docs/schema.md``) names the label
column and its classes, and every feature column with its public range
(numeric) or its public categories (categorical). :class:`SchemaTransformer`
encodes a table by it without reading any bound from the data, so the encoded
rows have the public norm bound ``PublicSchema.row_norm_bound`` (as CSR when
one-hot columns dominate). Optionally the schema declares public class
proportions (``label.priors``, for ``class_weight="balanced"``) and a
sample-weight column with its public upper bound (:class:`WeightSpec`).
:class:`PublicStep` marks another transformer as public, so that the private
selectors tune pipelines through it.
"""

from ._draft import draft_schema
from ._public_step import PublicStep
from ._schema import (
    CategoricalFeature,
    LabelSpec,
    NumericFeature,
    PublicSchema,
    SchemaError,
    WeightSpec,
    canonical_key,
)
from ._transformer import SchemaTransformer

__all__ = [
    "CategoricalFeature",
    "LabelSpec",
    "NumericFeature",
    "PublicSchema",
    "PublicStep",
    "SchemaError",
    "SchemaTransformer",
    "WeightSpec",
    "canonical_key",
    "draft_schema",
]
