"""Response bodies of the call routes."""

from __future__ import annotations

from pydantic import Field

from gateway.web.outputs import Succeeded


class CallRejectedResponse(Succeeded):
    call_id: str = Field(description="The call rejected; `call.reject` (`by: api`) follows")
