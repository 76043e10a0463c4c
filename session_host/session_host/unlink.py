"""Unlinking a device from its account: for ``logout``, and for ``delete`` where it never fails."""

from __future__ import annotations

from gateway.failures.kinds import ErrorKind
from gateway.observability import logger
from session_host.config import READY_WAIT_SECONDS
from session_host.device_tenure import OwnedDevice
from session_host.network.port import NetworkError, SessionState


async def unlink(owned: OwnedDevice) -> None:
    """Log the session out, connecting it first (up to a few seconds) so the network hears it.

    A session that cannot connect still logs out: the adapter then deletes the credentials
    locally and the phone lists the linked device until it is removed there.
    """
    session = owned.session
    if session.state is not SessionState.CONNECTED:
        try:
            await session.connect()
        except NetworkError as error:
            logger.info(
                "device did not connect before logout",
                extra={"device_id": owned.device_id, "error": str(error)},
            )
        else:
            await owned.wait_until(
                lambda: session.state in (SessionState.CONNECTED, SessionState.LOGGED_OUT), READY_WAIT_SECONDS
            )
    if session.jid is None:  # the network unlinked it meanwhile
        return
    if not owned.active:  # the lease was lost meanwhile: the credentials are the new owner's
        raise NetworkError(ErrorKind.NOT_CONNECTED, "another host runs the device now; retry")
    await session.logout()


async def forget(owned: OwnedDevice) -> None:
    """Unlink if the network can be told; otherwise stop the session and delete its
    credentials locally. Never raises a network error: deleting a device always works."""
    if owned.session.jid is None:
        return
    try:
        await unlink(owned)
        return
    except NetworkError as error:
        logger.warning(
            "device could not be unlinked online", extra={"device_id": owned.device_id, "error": str(error)}
        )
    if not owned.active:
        return
    try:
        await owned.session.close()
        if owned.session.jid is not None:
            await owned.session.logout()  # not connected: the credentials are deleted locally
    except NetworkError as error:
        logger.error(
            "credentials of a deleted device could not be deleted",
            extra={"device_id": owned.device_id, "error": str(error)},
        )
