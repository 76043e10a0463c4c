"""A send refused for rate, as the real neonize 0.5.2 reports it, through the adapter's mapping.

The network answers a message with an acknowledgement whose ``error`` attribute holds a code;
whatsmeow (send.go, ``SendMessage``) turns a non-zero code into ``fmt.Errorf("%w %d",
ErrServerReturnedError, code)``: "server returned error 463" (reachout timelock) or "... 429"
(rate overlimit). A query it makes on the way (the recipient's devices) can be throttled too:
``ErrIQRateOverLimit``, "info query returned status 429: rate-overlimit". neonize's Go side
puts that text in ``SendMessageReturnFunction.Error`` and ``NewClient.send_message`` raises
``SendMessageError(model.Error)``. Offline no acknowledgement can come, so the answer is built
here as the Go side encodes it (the real protobuf, through its bytes) and raised as neonize
raises it; the test checks first that the loaded library does exactly that.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import neonize
import pytest
from neonize.client import NewClient
from neonize.exc import SendMessageError
from neonize.proto.Neonize_pb2 import SendMessageReturnFunction

from gateway.failures.kinds import ErrorKind
from session_host.network.neonize.link import library_error
from session_host.network.port import RateLimit


def raised_by_neonize(go_answer: bytes) -> SendMessageError:
    """What ``NewClient.send_message`` raises for the Go side's answer ``go_answer``."""
    model = SendMessageReturnFunction.FromString(go_answer)
    assert model.Error
    return SendMessageError(model.Error)


def test_the_loaded_library_raises_whatsmeows_text_of_a_refused_send_verbatim() -> None:
    # The send path of neonize 0.5.2: the Go answer's Error, as SendMessageError
    source = inspect.getsource(NewClient.send_message)
    assert "SendMessageReturnFunction.FromString(protobytes)" in source
    assert "raise SendMessageError(model.Error)" in source
    # And the bundled whatsmeow has the texts the adapter reads
    library = (Path(neonize.__file__).parent / "neonize-linux-amd64.so").read_bytes()
    assert b"server returned error" in library
    assert b"rate-overlimit" in library


@pytest.mark.parametrize(
    ("whatsmeow_text", "limit"),
    [
        ("server returned error 463", RateLimit.REACHOUT_TIMELOCK),
        ("server returned error 429", RateLimit.OVERLIMIT),
        ("failed to get device list: info query returned status 429: rate-overlimit", RateLimit.OVERLIMIT),
    ],
)
def test_a_send_refused_for_rate_is_rate_limited_naming_the_limit(
    whatsmeow_text: str, limit: RateLimit
) -> None:
    # Given the Go side's answer to a send the network refused for rate
    go_answer = SendMessageReturnFunction(Error=whatsmeow_text).SerializeToString()

    # When the adapter maps the exception neonize raises for it
    error = library_error("send message", raised_by_neonize(go_answer))

    # Then it is RATE_LIMITED naming the limit, no time (whatsmeow reads only the code)
    assert (error.kind, error.rate_limit, error.retry_at) == (ErrorKind.RATE_LIMITED, limit, None)
    assert whatsmeow_text in str(error)


def test_another_server_error_of_a_send_stays_a_network_error() -> None:
    go_answer = SendMessageReturnFunction(Error="server returned error 500").SerializeToString()
    error = library_error("send message", raised_by_neonize(go_answer))
    assert (error.kind, error.rate_limit) == (ErrorKind.NETWORK, None)
