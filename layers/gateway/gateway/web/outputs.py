"""Base classes of the response models: what every success body and every list has.

Routes build their response model from the views' dicts. Construction validates once;
FastAPI then takes the instance as it is (no second validation) and serialises it straight
to JSON bytes, so a typed response costs about what the dict did.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from gateway.web.deferred import DeferredModel


def _open_for_additions(schema: dict[str, Any]) -> None:
    """Fields are forbidden when a body is built, so a view that grows a field the model lacks
    fails loudly instead of losing it; the document still lets clients accept fields added
    later (changes within a major version are additive)."""
    schema.pop("additionalProperties", None)


class OutputModel(DeferredModel):
    """A part of a response body. Every field is always present in the JSON, nulls included."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra=_open_for_additions,
        json_schema_serialization_defaults_required=True,
    )


class Succeeded(OutputModel):
    """A success body: ``success`` is always true."""

    success: Literal[True] = True


NextCursor = Annotated[str | None, Field(description="Opaque cursor of the next page; null on the last page")]
"""The ``next`` field of a list body, declared after its items: ``next: NextCursor = None``."""
