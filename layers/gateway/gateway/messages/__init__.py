"""Message operations that act through a device's session: which chats and senders they
accept (``chats``), their request bodies (``schemas``) and the read receipts (``receipts``).

They run on the request's device (``gateway.devices.dependencies.authenticated_device``),
need its session connected (``gateway.devices.access.require_session``) and reach it as
commands on the bus (``gateway.devices.commands``). Sends wait in the outbox (``outbox``)
until the session host that runs the device dispatches them; ``sending`` enqueues a send
and holds the request for its dispatch.
"""
