"""Base class of every API model (request bodies, response bodies, documented errors): built
when first used.

Pydantic builds a model's validator and serializer as its class is made: tens of them at
every function's import, while a function's first request uses its own route's few, and the
error models only serve the OpenAPI document. With ``defer_build`` each model is built the
first time it validates, serialises or is documented: the same models and the same document,
less work on a cold start (``bench/coldstart``).
"""

from __future__ import annotations

import warnings

from pydantic import BaseModel, ConfigDict
from pydantic.warnings import UnsupportedFieldAttributeWarning

# FastAPI gives a route's fields an alias ("body" for a request body) and builds their
# validators under a filter of this warning; a deferred model's validator is built on its
# first use instead, outside that filter, and would warn once about the same alias.
warnings.filterwarnings("ignore", message="The 'alias' attribute", category=UnsupportedFieldAttributeWarning)


class DeferredModel(BaseModel):
    """A model built on first use; subclasses add to its configuration."""

    model_config = ConfigDict(defer_build=True)
