# SPDX-License-Identifier: BSD-3-Clause
"""Public-schema preprocessing: declare what is public, encode by it.

A :class:`PublicSchema` (a JSON file, see ``docs/schema.md``) names the label
column and its classes, and every feature column with its public range
(numeric) or its public categories (categorical). :class:`SchemaTransformer`
encodes a table by it without reading any bound from the data, so the encoded
rows have the public norm bound ``PublicSchema.row_norm_bound`` (as CSR when
one-hot columns dominate). :class:`PublicStep` marks another transformer as
public, so that the private selectors tune pipelines through it.
"""

from ._draft import draft_schema
from ._public_step import PublicStep
from ._schema import (
    CategoricalFeature,
    LabelSpec,
    NumericFeature,
    PublicSchema,
    SchemaError,
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
    "canonical_key",
    "draft_schema",
]
